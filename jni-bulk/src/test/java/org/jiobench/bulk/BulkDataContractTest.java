package org.jiobench.bulk;

import static org.jiobench.bulk.PrimitiveType.assertSameElements;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every pair of BulkDataOutput and BulkDataInput must do: move exactly the bytes DataOutput and
 * DataInput move one element at a time. Each subclass supplies one pair (file, byte array, stream
 * chain); the tests run over all eight primitive types.
 */
abstract class BulkDataContractTest {

    /** Not a multiple of any element size: chunks end with room to spare. */
    static final int SMALL_CHUNK_BYTES = 20;

    @TempDir
    Path dir;

    private final List<Closeable> opened = new ArrayList<>();

    /** An output on an empty destination. */
    abstract BulkDataOutput openOutput(BufferPolicy policy) throws IOException;

    /** Closes {@code out} and returns every byte it wrote. */
    abstract byte[] closeAndGetWritten(BulkDataOutput out) throws IOException;

    /** An input that yields {@code content}, then its end. */
    abstract BulkDataInput openInput(byte[] content, BufferPolicy policy) throws IOException;

    /** With I/O straight to the array too, on every JVM (ALWAYS) and where the JVM pins without stopping its collector. */
    static Stream<BufferPolicy> policies() {
        return Stream.of(BufferPolicy.DEFAULT, new BufferPolicy(SMALL_CHUNK_BYTES, true),
                new BufferPolicy(SMALL_CHUNK_BYTES, false),
                new BufferPolicy(SMALL_CHUNK_BYTES, true, BufferPolicy.InPlace.WHERE_COLLECTOR_RUNS),
                new BufferPolicy(SMALL_CHUNK_BYTES, true, BufferPolicy.InPlace.ALWAYS));
    }

    static Stream<Arguments> typesAndPolicies() {
        return Arrays.stream(PrimitiveType.values()).flatMap(type -> policies().map(p -> Arguments.of(type, p)));
    }

    @ParameterizedTest
    @EnumSource(PrimitiveType.class)
    void wholeArrayIsWrittenAsDataOutputWritesEachElement(PrimitiveType type) throws IOException {
        Object array = type.randomArray(1, 1000);
        BulkDataOutput out = openOutput(BufferPolicy.DEFAULT);
        type.writeArray(out, array);
        assertArrayEquals(type.writtenEach(array, 0, 1000), closeAndGetWritten(out));
    }

    @ParameterizedTest
    @EnumSource(PrimitiveType.class)
    void subRangeIsWrittenAsDataOutputWritesEachElement(PrimitiveType type) throws IOException {
        Object array = type.randomArray(2, 100);
        BulkDataOutput out = openOutput(BufferPolicy.DEFAULT);
        type.writeArray(out, array, 7, 50);
        assertArrayEquals(type.writtenEach(array, 7, 50), closeAndGetWritten(out));
    }

    @ParameterizedTest
    @EnumSource(PrimitiveType.class)
    void wholeArrayIsReadAsDataInputReadsEachElement(PrimitiveType type) throws IOException {
        byte[] content = randomBytes(3, 1000 * type.bytes);
        Object array = type.newArray(1000);
        type.readArray(openInput(content, BufferPolicy.DEFAULT), array);
        assertSameElements(type.readEach(content, 0, 1000), array);
    }

    @ParameterizedTest
    @EnumSource(PrimitiveType.class)
    void subRangeIsReadIntoItsPlaceAndConsumesItsBytesOnly(PrimitiveType type) throws IOException {
        byte[] content = randomBytes(4, 60 * type.bytes);
        Object expected = type.randomArray(5, 100);
        Object array = type.randomArray(5, 100);
        DataInputStream each = new DataInputStream(new ByteArrayInputStream(content));
        type.readEach(each, expected, 7, 50);
        BulkDataInput in = openInput(content, BufferPolicy.DEFAULT);

        type.readArray(in, array, 7, 50);

        assertSameElements(expected, array);
        assertEquals(each.readByte(), in.readByte(), "the byte after the range");
    }

    @ParameterizedTest
    @MethodSource("typesAndPolicies")
    void arraysLongerThanAChunkRoundTrip(PrimitiveType type, BufferPolicy policy) throws IOException {
        int count = 3 * policy.chunkBytes() / type.bytes + 1001;
        Object array = type.randomArray(6, count);
        BulkDataOutput out = openOutput(policy);
        type.writeArray(out, array);
        byte[] written = closeAndGetWritten(out);
        assertArrayEquals(type.writtenEach(array, 0, count), written);

        Object read = type.newArray(count);
        type.readArray(openInput(written, policy), read);
        assertSameElements(type.readEach(written, 0, count), read);
    }

