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

    /**
     * Moves whole transfers {@code first} to {@code end - 1}, each of {@code size} bytes at its
     * offset, asking the hooks before and after each: the runner's loop, which an approach may run
     * natively instead.
     *
     * @return the index after the last transfer moved whole: {@code end}, or less when the hooks
     *         ended the phase or a transfer stopped part way (which the hooks were told)
     */
    default int transferAll(long[] fileOffsets, int first, int end, int size, TransferHooks hooks) throws IOException {
        for (int k = first; k < end; k++) {
            if (!hooks.beforeTransfer(k)) return k;
            int moved = transfer(fileOffsets[k], 0, size, hooks);
            hooks.afterTransfer(k, moved);
            if (moved < size) return k;
        }
        return end;
    }

    /** Forces written data to storage (IOR's -e), inside the timed interval. */
    void sync() throws IOException;
}
