package org.jiobench.workloads;

import java.util.Locale;

/** The order in which a rank visits its transfers. */
public enum TransferOrder {
    SEQUENTIAL,
    /** A permutation drawn from the seed alone, so every rank (and a later reader) visits the same positions. */
    SHUFFLED;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
