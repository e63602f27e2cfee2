package org.jiobench.workloads;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Moves no data and finishes each byte at {@code open + bytesSoFar / rate}, so a phase of N ranks
 * must report N times the programmed rate: a check of the whole timing and reduction pipeline
 * (IOR's DUMMY backend, with a known answer). Deadlines are absolute, so sleeping late once does
 * not accumulate. It wakes at least every 10 ms to ask the stonewall, and then counts the bytes
 * its rate allows until that moment.
 */
public final class Calibrate implements Approach {
    private static final long LONGEST_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    @Override public String id() { return "calibrate"; }

    @Override public String description() {
        return "moves no data; waits transferSize / --calibrate-rate per transfer";
    }

    @Override public DataForm dataForm() { return DataForm.NONE; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) {
        double nanosPerByte = 1e9 / settings.calibrateBytesPerSecond();
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
}
