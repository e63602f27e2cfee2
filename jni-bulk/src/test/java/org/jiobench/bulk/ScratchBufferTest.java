package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ScratchBufferTest {

    @Test
    void aRecycledBufferIsKeptAndGrownUpToItsBound() {
        ScratchBuffer<byte[]> scratch = ScratchBuffer.onHeap(new BufferPolicy(64, true));
        byte[] small = scratch.forTransfer(10);
        assertEquals(10, small.length);
        assertSame(small, scratch.forTransfer(8));
        byte[] grown = scratch.forTransfer(1000);
        assertEquals(64, grown.length);
        assertSame(grown, scratch.forTransfer(10));
        scratch.release();
        assertNotSame(grown, scratch.forTransfer(10));
    }

    @Test
    void aPerCallBufferIsNewEveryTime() {
        ScratchBuffer<ByteBuffer> scratch = ScratchBuffer.direct(new BufferPolicy(64, false));
        ByteBuffer first = scratch.forTransfer(1000);
        assertTrue(first.isDirect());
        assertEquals(64, first.capacity());
        assertNotSame(first, scratch.forTransfer(1000));
    }

    @Test
    void theBoundHoldsAtLeastOneElementOfEveryType() {
        assertThrows(IllegalArgumentException.class, () -> new BufferPolicy(7, true));
        assertEquals(BufferPolicy.MIN_CHUNK_BYTES, new BufferPolicy(8, false).chunkBytes());
        assertThrows(NullPointerException.class, () -> ScratchBuffer.onHeap(null));
    }
}
