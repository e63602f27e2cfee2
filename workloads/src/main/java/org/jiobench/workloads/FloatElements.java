package org.jiobench.workloads;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jiobench.bulk.BulkDataInput;
import org.jiobench.bulk.BulkDataOutput;

final class FloatElements implements ElementArray {
    final float[] values;

    FloatElements(int length) {
        values = new float[length];
    }

    @Override public int length() { return values.length; }

    @Override public void fill(long firstElement, long seed) {
        for (int i = 0; i < values.length; i++) values[i] = Pattern.floatValue(firstElement + i, seed);
    }

    @Override public void writeEach(DataOutput out) throws IOException {
        for (float value : values) out.writeFloat(value);
    }

    @Override public void readEach(DataInput in) throws IOException {
        for (int i = 0; i < values.length; i++) values[i] = in.readFloat();
    }

    /** Through floatToIntBits, exactly as {@code DataOutput.writeFloat} defines the bytes. */
    @Override public void encode(byte[] bytes) {
        for (int i = 0; i < values.length; i++) BigEndian.putInt(bytes, 4 * i, Float.floatToIntBits(values[i]));
    }

    @Override public void decode(byte[] bytes) {
        for (int i = 0; i < values.length; i++) values[i] = Float.intBitsToFloat(BigEndian.getInt(bytes, 4 * i));
    }

    @Override public void writeArray(BulkDataOutput out) throws IOException {
        out.writeArray(values);
    }

    @Override public void readArray(BulkDataInput in) throws IOException {
        in.readArray(values);
    }

    @Override public void putInto(ByteBuffer buffer) {
        buffer.asFloatBuffer().put(values);
    }

    @Override public void getFrom(ByteBuffer buffer) {
        buffer.asFloatBuffer().get(values);
    }
}
