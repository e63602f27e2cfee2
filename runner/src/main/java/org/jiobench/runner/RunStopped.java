package org.jiobench.runner;

/**
 * The run ends before all its phases: a signal asked for it, or another rank failed. Not an
 * error of this rank: its completed phases are already reported.
 */
final class RunStopped extends RuntimeException {
    RunStopped(String why) {
        super(why);
    }
}
