package org.jiobench.workloads;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jiobench.bulk.BulkDataInput;
import org.jiobench.bulk.BulkDataOutput;

final class IntElements implements ElementArray {
    final int[] values;

    IntElements(int length) {
        values = new int[length];
    }

    @Override public int length() { return values.length; }

    @Override public Object array() { return values; }

    @Override public void fill(int from, int to, long firstElement, long seed) {
        for (int i = from; i < to; i++) values[i] = (int) Pattern.bits(firstElement + i - from, seed);
    }

    @Override public long bits(int i) {
        return values[i] & 0xFFFF_FFFFL;
    }

    @Override public int writeEach(DataOutput out, int from, int to, Stonewall stonewall) throws IOException {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) out.writeInt(values[i]);
        });
    }

    @Override public int readEach(DataInput in, int from, int to, Stonewall stonewall) throws IOException {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) values[i] = in.readInt();
        });
    }

    @Override public int encode(byte[] bytes, int from, int to, Stonewall stonewall) {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) BigEndian.putInt(bytes, 4 * i, values[i]);
        });
    }

    @Override public int decode(byte[] bytes, int from, int to, Stonewall stonewall) {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) values[i] = BigEndian.getInt(bytes, 4 * i);
        });
    }

    @Override public void writeArray(BulkDataOutput out, int from, int to) throws IOException {
        out.writeArray(values, from, to - from);
    }

    @Override public void readArray(BulkDataInput in, int from, int to) throws IOException {
        in.readArray(values, from, to - from);
    }

    @Override public void putInto(ByteBuffer buffer, int from, int to) {
        buffer.asIntBuffer().put(values, from, to - from);
    }

    @Override public void getFrom(ByteBuffer buffer, int from, int to) {
        buffer.asIntBuffer().get(values, from, to - from);
    }
}
