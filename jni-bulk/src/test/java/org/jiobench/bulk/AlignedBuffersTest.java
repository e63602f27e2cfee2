package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class AlignedBuffersTest {
    @Test
    void everySizeGetsExactlyItsBytesOnAPageBoundary() {
        for (int size : new int[] {0, 1, 20, 4095, 4096, 4097, 65536, 1 << 22, (1 << 22) + 3}) {
            ByteBuffer buffer = AlignedBuffers.pageAligned(size);
            assertEquals(size, buffer.capacity(), "size " + size);
            assertTrue(buffer.isDirect());
            assertEquals(ByteOrder.BIG_ENDIAN, buffer.order());
            if (size > 0) assertEquals(0, buffer.alignmentOffset(0, 4096), "size " + size);
        }
    }

    @Test
    void refusesImpossibleSizes() {
        assertThrows(IllegalArgumentException.class, () -> AlignedBuffers.pageAligned(-1));
        assertThrows(IllegalArgumentException.class, () -> AlignedBuffers.pageAligned(Integer.MAX_VALUE));
    }
}
