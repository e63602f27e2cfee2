package org.jiobench.runner;

import java.nio.file.Path;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.IoMode;

/**
 * One phase of one rank: an approach writing or reading its transfers once.
 *
 * @param offsets       file offset of each transfer, in visiting order
 * @param firstElements global index of each transfer's first element, to fill or check the array
 */
record Phase(Approach approach, IoMode mode, int rep, Path file, long[] offsets, long[] firstElements) {
    String label() {
        return approach.id() + " " + mode.id() + " rep " + rep;
    }
}
