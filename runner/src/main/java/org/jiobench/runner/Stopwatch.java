package org.jiobench.runner;

/**
 * A rank's monotonic clock for one phase, started at the barrier's exit, that can be stopped
 * while the runner does work that is not the approach's (filling or checking the array).
 */
final class Stopwatch {
    private final long started = System.nanoTime();
    private long pausedNanos;
    private long pausedAt = -1;

    void pause() {
        pausedAt = System.nanoTime();
    }

    void resume() {
        pausedNanos += System.nanoTime() - pausedAt;
        pausedAt = -1;
    }

    /** Running time since the start, pauses excluded. */
    long nanos() {
        long now = pausedAt >= 0 ? pausedAt : System.nanoTime();
        return now - started - pausedNanos;
    }

    double seconds() {
        return nanos() / 1e9;
    }
}
