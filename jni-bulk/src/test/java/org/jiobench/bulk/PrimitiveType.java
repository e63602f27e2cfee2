package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Array;
import java.util.Arrays;
import java.util.Objects;
import java.util.Random;

/** The eight primitive types, each with its single-element and bulk operations, for tests over all of them. */
enum PrimitiveType {

    BOOLEAN(boolean.class, 1,
            (out, a, i) -> out.writeBoolean(((boolean[]) a)[i]),
            (in, a, i) -> ((boolean[]) a)[i] = in.readBoolean(),
            (out, a, offset, count) -> out.writeArray((boolean[]) a, offset, count),
            (in, a, offset, count) -> in.readArray((boolean[]) a, offset, count),
            (out, a) -> out.writeArray((boolean[]) a),
            (in, a) -> in.readArray((boolean[]) a)),
    BYTE(byte.class, Byte.BYTES,
            (out, a, i) -> out.writeByte(((byte[]) a)[i]),
            (in, a, i) -> ((byte[]) a)[i] = in.readByte(),
            (out, a, offset, count) -> out.writeArray((byte[]) a, offset, count),
            (in, a, offset, count) -> in.readArray((byte[]) a, offset, count),
            (out, a) -> out.writeArray((byte[]) a),
            (in, a) -> in.readArray((byte[]) a)),
    CHAR(char.class, Character.BYTES,
            (out, a, i) -> out.writeChar(((char[]) a)[i]),
            (in, a, i) -> ((char[]) a)[i] = in.readChar(),
            (out, a, offset, count) -> out.writeArray((char[]) a, offset, count),
            (in, a, offset, count) -> in.readArray((char[]) a, offset, count),
            (out, a) -> out.writeArray((char[]) a),
            (in, a) -> in.readArray((char[]) a)),
    SHORT(short.class, Short.BYTES,
            (out, a, i) -> out.writeShort(((short[]) a)[i]),
            (in, a, i) -> ((short[]) a)[i] = in.readShort(),
            (out, a, offset, count) -> out.writeArray((short[]) a, offset, count),
            (in, a, offset, count) -> in.readArray((short[]) a, offset, count),
            (out, a) -> out.writeArray((short[]) a),
            (in, a) -> in.readArray((short[]) a)),
    INT(int.class, Integer.BYTES,
            (out, a, i) -> out.writeInt(((int[]) a)[i]),
            (in, a, i) -> ((int[]) a)[i] = in.readInt(),
            (out, a, offset, count) -> out.writeArray((int[]) a, offset, count),
            (in, a, offset, count) -> in.readArray((int[]) a, offset, count),
            (out, a) -> out.writeArray((int[]) a),
            (in, a) -> in.readArray((int[]) a)),
    LONG(long.class, Long.BYTES,
            (out, a, i) -> out.writeLong(((long[]) a)[i]),
            (in, a, i) -> ((long[]) a)[i] = in.readLong(),
            (out, a, offset, count) -> out.writeArray((long[]) a, offset, count),
            (in, a, offset, count) -> in.readArray((long[]) a, offset, count),
            (out, a) -> out.writeArray((long[]) a),
            (in, a) -> in.readArray((long[]) a)),
    FLOAT(float.class, Float.BYTES,
            (out, a, i) -> out.writeFloat(((float[]) a)[i]),
            (in, a, i) -> ((float[]) a)[i] = in.readFloat(),
            (out, a, offset, count) -> out.writeArray((float[]) a, offset, count),
            (in, a, offset, count) -> in.readArray((float[]) a, offset, count),
            (out, a) -> out.writeArray((float[]) a),
            (in, a) -> in.readArray((float[]) a)),
    DOUBLE(double.class, Double.BYTES,
            (out, a, i) -> out.writeDouble(((double[]) a)[i]),
            (in, a, i) -> ((double[]) a)[i] = in.readDouble(),
            (out, a, offset, count) -> out.writeArray((double[]) a, offset, count),
            (in, a, offset, count) -> in.readArray((double[]) a, offset, count),
            (out, a) -> out.writeArray((double[]) a),
            (in, a) -> in.readArray((double[]) a));

