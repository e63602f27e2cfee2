package org.jiobench.workloads;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jiobench.bulk.BulkDataInput;
import org.jiobench.bulk.BulkDataOutput;

/** Single bytes, for the byte-oriented experiments of Xu and Guo: operations down to one byte. */
final class ByteElements implements ElementArray {
    final byte[] values;

    ByteElements(int length) {
        values = new byte[length];
    }

    @Override public int length() { return values.length; }

    @Override public Object array() { return values; }

    @Override public void fill(int from, int to, long firstElement, long seed) {
        for (int i = from; i < to; i++) values[i] = (byte) Pattern.bits(firstElement + i - from, seed);
    }

    @Override public long bits(int i) {
        return values[i] & 0xFFL;
    }

    @Override public int writeEach(DataOutput out, int from, int to, Stonewall stonewall) throws IOException {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) out.writeByte(values[i]);
        });
    }

    @Override public int readEach(DataInput in, int from, int to, Stonewall stonewall) throws IOException {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) values[i] = in.readByte();
        });
    }

    @Override public int encode(byte[] bytes, int from, int to, Stonewall stonewall) {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) bytes[i] = values[i];
        });
    }

    @Override public int decode(byte[] bytes, int from, int to, Stonewall stonewall) {
        return ElementLoop.run(from, to, stonewall, (a, b) -> {
            for (int i = a; i < b; i++) values[i] = bytes[i];
        });
    }

    @Override public void writeArray(BulkDataOutput out, int from, int to) throws IOException {
        out.writeArray(values, from, to - from);
    }

    @Override public void readArray(BulkDataInput in, int from, int to) throws IOException {
        in.readArray(values, from, to - from);
    }

    @Override public void putInto(ByteBuffer buffer, int from, int to) {
        buffer.put(buffer.position(), values, from, to - from);
    }

    @Override public void getFrom(ByteBuffer buffer, int from, int to) {
        buffer.get(buffer.position(), values, from, to - from);
    }
}
