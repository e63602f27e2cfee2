package org.jiobench.workloads;

import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * Moves no data and finishes transfer k at {@code open + (k+1) * transferSize / rate}, so a phase
 * of N ranks must report N times the programmed rate: a check of the whole timing and reduction
 * pipeline (IOR's DUMMY backend, with a known answer). Deadlines are absolute, so sleeping late
 * once does not accumulate.
 */
public final class Calibrate implements Approach {
    @Override public String id() { return "calibrate"; }

    @Override public String description() {
        return "moves no data; waits transferSize / --calibrate-rate per transfer";
    }

    @Override public DataForm dataForm() { return DataForm.NONE; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) {
        double nanosPerTransfer = buffer.size() * 1e9 / settings.calibrateBytesPerSecond();
        long opened = System.nanoTime();
        return new TransferIo() {
            private long done;

            @Override public void transfer(long fileOffset) {
                done++;
                long due = opened + Math.round(done * nanosPerTransfer);
                for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
                    LockSupport.parkNanos(left);
                }
            }

            @Override public void sync() { }

            @Override public void close() { }
        };
    }
}
