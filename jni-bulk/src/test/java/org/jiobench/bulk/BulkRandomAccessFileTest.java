package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class BulkRandomAccessFileTest extends BulkDataContractTest {

    private File file() {
        return dir.resolve("data.bin").toFile();
    }

    @Override
    BulkDataOutput openOutput(BufferPolicy policy) throws IOException {
        return closedAfterTest(new BulkRandomAccessFile(file(), "rw", policy));
    }

    @Override
    byte[] closeAndGetWritten(BulkDataOutput out) throws IOException {
        ((BulkRandomAccessFile) out).close();
        return Files.readAllBytes(file().toPath());
    }

    @Override
    BulkDataInput openInput(byte[] content, BufferPolicy policy) throws IOException {
        Files.write(file().toPath(), content);
        return closedAfterTest(new BulkRandomAccessFile(file(), "r", policy));
    }

    @Test
    void bulkCallsStartAtTheFilePointerAndMoveItPastTheirElements() throws IOException {
        int[] values = {1, -2, 3, Integer.MIN_VALUE, Integer.MAX_VALUE};
        try (BulkRandomAccessFile raf = new BulkRandomAccessFile(file(), "rw")) {
            raf.seek(13);
            raf.writeArray(values, 1, 3);
            assertEquals(13 + 12, raf.getFilePointer());
            assertEquals(13 + 12, raf.length());
            raf.writeInt(99);

            raf.seek(13);
            int[] read = new int[5];
            raf.readArray(read, 2, 3);
            assertEquals(13 + 12, raf.getFilePointer());
            assertArrayEquals(new int[] {0, 0, -2, 3, Integer.MIN_VALUE}, read);
            assertEquals(99, raf.readInt());
        }
        byte[] bytes = Files.readAllBytes(file().toPath());
        assertArrayEquals(new byte[13], java.util.Arrays.copyOf(bytes, 13), "the gap before the first write");
    }

    /** A little-endian file read into an array and written back from it is the same file, byte for byte. */
    @ParameterizedTest
    @MethodSource("typesAndPolicies")
    void littleEndianFilesRoundTripByteForByte(PrimitiveType type, BufferPolicy policy) throws IOException {
        byte[] content = new byte[1000 * type.bytes];
        new Random(3).nextBytes(content);
        if (type == PrimitiveType.BOOLEAN) {
            for (int i = 0; i < content.length; i++) content[i] &= 1;
        }
        Path in = dir.resolve("in.bin");
        Path out = dir.resolve("out.bin");
        Files.write(in, content);
        Object array = type.newArray(1000);
        try (BulkRandomAccessFile raf = new BulkRandomAccessFile(in.toFile(), "r", policy, ByteOrder.LITTLE_ENDIAN)) {
            type.readArray(raf, array);
        }
        try (BulkRandomAccessFile raf = new BulkRandomAccessFile(out.toFile(), "rw", policy, ByteOrder.LITTLE_ENDIAN)) {
            type.writeArray(raf, array);
        }
        assertArrayEquals(content, Files.readAllBytes(out));
    }

    @ParameterizedTest
    @MethodSource("policies")
    void littleEndianIsLeastSignificantByteFirst(BufferPolicy policy) throws IOException {
        long[] values = {0x0102030405060708L, -2};
        try (BulkRandomAccessFile raf = new BulkRandomAccessFile(file(), "rw", policy, ByteOrder.LITTLE_ENDIAN)) {
            raf.writeArray(values);
            raf.writeInt(7);
        }
        ByteBuffer expected = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN).putLong(values[0])
                .putLong(values[1]).order(ByteOrder.BIG_ENDIAN).putInt(7);
        assertArrayEquals(expected.array(), Files.readAllBytes(file().toPath()),
                "the arrays little-endian, the inherited writeInt as DataOutput defines it");
    }

    @Test
    void endOfFileLeavesTheFilePointerAtTheEnd() throws IOException {
        Files.write(file().toPath(), new byte[] {0, 0, 0, 1, 0, 0, 0, 2, 0, 0});
        try (BulkRandomAccessFile raf = new BulkRandomAccessFile(file(), "r")) {
            raf.seek(4);
            int[] read = {-1, -1, -1};
            assertThrows(EOFException.class, () -> raf.readArray(read));
            assertEquals(10, raf.getFilePointer());
            assertArrayEquals(new int[] {2, -1, -1}, read);
            assertThrows(EOFException.class, () -> raf.readArray(read));
            assertEquals(10, raf.getFilePointer());
        }
    }

    @Test
    void closedFileRejectsBulkCalls() throws IOException {
        BulkRandomAccessFile raf = new BulkRandomAccessFile(file(), "rw");
        raf.writeArray(new long[] {1, 2});
        raf.close();
        assertThrows(IOException.class, () -> raf.writeArray(new long[] {3}));
        assertThrows(IOException.class, () -> raf.readArray(new long[1]));
        assertEquals(16, Files.size(file().toPath()));
    }

    @Test
    void systemCallErrorsNameTheCallTheReasonAndTheFile() throws IOException {
        Files.write(file().toPath(), new byte[8]);
        try (BulkRandomAccessFile raf = new BulkRandomAccessFile(file(), "r")) {
            IOException e = assertThrows(IOException.class, () -> raf.writeArray(new double[] {1.5}));
            assertEquals(file().getPath() + ": pwrite: Bad file descriptor", e.getMessage());
            assertEquals(0, raf.getFilePointer());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rws", "rwd"})
    void synchronousModesWriteAndReadBack(String mode) throws IOException {
        float[] values = {1.5f, Float.NaN, -0.0f, Float.MAX_VALUE};
        try (BulkRandomAccessFile raf = new BulkRandomAccessFile(file(), mode)) {
            raf.writeArray(values);
            raf.seek(0);
            float[] read = new float[4];
            raf.readArray(read);
            assertArrayEquals(values, read);
        }
    }

    @Test
    void constructorsTakeAPathNameOrAFile() throws IOException {
        try (BulkRandomAccessFile byName = new BulkRandomAccessFile(file().getPath(), "rw")) {
            byName.writeArray(new short[] {1, 2});
        }
        try (BulkRandomAccessFile byFile = new BulkRandomAccessFile(file(), "r")) {
            short[] read = new short[2];
            byFile.readArray(read);
            assertArrayEquals(new short[] {1, 2}, read);
        }
        assertTrue(file().delete());
    }
}
