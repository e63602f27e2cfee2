package org.jiobench.runner;

import java.io.IOException;
import java.util.function.BooleanSupplier;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.IoMode;
import org.jiobench.workloads.Stonewall;
import org.jiobench.workloads.TransferBuffer;
import org.jiobench.workloads.TransferIo;

/**
 * Runs one phase after the barrier and times it as docs/approaches.md (What a number means) says:
 * open, transfer (with fsync when asked), close, each on this rank's clock from the barrier's
 * exit. Filling the array before a write and checking it after a read ({@link Verifier}) happen
 * with the clock stopped; the {@link Pacer} ends the phase at its deadline, and with wear-out every
 * rank then goes on to the most any rank moved by then. The JVM's {@link Stalls} in its transfers
 * are counted apart, so that a stall that lengthened them is not taken for their pace.
 */
final class PhaseTimer {
    private static final int BOOKKEEPING_PASSES = 3;
    private final ApproachSettings settings;
    private final boolean fsync;
    private final boolean verify;
    private final Deadline deadline;
    private final World world;
    private final BooleanSupplier stopRequested;
    private final Stalls stalls = Stalls.ofThisJvm();

    /** @param stopRequested whether the run was asked to stop, which ends the phase under way */
    PhaseTimer(ApproachSettings settings, Honesty honesty, Deadline deadline, World world,
               BooleanSupplier stopRequested) {
        this.settings = settings;
        this.fsync = honesty.fsync();
        this.verify = honesty.verify();
        this.deadline = deadline;
        this.world = world;
        this.stopRequested = stopRequested;
    }

    RankRecord run(Phase phase, TransferBuffer buffer) throws IOException {
        int arrayPageOffset = buffer.placeForKernelCopy();
        Stopwatch clock = new Stopwatch();
        Pacer pacer = new Pacer(deadline, clock::nanos, stopRequested);
        Verifier verifier = new Verifier(phase, buffer, verify);
        Mover mover = new Mover(phase, buffer, clock, pacer, verifier, true);
        double opened;
        double transferred;
        long openedAt;
        long transferredAt;
        Long stonewallBytes = null;
        Double stonewallSeconds = null;
        boolean stonewalled;
        try (TransferIo io = phase.approach().open(phase.opened(), phase.mode(), buffer, settings)) {
            opened = clock.seconds();
            openedAt = System.nanoTime();
            mover.moveTo(io, phase.bytes());
            stonewalled = mover.position < phase.bytes();
            if (pacer.wearsOut()) {
                stonewallBytes = mover.position;
                stonewallSeconds = clock.seconds();
                long most = world.wearOut(mover.position);
                pacer.liftDeadline();
                mover.moveTo(io, Math.min(most, phase.bytes()));
            }
            if (fsync && phase.mode() == IoMode.WRITE) io.sync();
            transferred = clock.seconds();
            transferredAt = System.nanoTime();
        }
        double elapsed = clock.seconds();
        double stalled = stalledSeconds(openedAt, transferredAt, transferred - opened);
        return new RankRecord(phase.approach().id(), phase.mode().id(), phase.fork(), phase.rep(), phase.warmup(),
                world.rank(), mover.position, (int) (mover.position / buffer.size()), opened, transferred - opened,
                elapsed - transferred, elapsed, bookkeepingSeconds(phase, buffer, mover.position), stalled,
                stonewalled, stonewallBytes, stonewallSeconds, verifier.verified(mover.position), verifier.error(),
                arrayPageOffset < 0 ? null : arrayPageOffset,
                arrayPageOffset < 0 ? null : !TransferBuffer.clearOfSlowCopy(arrayPageOffset));
    }

    /**
     * How long of the transfers' {@code transferSeconds} the JVM stood still: the stalls between the
     * open and the end of the transfers, less the untimed work among them (filling and checking the
     * array with the clock stopped), in which a stall may have fallen too. So a stall is never
     * counted that the transfers' time does not hold.
     */
    private double stalledSeconds(long openedAt, long transferredAt, double transferSeconds) {
        long untimed = Math.max(0, transferredAt - openedAt - Math.round(transferSeconds * 1e9));
        return Math.max(0, stalls.within(openedAt, transferredAt) - untimed) / 1e9;
    }

