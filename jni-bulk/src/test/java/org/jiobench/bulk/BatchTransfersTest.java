package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batches of small transfers in one native call, PosixFile's pwrite/pread loop and StdioFile's
 * fwrite/fread through a setvbuf'd buffer alike: transfer k's bytes follow transfer k - 1's in
 * the buffer, the positions may jump anywhere, and a deadline ends the batch at a transfer boundary.
 */
class BatchTransfersTest {
    @TempDir
    Path dir;

    /** Writes or reads a batch with one of the two files. */
    private interface Batch {
        int run(Path file, boolean write, ByteBuffer data, int length, long[] offsets, long nanosLeft)
                throws IOException;
    }

    private static Batch batchOf(String kind) {
        return switch (kind) {
            case "posix" -> (file, write, data, length, offsets, nanosLeft) -> {
                try (PosixFile posix = PosixFile.open(file, write)) {
                    return posix.transferBatch(write, data, length, offsets, nanosLeft);
                }
            };
            // A buffer of 5 bytes: 3-byte operations straddle its end.
            case "stdio" -> (file, write, data, length, offsets, nanosLeft) -> {
                try (StdioFile stdio = StdioFile.open(file, write, 5)) {
                    return stdio.transferBatch(data, length, offsets, nanosLeft);
                }
            };
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static ByteBuffer numbered(int bytes) {
        ByteBuffer data = ByteBuffer.allocateDirect(bytes);
        for (int i = 0; i < bytes; i++) data.put(i, (byte) (i * 7 + 1));
        return data;
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix", "stdio"})
    void eachTransferMovesItsOwnSliceToItsOwnPlaceAndBack(String kind) throws IOException {
        Batch batch = batchOf(kind);
        Path file = dir.resolve("f.bin");
        Files.write(file, new byte[30]);
        long[] offsets = {9, 0, 3, 27, 12, 15};  // jumps back and forth, and two that follow on
        ByteBuffer data = numbered(18);
        assertEquals(6, batch.run(file, true, data, 3, offsets, Long.MAX_VALUE));
        byte[] expected = new byte[30];
        for (int k = 0; k < offsets.length; k++) {
            for (int b = 0; b < 3; b++) expected[(int) offsets[k] + b] = data.get(3 * k + b);
        }
        assertArrayEquals(expected, Files.readAllBytes(file));

        ByteBuffer back = ByteBuffer.allocateDirect(18);
        assertEquals(6, batch.run(file, false, back, 3, offsets, Long.MAX_VALUE));
        assertEquals(data, back);
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix", "stdio"})
    void aDeadlineEndsTheBatchAtATransferBoundaryAfterSomeTransfers(String kind) throws IOException {
        Batch batch = batchOf(kind);
        Path file = dir.resolve("f.bin");
        int count = 1 << 16;
        long[] offsets = new long[count];
        for (int k = 0; k < count; k++) offsets[k] = k;
        int done = batch.run(file, true, numbered(count), 1, offsets, 0);
        assertTrue(done > 0 && done < count && done % 64 == 0, "done: " + done);
        assertEquals(done, Files.size(file), "the stdio buffer is written at close, the transfers before the deadline");
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix", "stdio"})
    void aBufferTooSmallForTheBatchIsRefusedBeforeAnyTransfer(String kind) throws IOException {
        Path file = dir.resolve("f.bin");
        assertThrows(IndexOutOfBoundsException.class,
                () -> batchOf(kind).run(file, true, numbered(8), 3, new long[] {0, 3, 6}, Long.MAX_VALUE));
        assertEquals(0, Files.size(file));
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix", "stdio"})
    void aReadPastTheEndIsAnEofException(String kind) throws IOException {
        Path file = dir.resolve("f.bin");
        Files.write(file, new byte[4]);
        assertThrows(EOFException.class,
                () -> batchOf(kind).run(file, false, numbered(6), 3, new long[] {0, 3}, Long.MAX_VALUE));
    }
}
