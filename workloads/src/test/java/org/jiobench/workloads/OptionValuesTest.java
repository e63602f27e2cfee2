package org.jiobench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which value of an approach option is in force, and which values an option accepts. */
class OptionValuesTest {
    private static final Approach BUFFERED = Approaches.byId("buffered-stream");
    private static final Approach STDIO = Approaches.byId("c-stdio");

    @Test
    void anApproachsOwnValueBeatsTheRunWideOneWhichBeatsTheDefault() {
        OptionValues values = new OptionValues(Map.of("c-stdio.buffer-size", 100L), Map.of("buffer-size", 1024L));
        assertEquals(100L, values.value(STDIO, CStdio.BUFFER_SIZE));
        assertEquals(1024L, values.value(BUFFERED, BufferedStream.BUFFER_SIZE));
        assertEquals(1024L, values.runWideValue(CStdio.BUFFER_SIZE), "what --buffer-size set, whatever c-stdio got");
        assertEquals(8192L, OptionValues.DEFAULTS.value(BUFFERED, BufferedStream.BUFFER_SIZE));
    }

    @Test
    void anApproachsOwnKnobHasNoRunWideValueButItsDefault() {
        OptionValues values = new OptionValues(Map.of(), Map.of("jitter", "30%"));
        assertEquals("none", values.value(Approaches.byId("calibrate"), Calibrate.JITTER));
    }

    @Test
    void aRateMayExceedAnArrayAndASizeMayNot() {
        assertEquals(4L << 30, Calibrate.RATE.parse("4GiB"));
        IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
                () -> CStdio.BUFFER_SIZE.parse("3GiB"));
        assertEquals("'3GiB' is too large", tooLarge.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> Calibrate.RATE.parse("0"));
        assertTrue(zero.getMessage().endsWith("must be larger than zero"), zero.getMessage());
    }
}