    /** Single-element and bulk calls of every type, one after the other, as a file format would use them. */
    @Test
    void singleElementAndBulkCallsInterleave() throws IOException {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DataOutputStream each = new DataOutputStream(expected);
        BulkDataOutput out = openOutput(new BufferPolicy(SMALL_CHUNK_BYTES, true));
        for (PrimitiveType type : PrimitiveType.values()) {
            Object array = type.randomArray(type.ordinal(), 30);
            for (DataOutput target : new DataOutput[] {each, out}) {
                target.writeInt(type.ordinal());
                target.writeUTF(type.name());
            }
            type.writeEach(each, array, 1, 28);
            type.writeArray(out, array, 1, 28);
        }
        byte[] written = closeAndGetWritten(out);
        assertArrayEquals(expected.toByteArray(), written);

        BulkDataInput in = openInput(written, new BufferPolicy(SMALL_CHUNK_BYTES, true));
        DataInputStream readEach = new DataInputStream(new ByteArrayInputStream(written));
        for (PrimitiveType type : PrimitiveType.values()) {
            assertEquals(type.ordinal(), in.readInt());
            assertEquals(type.name(), in.readUTF());
            readEach.readInt();
            readEach.readUTF();
            Object expectedArray = type.newArray(30);
            Object read = type.newArray(30);
            type.readEach(readEach, expectedArray, 1, 28);
            type.readArray(in, read, 1, 28);
            assertSameElements(expectedArray, read);
        }
    }

    @ParameterizedTest
    @EnumSource(PrimitiveType.class)
    void endOfInputStoresTheElementsReadWholeAndNoMore(PrimitiveType type) throws IOException {
        // Five whole elements and, where an element has more than one byte, part of a sixth.
        byte[] content = randomBytes(7, 5 * type.bytes + type.bytes / 2);
        Object array = type.randomArray(8, 10);
        Object expected = type.randomArray(8, 10);
        type.readEach(new DataInputStream(new ByteArrayInputStream(content)), expected, 0, 5);
        BulkDataInput in = openInput(content, new BufferPolicy(SMALL_CHUNK_BYTES, true));

        assertThrows(EOFException.class, () -> type.readArray(in, array));

        assertSameElements(expected, array);
    }

    @ParameterizedTest
    @EnumSource(PrimitiveType.class)
    void emptyRangesMoveNothing(PrimitiveType type) throws IOException {
        Object array = type.randomArray(9, 10);
        BulkDataOutput out = openOutput(BufferPolicy.DEFAULT);
        type.writeArray(out, array, 0, 0);
        type.writeArray(out, array, 10, 0);
        type.writeArray(out, type.newArray(0));
        assertEquals(0, closeAndGetWritten(out).length);

        BulkDataInput in = openInput(new byte[0], BufferPolicy.DEFAULT);
        type.readArray(in, array, 10, 0);
        type.readArray(in, type.newArray(0));
        assertSameElements(type.randomArray(9, 10), array);
    }

    @ParameterizedTest
    @EnumSource(PrimitiveType.class)
    void nullArraysAreRejected(PrimitiveType type) throws IOException {
        BulkDataOutput out = openOutput(BufferPolicy.DEFAULT);
        assertThrows(NullPointerException.class, () -> type.writeArray(out, null, 0, 0));
        assertThrows(NullPointerException.class, () -> type.writeArray(out, null));
        assertEquals(0, closeAndGetWritten(out).length);

        BulkDataInput in = openInput(new byte[] {42}, BufferPolicy.DEFAULT);
        assertThrows(NullPointerException.class, () -> type.readArray(in, null, 0, 0));
        assertThrows(NullPointerException.class, () -> type.readArray(in, null));
        assertEquals(42, in.readByte(), "nothing read");
    }

    static Stream<Arguments> badRanges() {
        int[][] ranges = {
            {-1, 1}, {0, -1}, {-1, -1}, {11, 0}, {10, 1}, {9, 2}, {0, 11}, {1, 10},
            {Integer.MAX_VALUE, 1}, {1, Integer.MAX_VALUE}, {Integer.MAX_VALUE, Integer.MAX_VALUE},
            {Integer.MIN_VALUE, 1}, {5, Integer.MIN_VALUE},
        };
        return Arrays.stream(PrimitiveType.values())
                .flatMap(type -> Arrays.stream(ranges).map(r -> Arguments.of(type, r[0], r[1])));
    }

    /** Ranges of an array of 10: negative, one past the end, and overflowing offset + count. */
    @ParameterizedTest
    @MethodSource("badRanges")
    void rangesOutsideTheArrayAreRejectedBeforeAnyDataMoves(PrimitiveType type, int offset, int count)
            throws IOException {
        Object array = type.randomArray(10, 10);
        BulkDataOutput out = openOutput(BufferPolicy.DEFAULT);
        assertThrows(IndexOutOfBoundsException.class, () -> type.writeArray(out, array, offset, count));
        assertEquals(0, closeAndGetWritten(out).length);

        byte[] content = randomBytes(11, 20 * type.bytes);
        BulkDataInput in = openInput(content, BufferPolicy.DEFAULT);
        assertThrows(IndexOutOfBoundsException.class, () -> type.readArray(in, array, offset, count));
        assertSameElements(type.randomArray(10, 10), array);
        assertEquals(content[0], in.readByte(), "nothing read");
    }

    static byte[] randomBytes(long seed, int length) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** Registers something a subclass opened, to be closed after the test. */
    <T extends Closeable> T closedAfterTest(T closeable) {
        opened.add(closeable);
        return closeable;
    }

    @AfterEach
    void closeAll() throws IOException {
        for (Closeable closeable : opened) {
            closeable.close();
        }
    }
}
