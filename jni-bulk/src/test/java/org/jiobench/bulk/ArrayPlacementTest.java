package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class ArrayPlacementTest {
    private static final HotSpotDiagnosticMXBean VM = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);

    @Test
    void aHumongousArrayStartsItsHeaderPastAPageBoundary() {
        assumeTrue(Boolean.parseBoolean(VM.getVMOption("UseG1GC").getValue()), "G1 alone makes humongous arrays");
        assumeTrue(!ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-Xcheck:jni"),
                "-Xcheck:jni hands C a guarded copy of the array, not the array");
        int region = Integer.parseInt(VM.getVMOption("G1HeapRegionSize").getValue());
        // Over half a region: G1 gives it regions of its own, from a region's first byte, and regions lie on pages.
        for (Object array : new Object[] {new int[region / Integer.BYTES], new long[region / Long.BYTES],
                new byte[region]}) {
            assertEquals(headerOf(array), ArrayPlacement.pageOffset(array), array.getClass().getSimpleName());
        }
    }

    /** Where the JVM says an array's first element lies past the array's start (its header), apart from the library. */
    private static int headerOf(Object array) {
        return array instanceof int[] ? sun.misc.Unsafe.ARRAY_INT_BASE_OFFSET
                : array instanceof long[] ? sun.misc.Unsafe.ARRAY_LONG_BASE_OFFSET : sun.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET;
    }

    @Test
    void theOffsetLiesWithinAPage() {
        for (int length : new int[] {0, 1, 1000, 100_000}) {
            int offset = ArrayPlacement.pageOffset(new double[length]);
            assertTrue(offset >= 0 && offset < 4096, "length " + length + ": " + offset);
        }
    }

    @Test
    void refusesWhatIsNoPrimitiveArray() {
        assertThrows(NullPointerException.class, () -> ArrayPlacement.pageOffset(null));
        assertThrows(IllegalArgumentException.class, () -> ArrayPlacement.pageOffset("text"));
        assertThrows(IllegalArgumentException.class, () -> ArrayPlacement.pageOffset(new Object[1]));
    }

    @Test
    void theCopyCrawlsOnlyWhereTheDestinationLiesUnderHalfACacheLinePastTheSource() {
        // bench/copy-alignment.sh: leads of 8 to 24 bytes crawl; 0, 32 and more do not.
        for (long lead : new long[] {1, 8, 16, 24, 31}) {
            assertTrue(ArrayPlacement.kernelCopyCrawls(8192 + lead, 4096), "lead " + lead);
            assertEquals(64 - lead, ArrayPlacement.kernelCopyShift(lead, 0), "lead " + lead);
        }
        for (long lead : new long[] {0, 32, 48, 64, 2048, 4080, 4095}) {
            assertFalse(ArrayPlacement.kernelCopyCrawls(lead, 0), "lead " + lead);
            assertEquals(0, ArrayPlacement.kernelCopyShift(lead, 0), "lead " + lead);
        }
        assertTrue(ArrayPlacement.kernelCopyCrawls(16, 4096 * 7), "the lead is taken modulo a page");
        assertTrue(ArrayPlacement.kernelCopyCrawls(0, -16), "a source past the destination wraps round");
    }
}
