package org.jiobench.runner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The ranks this process runs among. The runner synchronises and reports only through this
 * interface, so the same phases run under the mpi4py launcher, alone, or under MPJ Express.
 */
interface World {
    int rank();

    int size();

    /** Each rank's host as a number, by rank: ranks of one number share a node (for -C, {@link Reorder}). */
    int[] hostOfRank();

    /**
     * Ranks whose arrays share this JVM's heap: every rank of the job under MPJ Express's
     * multicore device, where the ranks are its threads; one elsewhere.
     */
    default int ranksInThisJvm() {
        return 1;
    }

    /** Which part of the run this JVM runs. */
    Task task();

    /**
     * Whether something outside this JVM starts the forks and owns the run's files (removes those
     * the run created once every JVM of the run is done). Without it the JVM runs every approach
     * itself and removes what it created.
     */
    boolean launched();

    /**
     * Tells whoever owns the run's files, the moment they exist, what this rank just created: a
     * launcher that stops this JVM before it is ready (a signal, a start-up deadline) still knows
     * what to remove.
     */
    default void created(Map<Path, FileIdentity> files) throws IOException {
    }

    /**
     * Announces this rank's validated parameters, environment and the files it created, with what each is.
     *
     * @return false when another rank could not start, and this one must stop too
     */
    boolean ready(Map<String, Object> parameters, Map<String, Object> environment, Map<Path, FileIdentity> created)
            throws IOException;

    /**
     * Waits for all ranks before the phase of that label; the phase's clock starts when this returns.
     *
     * @throws RunStopped when the run ends here (a stop was asked for, or another rank failed)
     */
    void barrier(String phase) throws IOException;

    /**
     * At the deadline of a phase run with wear-out: hands in the bytes this rank moved until then.
     *
     * @return the most bytes any rank moved, which every rank then goes on to
     * @throws RunStopped when the run ends here
     */
    long wearOut(long bytes) throws IOException;

    /**
     * Hands in this rank's record of a phase and waits for all ranks to do the same.
     *
     * @param blockRead the rank whose block this rank reads next: the one count it is told back, so
     *                  that what a rank hears of a phase does not grow with the rank count
     * @return the bytes that rank moved (after a stonewalled write, what its block holds)
     * @throws RunStopped when the run ends here: the phase then counts as not completed
     */
    long endPhase(RankRecord record, int blockRead) throws IOException;

    /**
     * Whether {@link #anotherRepetition} can be asked: someone sees every rank's phases and
     * decides for all of them (-i auto).
     */
    default boolean decidesRepetitions() {
        return false;
    }

    /** How the ranks were started, for a message that says what this world cannot do. */
    String describe();

    /**
     * Under -i auto, after a measured repetition of the approaches this JVM still runs: which of
     * them run another. Every rank gets the same answer, decided from the phases of all ranks.
     *
     * @param fork       the fork this JVM runs (0 without forks)
     * @param approaches the ids of the approaches still running
     * @throws RunStopped when the run ends here
     */
    default List<String> anotherRepetition(int fork, List<String> approaches) throws IOException {
        throw new UnsupportedOperationException(describe() + " cannot decide repetitions");
    }

    /** A user mistake found before any phase ran: one line, exit code 2. */
    void reject(String message);

    /** A failure during the run, after which the other ranks cannot go on. */
    void fail(String message);

    /** The run is over on this rank; a non-null message says what went wrong. */
    void finish(int exitCode, String message) throws IOException;
}
