package org.jiobench.workloads;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jiobench.bulk.BulkDataInput;
import org.jiobench.bulk.BulkDataOutput;

final class DoubleElements implements ElementArray {
    final double[] values;

    DoubleElements(int length) {
        values = new double[length];
    }

    @Override public int length() { return values.length; }

    @Override public void fill(long firstElement, long seed) {
        for (int i = 0; i < values.length; i++) values[i] = Pattern.doubleValue(firstElement + i, seed);
    }

    @Override public void writeEach(DataOutput out) throws IOException {
        for (double value : values) out.writeDouble(value);
    }

    @Override public void readEach(DataInput in) throws IOException {
        for (int i = 0; i < values.length; i++) values[i] = in.readDouble();
    }

    /** Through doubleToLongBits, exactly as {@code DataOutput.writeDouble} defines the bytes. */
    @Override public void encode(byte[] bytes) {
        for (int i = 0; i < values.length; i++) BigEndian.putLong(bytes, 8 * i, Double.doubleToLongBits(values[i]));
    }

    @Override public void decode(byte[] bytes) {
        for (int i = 0; i < values.length; i++) values[i] = Double.longBitsToDouble(BigEndian.getLong(bytes, 8 * i));
    }

    @Override public void writeArray(BulkDataOutput out) throws IOException {
        out.writeArray(values);
    }

    @Override public void readArray(BulkDataInput in) throws IOException {
        in.readArray(values);
    }

    @Override public void putInto(ByteBuffer buffer) {
        buffer.asDoubleBuffer().put(values);
    }

    @Override public void getFrom(ByteBuffer buffer) {
        buffer.asDoubleBuffer().get(values);
    }
}
