package org.jiobench.bulk;

import java.io.DataInput;
import java.io.EOFException;
import java.io.IOException;

/**
 * A {@link DataInput} that also reads whole arrays of primitives in one call.
 *
 * <p>{@code readArray(a, offset, count)} reads exactly what {@code count} calls of the matching
 * single-element method would ({@link #readBoolean()}, {@link #readInt()}, ...) and stores the values in
 * {@code a[offset]} to {@code a[offset + count - 1]}: big-endian elements, a boolean being one byte read
 * as {@code true} unless it is zero. If the input ends first, it throws {@link EOFException}; the
 * elements read whole before the end are stored, the rest of the range is left as it was.
 *
 * <p>A range outside the array throws {@link IndexOutOfBoundsException} and a null array
 * {@link NullPointerException}, before anything is read.
 */
public interface BulkDataInput extends DataInput {

    default void readArray(boolean[] array) throws IOException {
        readArray(array, 0, array.length);
    }

    void readArray(boolean[] array, int offset, int count) throws IOException;

    default void readArray(byte[] array) throws IOException {
        readArray(array, 0, array.length);
    }

    void readArray(byte[] array, int offset, int count) throws IOException;

    default void readArray(char[] array) throws IOException {
        readArray(array, 0, array.length);
    }

    void readArray(char[] array, int offset, int count) throws IOException;

    default void readArray(short[] array) throws IOException {
        readArray(array, 0, array.length);
    }

    void readArray(short[] array, int offset, int count) throws IOException;

    default void readArray(int[] array) throws IOException {
        readArray(array, 0, array.length);
    }

    void readArray(int[] array, int offset, int count) throws IOException;

    default void readArray(long[] array) throws IOException {
        readArray(array, 0, array.length);
    }

    void readArray(long[] array, int offset, int count) throws IOException;

    default void readArray(float[] array) throws IOException {
        readArray(array, 0, array.length);
    }

    void readArray(float[] array, int offset, int count) throws IOException;

    default void readArray(double[] array) throws IOException {
        readArray(array, 0, array.length);
    }

    void readArray(double[] array, int offset, int count) throws IOException;
}
