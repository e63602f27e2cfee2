package org.jiobench.runner;

import java.io.IOException;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.IoMode;
import org.jiobench.workloads.TransferBuffer;
import org.jiobench.workloads.TransferHooks;
import org.jiobench.workloads.TransferIo;

/**
 * Runs one phase after the barrier and times it as DESIGN.md says: open, transfer (with fsync
 * when asked), close, each on this rank's clock from the barrier's exit. Filling the array before
 * a write and checking it after a read happen with the clock stopped.
 */
final class PhaseTimer {
    private final ApproachSettings settings;
    private final boolean fsync;
    private final boolean verify;
    private final long deadlineNanos;

    PhaseTimer(ApproachSettings settings, boolean fsync, boolean verify, double deadlineSeconds) {
        this.settings = settings;
        this.fsync = fsync;
        this.verify = verify;
        this.deadlineNanos = deadlineSeconds > 0 ? Math.round(deadlineSeconds * 1e9) : Long.MAX_VALUE;
    }

    RankRecord run(Phase phase, TransferBuffer buffer, int rank) throws IOException {
        Stopwatch clock = new Stopwatch();
        Hooks hooks = new Hooks(phase, buffer, clock);
        int done;
        double opened;
        double transferred;
        try (TransferIo io = phase.approach().open(phase.file(), phase.mode(), buffer, settings)) {
            opened = clock.seconds();
            done = io.transferAll(phase.offsets(), hooks);
            if (fsync && phase.mode() == IoMode.WRITE) io.sync();
            transferred = clock.seconds();
        }
        double elapsed = clock.seconds();
        return new RankRecord(phase.approach().id(), phase.mode().id(), phase.rep(), rank,
                (long) done * buffer.size(), done, opened, transferred - opened, elapsed - transferred, elapsed,
                hooks.stonewalled, hooks.verified(), hooks.error);
    }

    private final class Hooks implements TransferHooks {
        private final Phase phase;
        private final TransferBuffer buffer;
        private final Stopwatch clock;
        private final boolean fills;
        private final boolean checks;
        boolean stonewalled;
        String error;

        Hooks(Phase phase, TransferBuffer buffer, Stopwatch clock) {
            this.phase = phase;
            this.buffer = buffer;
            this.clock = clock;
            boolean hasData = buffer.form() != DataForm.NONE;
            this.fills = hasData && phase.mode() == IoMode.WRITE;
            this.checks = hasData && verify && phase.mode() == IoMode.READ;
        }

        @Override
        public boolean beforeTransfer(int k) {
            if (clock.nanos() >= deadlineNanos) {
                stonewalled = true;
                return false;
            }
            if (fills) {
                clock.pause();
                buffer.prepare(phase.firstElements()[k]);
                clock.resume();
            }
            return true;
        }

        @Override
        public void afterTransfer(int k) {
            if (!checks || error != null) return;
            clock.pause();
            int wrong = buffer.firstWrongByte(phase.firstElements()[k]);
            if (wrong >= 0) error = Verification.describe(phase.file(), phase.offsets()[k] + wrong);
            clock.resume();
        }

        Boolean verified() {
            return checks ? error == null : null;
        }
    }
}
