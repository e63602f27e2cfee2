package org.jiobench.workloads;

import java.util.Locale;

/** The order in which a rank visits its transfers. */
public enum TransferOrder {
    SEQUENTIAL,
    /** A permutation drawn from the seed alone, so every rank (and a later reader) visits the same positions. */
    SHUFFLED,
    /**
     * Positions drawn from the seed with replacement, as many as the transfers, as random-access
     * benchmarks do: some positions come twice, some never. Every write of a position holds the
     * same data, so the file's final content is the pattern wherever a transfer went.
     */
    RANDOM;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
