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

    @Override public Object array() { return values; }

    @Override public void fill(int from, int to, long firstElement, long seed) {
        for (int i = from; i < to; i++) values[i] = Pattern.doubleValue(firstElement + i - from, seed);
    }

    @Override public long bits(int i) {
        return Double.doubleToRawLongBits(values[i]);
    }

    @Override public int writeEach(DataOutput out, int from, int to, Stonewall stonewall) throws IOException {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) out.writeDouble(values[i]);
        });
    }

    @Override public int readEach(DataInput in, int from, int to, Stonewall stonewall) throws IOException {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) values[i] = in.readDouble();
        });
    }

    /** Through doubleToLongBits, exactly as {@code DataOutput.writeDouble} defines the bytes. */
    @Override public int encode(byte[] bytes, int from, int to, Stonewall stonewall) {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) BigEndian.putLong(bytes, 8 * i, Double.doubleToLongBits(values[i]));
        });
    }

    @Override public int decode(byte[] bytes, int from, int to, Stonewall stonewall) {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) values[i] = Double.longBitsToDouble(BigEndian.getLong(bytes, 8 * i));
        });
    }

    @Override public void writeArray(BulkDataOutput out, int from, int to) throws IOException {
        out.writeArray(values, from, to - from);
    }

    @Override public void readArray(BulkDataInput in, int from, int to) throws IOException {
        in.readArray(values, from, to - from);
    }

    @Override public void putInto(ByteBuffer buffer, int from, int to) {
        buffer.asDoubleBuffer().put(values, from, to - from);
    }

    @Override public void getFrom(ByteBuffer buffer, int from, int to) {
        buffer.asDoubleBuffer().get(values, from, to - from);
    }
}
