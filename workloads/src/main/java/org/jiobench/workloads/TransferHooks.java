package org.jiobench.workloads;

import org.jiobench.bulk.TransferCallback;

/**
 * What the runner does around each transfer of a phase, with its clock stopped: fill the array
 * before a write, check it after a read, and end the phase at the deadline
 * ({@code beforeTransfer} returns false). The same callback the native loop of c-posix calls.
 */
public interface TransferHooks extends TransferCallback {
}
