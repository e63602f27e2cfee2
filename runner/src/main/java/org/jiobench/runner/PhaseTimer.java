package org.jiobench.runner;

import java.io.IOException;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.IoMode;
import org.jiobench.workloads.Stonewall;
import org.jiobench.workloads.TransferBuffer;
import org.jiobench.workloads.TransferIo;

/**
 * Runs one phase after the barrier and times it as DESIGN.md says: open, transfer (with fsync
 * when asked), close, each on this rank's clock from the barrier's exit. Filling the array before
 * a write and checking it after a read happen with the clock stopped. A deadline ends the phase
 * at the next transfer, or within one for the per-element approaches; with wear-out every rank
 * then goes on to the most any rank moved by then.
 */
final class PhaseTimer {
    private static final int BOOKKEEPING_PASSES = 3;
    /** How long a per-element loop runs between two checks at most, once it knows its pace. */
    private static final long PIECE_NANOS = 10_000_000;
    /** Elements a phase's first piece holds: 64 round trips of a FUSE file system take 30 ms. */
    private static final int FIRST_PIECE = 64;
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
        int arrayPageOffset = buffer.placeForKernelCopy();
        Stopwatch clock = new Stopwatch();
        Mover mover = new Mover(phase, buffer, clock, true);
        double opened;
        double transferred;
        Long stonewallBytes = null;
        Double stonewallSeconds = null;
        boolean stonewalled;
        boolean ownBatchLoop;
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
            ownBatchLoop = runsItsOwnBatches(io);
        }
        double elapsed = clock.seconds();
        return new RankRecord(phase.approach().id(), phase.mode().id(), phase.fork(), phase.rep(), phase.warmup(),
                world.rank(), mover.position, (int) (mover.position / buffer.size()), opened, transferred - opened,
                elapsed - transferred, elapsed, bookkeepingSeconds(phase, buffer, mover.position, ownBatchLoop),
                stonewalled, stonewallBytes, stonewallSeconds, mover.verified(), mover.error,
                arrayPageOffset < 0 ? null : arrayPageOffset,
                arrayPageOffset < 0 ? null : !TransferBuffer.clearOfSlowCopy(arrayPageOffset));
    }

    /**
     * What the runner's own loop costs inside the timed interval of a phase that moved {@code bytes}:
     * the same loop over transfers that move nothing, as calibrate measures the pipeline, the
     * fastest of a few passes. At one-byte transfers it is a share of the figure worth stating.
     */
    private double bookkeepingSeconds(Phase phase, TransferBuffer buffer, long bytes, boolean ownBatchLoop)
            throws IOException {
        long fastest = Long.MAX_VALUE;
        for (int pass = 0; pass < BOOKKEEPING_PASSES; pass++) {
            Stopwatch clock = new Stopwatch();
            new Mover(phase, buffer, clock, false).moveTo(new EmptyIo(ownBatchLoop), bytes);
            fastest = Math.min(fastest, clock.nanos());
        }
        return fastest / 1e9;
    }

    /** Whether an approach runs a batch of transfers its own way (a native loop) rather than through the runner's. */
    private static boolean runsItsOwnBatches(TransferIo io) {
        try {
            return io.getClass().getMethod("transferBatch", long[].class, int.class, int.class, int.class,
                    Stonewall.class).getDeclaringClass() != TransferIo.class;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
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
     * the clock stopped, and the deadline is looked at between batches (and within them, by the
     * approach's loop).
     */
    private final class Mover implements Stonewall {
        private final Phase phase;
        private final TransferBuffer buffer;
        private final Stopwatch clock;
        private final boolean fills;
        private final boolean checks;
        boolean deadlineActive = true;
        /**
         * What per-element loops do between two checks, fitted to how long the last piece took:
         * a phase starts with few, which quick elements double at each check.
         */
        private int elementsPerCheck = FIRST_PIECE;
        private long lastCheck = -1;
        /** Bytes moved so far along the rank's transfers. */
        long position;
        String error;

        /** @param handlesData false: neither fill nor check the array (the bookkeeping's measure) */
        Mover(Phase phase, TransferBuffer buffer, Stopwatch clock, boolean handlesData) {
            this.phase = phase;
            this.buffer = buffer;
            this.clock = clock;
            boolean hasData = handlesData && buffer.form() != DataForm.NONE;
            this.fills = hasData && phase.mode() == IoMode.WRITE;
            this.checks = hasData && verify && phase.mode() == IoMode.READ;
        }

        /** Moves on from {@link #position} to {@code end}, or until the stonewall stops it. */
        void moveTo(TransferIo io, long end) throws IOException {
            int size = buffer.size();
            while (position < end && !reached()) {
                int k = (int) (position / size);
                int within = (int) (position % size);
                if (within == 0 && end - position >= size) {
                    int batchEnd = (int) Math.min(end / size, (long) k + buffer.slots());
                    prepare(k, batchEnd);
                    int moved = io.transferBatch(phase.offsets(), k, batchEnd, size, this);
                    check(k, moved);
                    position += moved;
                    if (moved < (batchEnd - k) * size) return;
                } else {
                    // What a stonewall left of transfer k: its slot holds the whole transfer's
                    // data (a read's too, so the bytes checked before this part are right again).
                    int pieceEnd = (int) Math.min(size, end - (long) k * size);
                    prepare(k, k + 1, true);
                    int moved = io.transfer(phase.offsets()[k], within, pieceEnd, this);
                    check(k, moved);
                    position = (long) k * size + moved;
                    if (moved < pieceEnd) return;
                }
            }
        }

        private void prepare(int first, int end) {
            prepare(first, end, false);
        }

        /** Fills slots 0.. with the data of transfers [first, end), for a write (or for a read when asked). */
        private void prepare(int first, int end, boolean forRead) {
            if (!fills && !(forRead && checks)) return;
            clock.pause();
            for (int k = first; k < end; k++) buffer.prepare(k - first, phase.firstElements()[k]);
            clock.resume();
        }

        /** Checks the {@code moved} bytes that a read delivered into slots 0.. for transfers from {@code first}. */
        private void check(int first, int moved) {
            if (!checks || error != null) return;
            clock.pause();
            int size = buffer.size();
            for (int slot = 0; slot * size < moved && error == null; slot++) {
                int k = first + slot;
                int wrong = buffer.firstWrongByte(slot, phase.firstElements()[k], Math.min(size, moved - slot * size),
                        phase.verified(), k);
                if (wrong >= 0) error = Verification.describe(phase.file(), phase.offsets()[k] + wrong);
            }
            clock.resume();
        }

        @Override
        public boolean reached() {
            long now = clock.nanos();
            fitElementsPerCheck(now);
            return deadlineActive && now >= deadlineNanos || StopRequest.requested();
        }

        @Override
        public int elementsPerCheck() {
            return elementsPerCheck;
        }

        /**
         * Checks come between pieces of a per-element loop: a piece slower than {@link #PIECE_NANOS}
         * (4096 elements over FUSE take over a second) makes the next ones shorter in proportion,
         * and quick ones let them grow back to {@link Stonewall#CHECK_INTERVAL}.
         */
        private void fitElementsPerCheck(long now) {
            long took = now - lastCheck;
            if (lastCheck >= 0 && took > PIECE_NANOS) {
                elementsPerCheck = (int) Math.max(1, elementsPerCheck * PIECE_NANOS / took);
            } else if (lastCheck >= 0 && took < PIECE_NANOS / 4 && elementsPerCheck < Stonewall.CHECK_INTERVAL) {
                elementsPerCheck = Math.min(Stonewall.CHECK_INTERVAL, 2 * elementsPerCheck);
            }
            lastCheck = now;
        }

        @Override
        public long nanosLeft() {
            if (StopRequest.requested()) return 0;
            return deadlineActive && deadlineNanos != Long.MAX_VALUE ? Math.max(0, deadlineNanos - clock.nanos())
                    : Long.MAX_VALUE;
        }

        /** Nothing moved is nothing verified. */
        Boolean verified() {
            return checks && position > 0 ? error == null : null;
        }
    }
}
