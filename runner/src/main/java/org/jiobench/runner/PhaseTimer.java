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
 * a write and checking it after a read happen with the clock stopped. A deadline ends the phase
 * at the next transfer, or within one for the per-element approaches; with wear-out every rank
 * then goes on to the most any rank moved by then.
 */
final class PhaseTimer {
    private final ApproachSettings settings;
    private final boolean fsync;
    private final boolean verify;
    private final long deadlineNanos;
    private final boolean wearOut;
    private final World world;

    PhaseTimer(RunSettings run, World world) {
        this.settings = run.approachSettings();
        this.fsync = run.fsync();
        this.verify = run.verify();
        this.deadlineNanos = run.deadlineSeconds() > 0 ? Math.round(run.deadlineSeconds() * 1e9) : Long.MAX_VALUE;
        this.wearOut = run.wearOut();
        this.world = world;
    }

    RankRecord run(Phase phase, TransferBuffer buffer) throws IOException {
        Stopwatch clock = new Stopwatch();
        Mover mover = new Mover(phase, buffer, clock);
        double opened;
        double transferred;
        Long stonewallBytes = null;
        Double stonewallSeconds = null;
        boolean stonewalled;
        try (TransferIo io = phase.approach().open(phase.file(), phase.mode(), buffer, settings)) {
            opened = clock.seconds();
            mover.moveTo(io, phase.bytes());
            stonewalled = mover.position < phase.bytes();
            if (wearOut) {
                stonewallBytes = mover.position;
                stonewallSeconds = clock.seconds();
                long most = world.wearOut(mover.position);
                mover.deadlineActive = false;
                mover.moveTo(io, Math.min(most, phase.bytes()));
            }
            if (fsync && phase.mode() == IoMode.WRITE) io.sync();
            transferred = clock.seconds();
        }
        double elapsed = clock.seconds();
        return new RankRecord(phase.approach().id(), phase.mode().id(), phase.fork(), phase.rep(), phase.warmup(),
                world.rank(), mover.position, (int) (mover.position / buffer.size()), opened, transferred - opened,
                elapsed - transferred, elapsed, stonewalled, stonewallBytes, stonewallSeconds, mover.verified(),
                mover.error);
    }

    /** Moves the phase's bytes along its transfers in visiting order, keeping count of where it stands. */
    private final class Mover implements TransferHooks {
        private final Phase phase;
        private final TransferBuffer buffer;
        private final Stopwatch clock;
        private final boolean fills;
        private final boolean checks;
        boolean deadlineActive = true;
        /** Bytes moved so far along the rank's transfers. */
        long position;
        String error;

        Mover(Phase phase, TransferBuffer buffer, Stopwatch clock) {
            this.phase = phase;
            this.buffer = buffer;
            this.clock = clock;
            boolean hasData = buffer.form() != DataForm.NONE;
            this.fills = hasData && phase.mode() == IoMode.WRITE;
            this.checks = hasData && verify && phase.mode() == IoMode.READ;
        }

        /** Moves on from {@link #position} to {@code end}, or until the stonewall stops it. */
        void moveTo(TransferIo io, long end) throws IOException {
            int size = buffer.size();
            while (position < end) {
                int k = (int) (position / size);
                int within = (int) (position % size);
                int pieceEnd = (int) Math.min(size, end - (long) k * size);
                if (within == 0 && pieceEnd == size) {
                    int wholeEnd = (int) (end / size);
                    if (io.transferAll(phase.offsets(), k, wholeEnd, size, this) < wholeEnd) return;
                } else {
                    if (!beforeTransfer(k)) return;
                    int moved = io.transfer(phase.offsets()[k], within, pieceEnd, this);
                    afterTransfer(k, moved);
                    if (moved < pieceEnd) return;
                }
            }
        }

        @Override
        public boolean reached() {
            return deadlineActive && clock.nanos() >= deadlineNanos || StopRequest.requested();
        }

        @Override
        public boolean beforeTransfer(int k) {
            if (reached()) return false;
            if (fills) {
                clock.pause();
                buffer.prepare(phase.firstElements()[k]);
                clock.resume();
            }
            return true;
        }

        @Override
        public void afterTransfer(int k) {
            afterTransfer(k, buffer.size());
        }

        @Override
        public void afterTransfer(int k, int moved) {
            position = (long) k * buffer.size() + moved;
            if (!checks || error != null) return;
            clock.pause();
            int wrong = buffer.firstWrongByte(phase.firstElements()[k], moved);
            if (wrong >= 0) error = Verification.describe(phase.file(), phase.offsets()[k] + wrong);
            clock.resume();
        }

        /** Nothing moved is nothing verified. */
        Boolean verified() {
            return checks && position > 0 ? error == null : null;
        }
    }
}
