package org.jiobench.runner;

/**
 * How a JVM of the run ends, in the codes every side of a run gives (runner/python/jiobench/exitcode.py
 * holds the same, and run/endings.py decides the run's own from them): 0 done, 1 failed (an I/O error,
 * wrong data, a bug), 2 a user's mistake found before any phase ran, 128 + the signal that stopped it.
 */
enum ExitCode {
    DONE(0), FAILED(1), MISTAKE(2);

    /** What a signal adds its number to. */
    static final int SIGNALLED = 128;

    final int code;

    ExitCode(int code) {
        this.code = code;
    }

    /**
     * 128 + the signal that stopped the run (a stop passed on as SIGUSR1 is a SIGTERM's); a stop
     * whose signal is unknown is a failure.
     */
    static int stopped(String signal) {
        if (signal == null) return FAILED.code;
        return SIGNALLED + switch (signal) {
            case "SIGHUP" -> 1;
            case "SIGINT" -> 2;
            default -> 15;
        };
    }
}