    final Class<?> component;
    final int bytes;
    private final WriteOne writeOne;
    private final ReadOne readOne;
    private final WriteRange writeRange;
    private final ReadRange readRange;
    private final WriteWhole writeWhole;
    private final ReadWhole readWhole;

    PrimitiveType(Class<?> component, int bytes, WriteOne writeOne, ReadOne readOne, WriteRange writeRange,
            ReadRange readRange, WriteWhole writeWhole, ReadWhole readWhole) {
        this.component = component;
        this.bytes = bytes;
        this.writeOne = writeOne;
        this.readOne = readOne;
        this.writeRange = writeRange;
        this.readRange = readRange;
        this.writeWhole = writeWhole;
        this.readWhole = readWhole;
    }

    static PrimitiveType of(Class<?> component) {
        return Arrays.stream(values()).filter(t -> t.component == component).findFirst().orElseThrow();
    }

    Object newArray(int length) {
        return Array.newInstance(component, length);
    }

    /**
     * An array of arbitrary bit patterns, as readX turns random bytes into them: NaNs with payloads,
     * negative zeros and booleans from bytes other than 0 and 1 included.
     */
    Object randomArray(long seed, int length) throws IOException {
        byte[] bytes = new byte[length * this.bytes];
        new Random(seed).nextBytes(bytes);
        return readEach(bytes, 0, length);
    }

    /** What DataOutputStream writes for array[offset] to array[offset + count - 1], one call each. */
    byte[] writtenEach(Object array, int offset, int count) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        writeEach(out, array, offset, count);
        return bytes.toByteArray();
    }

    /** An array of count elements (at offset) read from bytes by DataInputStream, one call each. */
    Object readEach(byte[] bytes, int offset, int count) throws IOException {
        Object array = newArray(offset + count);
        readEach(new DataInputStream(new ByteArrayInputStream(bytes)), array, offset, count);
        return array;
    }

    void writeEach(DataOutput out, Object array, int offset, int count) throws IOException {
        for (int i = offset; i < offset + count; i++) {
            writeOne.write(out, array, i);
        }
    }

    void readEach(DataInput in, Object array, int offset, int count) throws IOException {
        for (int i = offset; i < offset + count; i++) {
            readOne.read(in, array, i);
        }
    }

    void writeArray(BulkDataOutput out, Object array, int offset, int count) throws IOException {
        writeRange.write(out, array, offset, count);
    }

    void readArray(BulkDataInput in, Object array, int offset, int count) throws IOException {
        readRange.read(in, array, offset, count);
    }

    void writeArray(BulkDataOutput out, Object array) throws IOException {
        writeWhole.write(out, array);
    }

    void readArray(BulkDataInput in, Object array) throws IOException {
        readWhole.read(in, array);
    }

    /** Equal element by element, as the boxed values' equals says (so any NaN equals any NaN). */
    static void assertSameElements(Object expected, Object actual) {
        if (Objects.deepEquals(expected, actual)) {
            return;
        }
        assertEquals(Array.getLength(expected), Array.getLength(actual), "length");
        for (int i = 0; i < Array.getLength(expected); i++) {
            assertEquals(Array.get(expected, i), Array.get(actual, i), "element " + i);
        }
        fail("arrays differ");
    }

    @FunctionalInterface
    interface WriteOne {
        void write(DataOutput out, Object array, int index) throws IOException;
    }

    @FunctionalInterface
    interface ReadOne {
        void read(DataInput in, Object array, int index) throws IOException;
    }

    @FunctionalInterface
    interface WriteRange {
        void write(BulkDataOutput out, Object array, int offset, int count) throws IOException;
    }

    @FunctionalInterface
    interface ReadRange {
        void read(BulkDataInput in, Object array, int offset, int count) throws IOException;
    }

    @FunctionalInterface
    interface WriteWhole {
        void write(BulkDataOutput out, Object array) throws IOException;
    }

    @FunctionalInterface
    interface ReadWhole {
        void read(BulkDataInput in, Object array) throws IOException;
    }
}
