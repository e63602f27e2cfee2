package org.jiobench.bulk;

import java.io.DataOutput;
import java.io.IOException;

/**
 * A {@link DataOutput} that also writes whole arrays of primitives in one call.
 *
 * <p>{@code writeArray(a, offset, count)} writes exactly the bytes that {@code count} calls of the
 * matching single-element method would ({@link #writeBoolean}, {@link #writeInt}, ...) for
 * {@code a[offset]} to {@code a[offset + count - 1]}: big-endian elements, a boolean as one byte 1 or 0,
 * a float or double as {@link Float#floatToIntBits} or {@link Double#doubleToLongBits} give it (so every
 * NaN is written as the canonical NaN, as {@code DataOutputStream} writes it).
 *
 * <p>A range outside the array throws {@link IndexOutOfBoundsException} and a null array
 * {@link NullPointerException}, before anything is written.
 */
public interface BulkDataOutput extends DataOutput {

    default void writeArray(boolean[] array) throws IOException {
        writeArray(array, 0, array.length);
    }

    void writeArray(boolean[] array, int offset, int count) throws IOException;

    default void writeArray(byte[] array) throws IOException {
        writeArray(array, 0, array.length);
    }

    void writeArray(byte[] array, int offset, int count) throws IOException;

    default void writeArray(char[] array) throws IOException {
        writeArray(array, 0, array.length);
    }

    void writeArray(char[] array, int offset, int count) throws IOException;

    default void writeArray(short[] array) throws IOException {
        writeArray(array, 0, array.length);
    }

    void writeArray(short[] array, int offset, int count) throws IOException;

    default void writeArray(int[] array) throws IOException {
        writeArray(array, 0, array.length);
    }

    void writeArray(int[] array, int offset, int count) throws IOException;

    default void writeArray(long[] array) throws IOException {
        writeArray(array, 0, array.length);
    }

    void writeArray(long[] array, int offset, int count) throws IOException;

    default void writeArray(float[] array) throws IOException {
        writeArray(array, 0, array.length);
    }

    void writeArray(float[] array, int offset, int count) throws IOException;

    default void writeArray(double[] array) throws IOException {
        writeArray(array, 0, array.length);
    }

    void writeArray(double[] array, int offset, int count) throws IOException;
}
