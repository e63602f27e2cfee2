package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class SizesTest {
    @Test
    void readsTheFormsUsersWrite() {
        assertEquals(4096, Sizes.parse("4096"));
        assertEquals(4096, Sizes.parse("4k"));
        assertEquals(64 * 1024, Sizes.parse("64KiB"));
        assertEquals(1 << 20, Sizes.parse("1MiB"));
        assertEquals(1 << 20, Sizes.parse("1m"));
        assertEquals(2L << 30, Sizes.parse("2GiB"));
        assertEquals(7, Sizes.parse("7B"));
    }

    @Test
    void refusesNonsense() {
        for (String bad : new String[] {"0", "-1", "-4MiB", "1.5MiB", "MiB", "", "4 apples", "1iB", "99999999999999999999"}) {
            assertThrows(TypeConversionException.class, () -> Sizes.parse(bad), bad);
        }
        assertThrows(TypeConversionException.class, () -> Sizes.parse("9000000000000T"));
    }

    @Test
    void formatsExactBinaryUnits() {
        assertEquals("1MiB", Sizes.format(1 << 20));
        assertEquals("6B", Sizes.format(6));
        assertEquals("1536KiB", Sizes.format(1536 * 1024));
    }
}
