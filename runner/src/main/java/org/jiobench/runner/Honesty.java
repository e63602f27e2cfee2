package org.jiobench.runner;

/**
 * The remedies against numbers that flatter: each one the run file records, as DESIGN.md says.
 *
 * @param fsync         fsync after the write transfers, inside the timed interval (IOR's -e)
 * @param dropCache     drop the file's cached pages before each read phase, untimed
 * @param reorder       read another node's block (IOR's -C)
 * @param reorderOffset how many ranks over a reordered read looks (IOR's -Q); 0: one node's ranks
 * @param direct        open the file with O_DIRECT
 * @param verify        check every byte read, and read back every byte written, untimed
 */
record Honesty(boolean fsync, boolean dropCache, boolean reorder, int reorderOffset, boolean direct,
               boolean verify) {
}
