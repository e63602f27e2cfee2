package org.jiobench.workloads;

import java.io.IOException;
import org.jiobench.bulk.TransferCallback;

/**
 * What the runner does around each transfer of a phase, with its clock stopped: fill the array
 * before a write, check it after a read, and end the phase at the deadline
 * ({@code beforeTransfer} returns false, and per-element loops ask {@link #reached}). The native
 * loop of c-posix calls the same callback.
 */
public interface TransferHooks extends TransferCallback, Stonewall {
    /** After transfer {@code k} moved bytes [0, moved) of the array (fewer than all when stopped part way). */
    void afterTransfer(int k, int moved) throws IOException;
}
