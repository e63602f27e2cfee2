package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which World a runner runs in, from how it was started. */
class MainTest {
    @Test
    void mpjExpressStartersAreKnownByTheirLeadingArguments() {
        // As MPJ's multicore starter passes them to each rank's thread, and as niodev's wrapper does.
        assertTrue(Main.startedByMpj(new String[] {"1", "4", "smpdev", "--task=first", "-a", "all"}));
        assertTrue(Main.startedByMpj(new String[] {"0", "#temp line;#Number of Processes;2", "niodev", "-b", "1MiB"}));
        assertFalse(Main.startedByMpj(new String[] {"-a", "all", "-b", "1MiB"}));
        assertFalse(Main.startedByMpj(new String[] {"-i", "4", "niodev"}));
        assertFalse(Main.startedByMpj(new String[] {"1", "4"}));
    }

}
