package org.jiobench.runner;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jiobench.workloads.Stonewall;

/**
 * The stonewall of one phase: reached at the phase's deadline, or at once when the run is asked
 * to stop. With wear-out the deadline is lifted once every rank knows how far to go on, and a
 * stop request still ends the phase. Per-element loops are told how many elements to move
 * between two looks, fitted to how long their pieces take.
 */
final class Pacer implements Stonewall {
    /** How long a per-element loop runs between two checks at most, once it knows its pace. */
    static final long PIECE_NANOS = 10_000_000;
    /** Elements a phase's first piece holds: 64 round trips of a FUSE file system take 30 ms. */
    static final int FIRST_PIECE = 64;
    private final Deadline deadline;
    private final long deadlineNanos;
    private final LongSupplier phaseNanos;
    private final BooleanSupplier stopRequested;
    private boolean deadlineLifted;
    /**
     * What per-element loops do between two checks, fitted to how long the last piece took:
     * a phase starts with few, which quick elements double at each check.
     */
    private int elementsPerCheck = FIRST_PIECE;
    private long lastCheck = -1;

    /**
     * @param phaseNanos    the phase's clock, from the barrier's exit
     * @param stopRequested whether the run was asked to stop (a signal)
     */
    Pacer(Deadline deadline, LongSupplier phaseNanos, BooleanSupplier stopRequested) {
        this.deadline = deadline;
        this.deadlineNanos = deadline.nanos();
        this.phaseNanos = phaseNanos;
        this.stopRequested = stopRequested;
    }

    /** Whether the ranks go on after the deadline to the most any of them moved by then. */
    boolean wearsOut() {
        return deadline.wearOut();
    }

    /** Past the deadline, once every rank knows how far to go on: from now only a stop request ends the phase. */
    void liftDeadline() {
        deadlineLifted = true;
    }

    @Override
    public boolean reached() {
        long now = phaseNanos.getAsLong();
        fitElementsPerCheck(now);
        return !deadlineLifted && now >= deadlineNanos || stopRequested.getAsBoolean();
    }

    @Override
    public int elementsPerCheck() {
        return elementsPerCheck;
    }

    @Override
    public long nanosLeft() {
        if (stopRequested.getAsBoolean()) return 0;
        return !deadlineLifted && deadlineNanos != Long.MAX_VALUE
                ? Math.max(0, deadlineNanos - phaseNanos.getAsLong()) : Long.MAX_VALUE;
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
}
