package org.jiobench.runner;

import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;

/**
 * A request to stop the run, from a signal (TERM, INT, HUP) sent to this JVM by its launcher, by
 * Slurm, or by a terminal. Instead of the JVM's default of exiting at once, the phase under way
 * ends at its next check (between transfers, or every 4096 elements), and no phase follows, so
 * the launcher can keep every phase that was completed. It belongs to the process, like the
 * signals it records.
 */
final class StopRequest {
    private static final AtomicReference<String> SIGNAL = new AtomicReference<>();

    private StopRequest() {
    }

    /** Takes TERM, INT and HUP away from the JVM's default handler. */
    static void install() {
        for (String name : new String[] {"TERM", "INT", "HUP"}) {
            Signal.handle(new Signal(name), signal -> SIGNAL.compareAndSet(null, "SIG" + signal.getName()));
        }
    }

    static boolean requested() {
        return SIGNAL.get() != null;
    }

    /** The signal that asked for the stop ("SIGTERM", ...), or null. */
    static String signal() {
        return SIGNAL.get();
    }
}
