package org.jiobench.workloads;

import java.io.Closeable;
import java.io.IOException;

/** One approach's open file during one phase. */
public interface TransferIo extends Closeable {
    /**
     * Moves bytes [from, to) of the rank's array to or from {@code fileOffset + from}; both are
     * multiples of the element size. A per-element approach asks the stonewall between pieces of
     * elements and stops when it is reached; a whole-array call moves everything.
     *
     * @return the end of the bytes moved: {@code to}, or less when the stonewall stopped the transfer
     */
    int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException;

    /** Transfers of a batch between two looks at the stonewall: a look costs a clock read. */
    int TRANSFERS_PER_CHECK = 64;

    /**
     * Moves whole transfers {@code first} to {@code end - 1}, each of {@code size} bytes at its
     * offset, transfer k's bytes being {@code [(k - first) * size, (k - first + 1) * size)} of the
     * rank's array: a batch the runner prepared at once with its clock stopped, so that nothing
     * but the transfers runs while it runs. An approach may run the batch natively instead.
     *
     * @return the bytes of the batch moved: all of them, or fewer when the stonewall stopped it
     */
    default int transferBatch(long[] fileOffsets, int first, int end, int size, Stonewall stonewall)
            throws IOException {
        for (int k = first; k < end; k++) {
            int from = (k - first) * size;
            if (k > first && (k - first) % TRANSFERS_PER_CHECK == 0 && stonewall.reached()) return from;
            int moved = transfer(fileOffsets[k] - from, from, from + size, stonewall);
            if (moved < from + size) return moved;
        }
        return (end - first) * size;
    }

    /** Forces written data to storage (IOR's -e), inside the timed interval. */
    void sync() throws IOException;
}
