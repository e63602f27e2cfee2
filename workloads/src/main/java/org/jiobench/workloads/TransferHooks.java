package org.jiobench.workloads;

import java.io.IOException;

/**
 * What the runner does around each transfer of a phase, with its clock stopped: fill the array
 * before a write, check it after a read, and end the phase at the deadline.
 */
public interface TransferHooks {
    /** @return false to end the phase before transfer k (the deadline passed) */
    boolean beforeTransfer(int k) throws IOException;

    void afterTransfer(int k) throws IOException;
}