    /**
     * What the runner's own loop costs inside the timed interval of a phase that moved {@code bytes}:
     * the same loop over transfers that move nothing, as calibrate measures the pipeline, the
     * fastest of a few passes. At one-byte transfers it is a share of the figure worth stating.
     */
    private double bookkeepingSeconds(Phase phase, TransferBuffer buffer, long bytes) throws IOException {
        EmptyIo empty = new EmptyIo(phase.approach().runsItsOwnBatches());
        long fastest = Long.MAX_VALUE;
        for (int pass = 0; pass < BOOKKEEPING_PASSES; pass++) {
            Stopwatch clock = new Stopwatch();
            new Mover(phase, buffer, clock, new Pacer(Deadline.NONE, clock::nanos, () -> false),
                    new Verifier(phase, buffer, false), false).moveTo(empty, bytes);
            fastest = Math.min(fastest, clock.nanos());
        }
        return fastest / 1e9;
    }

    /** Transfers that move nothing, in batches run by the runner's loop or, like a native loop, in one call. */
    private record EmptyIo(boolean ownBatchLoop) implements TransferIo {
        @Override public int transfer(long fileOffset, int from, int to, Stonewall stonewall) {
            return to;
        }

        @Override public int transferBatch(long[] fileOffsets, int first, int end, int size, Stonewall stonewall)
                throws IOException {
            return ownBatchLoop ? (end - first) * size
                    : TransferIo.super.transferBatch(fileOffsets, first, end, size, stonewall);
        }

        @Override public void sync() {
        }

        @Override public void close() {
        }
    }

    /**
     * Moves the phase's bytes along its transfers in visiting order, a batch at a time, keeping
     * count of where it stands: the batch's data is prepared before it and checked after it with
     * the clock stopped, and the stonewall is looked at between batches (and within them, by the
     * approach's loop).
     */
    private static final class Mover {
        private final Phase phase;
        private final TransferBuffer buffer;
        private final Stopwatch clock;
        private final Pacer pacer;
        private final Verifier verifier;
        private final boolean fills;
        /** Bytes moved so far along the rank's transfers. */
        long position;

        /** @param handlesData false: neither fill nor check the array (the bookkeeping's measure) */
        Mover(Phase phase, TransferBuffer buffer, Stopwatch clock, Pacer pacer, Verifier verifier,
              boolean handlesData) {
            this.phase = phase;
            this.buffer = buffer;
            this.clock = clock;
            this.pacer = pacer;
            this.verifier = verifier;
            this.fills = handlesData && buffer.form() != DataForm.NONE && phase.mode() == IoMode.WRITE;
        }

        /** Moves on from {@link #position} to {@code end}, or until the stonewall stops it. */
        void moveTo(TransferIo io, long end) throws IOException {
            int size = buffer.size();
            while (position < end && !pacer.reached()) {
                int k = (int) (position / size);
                int within = (int) (position % size);
                if (within == 0 && end - position >= size) {
                    int batchEnd = (int) Math.min(end / size, (long) k + buffer.slots());
                    prepare(k, batchEnd, false);
                    int moved = io.transferBatch(phase.offsets(), k, batchEnd, size, pacer);
                    check(k, moved);
                    position += moved;
                    if (moved < (batchEnd - k) * size) return;
                } else {
                    // What a stonewall left of transfer k: its slot holds the whole transfer's
                    // data (a read's too, so the bytes checked before this part are right again).
                    int pieceEnd = (int) Math.min(size, end - (long) k * size);
                    prepare(k, k + 1, true);
                    int moved = io.transfer(phase.offsets()[k], within, pieceEnd, pacer);
                    check(k, moved);
                    position = (long) k * size + moved;
                    if (moved < pieceEnd) return;
                }
            }
        }

        /** Fills slots 0.. with the data of transfers [first, end), for a write (or for a read when asked). */
        private void prepare(int first, int end, boolean forRead) {
            if (!fills && !(forRead && verifier.checks())) return;
            clock.pause();
            for (int k = first; k < end; k++) buffer.prepare(k - first, phase.firstElements()[k]);
            clock.resume();
        }

        private void check(int first, int moved) {
            if (!verifier.checks()) return;
            clock.pause();
            verifier.check(first, moved);
            clock.resume();
        }
    }
}
