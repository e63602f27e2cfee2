package org.jiobench.workloads;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jiobench.bulk.BulkDataInput;
import org.jiobench.bulk.BulkDataOutput;

final class LongElements implements ElementArray {
    final long[] values;

    LongElements(int length) {
        values = new long[length];
    }

    @Override public int length() { return values.length; }

    @Override public void fill(long firstElement, long seed) {
        for (int i = 0; i < values.length; i++) values[i] = Pattern.bits(firstElement + i, seed);
    }

    @Override public void writeEach(DataOutput out) throws IOException {
        for (long value : values) out.writeLong(value);
    }

    @Override public void readEach(DataInput in) throws IOException {
        for (int i = 0; i < values.length; i++) values[i] = in.readLong();
    }

    @Override public void encode(byte[] bytes) {
        for (int i = 0; i < values.length; i++) BigEndian.putLong(bytes, 8 * i, values[i]);
    }

    @Override public void decode(byte[] bytes) {
        for (int i = 0; i < values.length; i++) values[i] = BigEndian.getLong(bytes, 8 * i);
    }

    @Override public void writeArray(BulkDataOutput out) throws IOException {
        out.writeArray(values);
    }

    @Override public void readArray(BulkDataInput in) throws IOException {
        in.readArray(values);
    }

    @Override public void putInto(ByteBuffer buffer) {
        buffer.asLongBuffer().put(values);
    }

    @Override public void getFrom(ByteBuffer buffer) {
        buffer.asLongBuffer().get(values);
    }
}
