package org.jiobench.runner;

import java.io.IOException;
import java.util.Map;

/**
 * The ranks this process runs among. The runner synchronises and reports only through this
 * interface, so the same phases run under the mpi4py launcher, alone, or (later) under MPJ Express.
 */
interface World {
    int rank();

    int size();

    /** How many ranks over a reordered read looks (IOR's -C): one node's worth. */
    int reorderShift();

    /**
     * Announces this rank's validated parameters and environment.
     *
     * @return false when another rank could not start, and this one must stop too
     */
    boolean ready(Map<String, Object> parameters, Map<String, Object> environment) throws IOException;

    /** Waits for all ranks; a phase's clock starts when this returns. */
    void barrier() throws IOException;

    /**
     * Hands in this rank's record of a phase and waits for all ranks to do the same.
     *
     * @return the fewest transfers any rank completed (a stonewalled write leaves only those readable)
     */
    int endPhase(RankRecord record) throws IOException;

    /** A user mistake found before any phase ran: one line, exit code 2. */
    void reject(String message);

    /** A failure during the run, after which the other ranks cannot go on. */
    void fail(String message);

    /** The run is over on this rank; a non-null message says what went wrong. */
    void finish(int exitCode, String message) throws IOException;
}
