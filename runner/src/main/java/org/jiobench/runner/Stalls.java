package org.jiobench.runner;

import java.util.concurrent.locks.LockSupport;

/**
 * The spells in which this whole JVM stood still: stopped (SIGSTOP, a suspended job), starved of
 * processors, swapped out, or held at a collector's pause. A rank's own times cannot tell a stall
 * inside its only transfer from one slow transfer; this can, and the reduction's deadline overrun
 * (model/reduce.py, overran_deadline_s) takes stalls out of the transfer time it allows for.
 *
 * <p>A daemon thread looks at the clock every {@link #LOOK_NANOS}; a look that comes {@link #STALL_NANOS}
 * or more late saw a stall, from when the look was due to when it came (up to a look short of it).
 * A file system that hangs holds only the thread that called it, so it is no stall here. One watch
 * serves every rank of the JVM (MPJ Express runs several in one).
 */
final class Stalls {
    /** Often enough to see a stall well under the reduction's one second, rarely enough to cost nothing. */
    static final long LOOK_NANOS = 50_000_000L;
    /** How late a look must come to have seen a stall: the scheduler's usual delays are far shorter. */
    static final long STALL_NANOS = 100_000_000L;
    /** The stalls kept, the latest: a phase holds far fewer, and one of more loses its earliest. */
    private static final int KEPT = 256;

    private final long[] starts = new long[KEPT];
    private final long[] ends = new long[KEPT];
    private int noted;
    /** When the watch last looked at the clock ({@link System#nanoTime()}). */
    private volatile long lookedAt = System.nanoTime();
    private final Thread watch = new Thread(this::watch, "jiobench-stalls");

    private Stalls() {
        watch.setDaemon(true);
        watch.start();
    }

    /** This JVM's watch, started on first use. */
    static Stalls ofThisJvm() {
        return Started.WATCH;
    }

    private static final class Started {
        static final Stalls WATCH = new Stalls();
    }

    /**
     * Nanoseconds of stalls within [from, to) on {@link System#nanoTime()}'s clock, once the watch has
     * looked at the clock past {@code to}: a stall that ended before then is noted by then. The
     * watch is woken to look at once; a watch starved for longer than a stall counts none it has
     * yet to note.
     */
    long within(long from, long to) {
        long giveUp = System.nanoTime() + STALL_NANOS;
        while (lookedAt - to < 0 && System.nanoTime() - giveUp < 0) {
            LockSupport.unpark(watch);
            LockSupport.parkNanos(LOOK_NANOS / 100);
        }
        synchronized (this) {
            long sum = 0;
            for (int i = 0; i < Math.min(noted, KEPT); i++) {
                sum += Math.max(0, Math.min(ends[i], to) - Math.max(starts[i], from));
            }
            return sum;
        }
    }

    private void watch() {
        long looked = lookedAt;
        while (true) {
            LockSupport.parkNanos(LOOK_NANOS);
            long now = System.nanoTime();
            // A look woken early (within's) is due no later than it came: never a stall.
            if (now - looked - LOOK_NANOS >= STALL_NANOS) note(looked + LOOK_NANOS, now);
            looked = now;
            lookedAt = now;
        }
    }

    private synchronized void note(long start, long end) {
        starts[noted % KEPT] = start;
        ends[noted % KEPT] = end;
        noted++;
    }
}
