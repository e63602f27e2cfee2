package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class AmountsTest {
    @Test
    void sharesArePercentagesOrFractions() {
        assertEquals(0.05, new Amounts.Share().convert("5%"), 1e-12);
        assertEquals(0.05, new Amounts.Share().convert("0.05"), 1e-12);
        assertEquals(0.125, new Amounts.Share().convert("12.5%"), 1e-12);
        assertThrows(TypeConversionException.class, () -> new Amounts.Share().convert("five"));
        assertThrows(TypeConversionException.class, () -> new Amounts.Share().convert("%"));
    }

    @Test
    void durationsTakeSecondsMinutesOrHours() {
        assertEquals(120, new Amounts.Seconds().convert("120s"), 1e-12);
        assertEquals(120, new Amounts.Seconds().convert("120"), 1e-12);
        assertEquals(600, new Amounts.Seconds().convert("10m"), 1e-12);
        assertEquals(5400, new Amounts.Seconds().convert("1.5h"), 1e-12);
        assertThrows(TypeConversionException.class, () -> new Amounts.Seconds().convert("soon"));
        assertThrows(TypeConversionException.class, () -> new Amounts.Seconds().convert(""));
        assertThrows(TypeConversionException.class, () -> new Amounts.Seconds().convert("Infinity"));
    }
}
