package org.jiobench.runner;

import java.nio.file.Path;
import java.util.Map;
import org.jiobench.workloads.TransferBuffer;
import org.jiobench.workloads.TransferOrder;

/**
 * Where a rank's transfers lie in the file, IOR's layout: segments of one block per rank, each
 * block moved in transfers, visited in {@code order}.
 *
 * @param filePerProcess one file per rank ({@code file.00000000}, ...) instead of one shared file
 */
record Geometry(Path file, boolean filePerProcess, long blockSize, long transferSize, int segments,
                TransferOrder order) {
    /** The rank's transfers over all its segments. */
    long transfers() {
        return segments * (blockSize / transferSize);
    }

    /** Transfers the rank's array holds at once: a batch of small ones, prepared and checked together. */
    int batchSlots() {
        return TransferBuffer.batchSlots(transferSize, (int) transfers());
    }
}
