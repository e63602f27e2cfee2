package org.jiobench.bulk;

import java.io.IOException;

/**
 * Called by {@link PosixFile#transfer} around each transfer of a phase, on the thread that called it.
 * An exception thrown here ends the phase and comes out of {@code transfer}.
 */
public interface TransferCallback {

    /** Before transfer {@code k}; returning false ends the phase, and {@code transfer} returns {@code k}. */
    boolean beforeTransfer(int k) throws IOException;

    /** After transfer {@code k} has moved all its bytes. */
    void afterTransfer(int k) throws IOException;
}
