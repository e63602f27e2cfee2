package org.jiobench.workloads;

/**
 * The phase's deadline as a transfer sees it. Per-element loops ask it every
 * {@link #elementsPerCheck} elements, so a transfer of an approach that moves kB/s ends soon after
 * the deadline instead of at its own end; a whole-array call cannot be interrupted and never asks.
 */
@FunctionalInterface
public interface Stonewall {
    /** Elements between two checks at most: a clock read per 4096 elements costs nothing measurable. */
    int CHECK_INTERVAL = 4096;

    /** No deadline. */
    Stonewall NONE = () -> false;

    /** True once the phase should end (its deadline has passed, or the run was asked to stop). */
    boolean reached();

    /**
     * Elements a per-element loop does before it asks again: {@link #CHECK_INTERVAL}, or fewer
     * where elements are so slow (a file-system round trip each) that 4096 of them would overrun
     * the deadline by more than a few milliseconds.
     */
    default int elementsPerCheck() {
        return CHECK_INTERVAL;
    }

    /** Nanoseconds left before the phase should end, for a native loop that watches the clock itself. */
    default long nanosLeft() {
        return reached() ? 0 : Long.MAX_VALUE;
    }
}
