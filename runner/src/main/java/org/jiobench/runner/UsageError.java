package org.jiobench.runner;

/** A user mistake: reported as one line with exit code 2, never as a stack trace. */
final class UsageError extends Exception {
    UsageError(String message) {
        super(message);
    }
}
