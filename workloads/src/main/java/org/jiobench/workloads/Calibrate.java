package org.jiobench.workloads;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Moves no data and finishes each byte at {@code open + bytesSoFar / rate}, so a phase of N ranks
 * must report N times the programmed rate: a check of the whole timing and reduction pipeline
 * (IOR's DUMMY backend, with a known answer). Deadlines are absolute, so sleeping late once does
 * not accumulate. It wakes at least every 10 ms to ask the stonewall, and then counts the bytes
 * its rate allows until that moment.
 *
 * <p>{@code --calibrate.jitter} plants noise of a known size: each phase then runs slower than
 * programmed by a share from 0 to that, the shares of successive phases spread evenly over that
 * range (a golden-ratio sequence from a random start), so the repetitions of a phase scatter as a
 * noisy machine's do, and no few of them happen to agree: what -i auto must answer with more.
 */
public final class Calibrate implements Approach {
    private static final long LONGEST_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final double GOLDEN_RATIO_PART = (Math.sqrt(5) - 1) / 2;
    static final ApproachOption JITTER = ApproachOption.choice("jitter", List.of("none", "10%", "30%", "60%"), "none",
            "Slows each phase by a share from 0 to this, spread evenly over the phases: noise of a known size");
    static final ApproachOption RATE = ApproachOption.rate("rate", "256MiB",
            "Bytes per second per rank that calibrate pretends to move").runWide("calibrate-rate");

    /** Where in [0, 1) of the jitter the last phase fell. */
    private double jitterPoint = ThreadLocalRandom.current().nextDouble();

    @Override public String id() { return "calibrate"; }

    @Override public String description() {
        return "moves no data; waits transferSize / --calibrate.rate per transfer";
    }

    @Override public DataForm dataForm() { return DataForm.NONE; }

    @Override public List<ApproachOption> options() { return List.of(RATE, JITTER); }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) {
        double nanosPerByte = 1e9 / ((Long) settings.option(this, RATE) * (1 - jitter(settings)));
        int elementSize = buffer.elementSize();
        long opened = System.nanoTime();
        return new TransferIo() {
            private long bytesDone;

            @Override public int transfer(long fileOffset, int from, int to, Stonewall stonewall) {
                long due = opened + Math.round((bytesDone + to - from) * nanosPerByte);
                for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
                    if (stonewall.reached()) {
                        long allowed = (long) ((System.nanoTime() - opened) / nanosPerByte) - bytesDone;
                        int end = from + (int) Math.max(0, Math.min(to - from, allowed / elementSize * elementSize));
                        bytesDone += end - from;
                        return end;
                    }
                    LockSupport.parkNanos(Math.min(left, LONGEST_SLEEP_NANOS));
                }
                bytesDone += to - from;
                return to;
            }

            @Override public void sync() { }

            @Override public void close() { }
        };
    }

    /** This phase's slowdown: the next share of the sequence, within [0, jitter). */
    private double jitter(ApproachSettings settings) {
        String most = (String) settings.option(this, JITTER);
        if (most.equals("none")) return 0;
        jitterPoint = (jitterPoint + GOLDEN_RATIO_PART) % 1;
        return jitterPoint * Integer.parseInt(most.replace("%", "")) / 100.0;
    }
}
