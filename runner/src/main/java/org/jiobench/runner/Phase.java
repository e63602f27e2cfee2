package org.jiobench.runner;

import java.nio.file.Path;
import org.jiobench.workloads.VerifiedTransfers;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.IoMode;

/**
 * One phase of one rank: an approach writing or reading its transfers once.
 *
 * @param file          the file as the run names it
 * @param opened        the name the approach opens it by: its held descriptor's (Targets)
 * @param rep           repetition within the fork, warm-up ones first
 * @param offsets       file offset of each transfer, in visiting order
 * @param firstElements global index of each transfer's first element, to fill or check the array
 * @param bytes         bytes to move along the transfers in visiting order: all of them, or for a
 *                      read after a stonewalled write what that write left (possibly part of a transfer)
 * @param verified      the transfers that this approach's checks of this kind found right before
 *                      (a write's in the file after the phase, a read's in its buffer), which
 *                      are not compared again when they come back unchanged
 */
record Phase(Approach approach, IoMode mode, int fork, int rep, boolean warmup, Path file, Path opened,
             long[] offsets, long[] firstElements, long bytes, VerifiedTransfers verified) {
    String label() {
        return approach.id() + " " + mode.id() + (fork > 0 ? " fork " + fork : "") + " rep " + rep
                + (warmup ? " (warm-up)" : "");
    }
}
