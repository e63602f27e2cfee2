package org.jiobench.workloads;

import java.io.Closeable;
import java.io.IOException;

/** One approach's open file during one phase. */
public interface TransferIo extends Closeable {
    /** Moves the rank's array (transferSize bytes) to or from {@code fileOffset}. */
    void transfer(long fileOffset) throws IOException;

    /**
     * Moves every transfer in order, asking the hooks before and after each.
     *
     * @return how many transfers were done (fewer than offsets.length when the deadline ended the phase)
     */
    default int transferAll(long[] fileOffsets, TransferHooks hooks) throws IOException {
        for (int k = 0; k < fileOffsets.length; k++) {
            if (!hooks.beforeTransfer(k)) return k;
            transfer(fileOffsets[k]);
            hooks.afterTransfer(k);
        }
        return fileOffsets.length;
    }

    /** Forces written data to storage (IOR's -e), inside the timed interval. */
    void sync() throws IOException;
}
