package org.jiobench.bulk;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A {@link DataOutputStream} that writes whole primitive arrays in one call, over any output stream.
 *
 * <p>A bulk call converts its elements in C into a temporary byte array (see {@link BufferPolicy}) and
 * hands that to the wrapped stream's {@code write(byte[], int, int)}, chunk by chunk; {@link #size()}
 * counts the bytes as for any other write.
 *
 * <p>Like its superclass, an instance is not meant for use by several threads at once.
 */
public final class BulkDataOutputStream extends DataOutputStream implements BulkDataOutput {

    private final ScratchBuffer<byte[]> buffer;

    public BulkDataOutputStream(OutputStream out) {
        this(out, BufferPolicy.DEFAULT);
    }

    public BulkDataOutputStream(OutputStream out, BufferPolicy policy) {
        super(out);
        this.buffer = ScratchBuffer.onHeap(policy);
    }

    @Override
    public void writeArray(boolean[] array, int offset, int count) throws IOException {
        encode(array, offset, count, Byte.BYTES, BigEndianCodec::encodeBooleans);
    }

    /** Bytes need no conversion: they go to the stream as they are. */
    @Override
    public void writeArray(byte[] array, int offset, int count) throws IOException {
        ArrayRange.check(array, offset, count);
        write(array, offset, count);
    }

    @Override
    public void writeArray(char[] array, int offset, int count) throws IOException {
        encode(array, offset, count, Character.BYTES, BigEndianCodec::encodeChars);
    }

    @Override
    public void writeArray(short[] array, int offset, int count) throws IOException {
        encode(array, offset, count, Short.BYTES, BigEndianCodec::encodeShorts);
    }

    @Override
    public void writeArray(int[] array, int offset, int count) throws IOException {
        encode(array, offset, count, Integer.BYTES, BigEndianCodec::encodeInts);
    }

    @Override
    public void writeArray(long[] array, int offset, int count) throws IOException {
        encode(array, offset, count, Long.BYTES, BigEndianCodec::encodeLongs);
    }

    @Override
    public void writeArray(float[] array, int offset, int count) throws IOException {
        encode(array, offset, count, Float.BYTES, BigEndianCodec::encodeFloats);
    }

    @Override
    public void writeArray(double[] array, int offset, int count) throws IOException {
        encode(array, offset, count, Double.BYTES, BigEndianCodec::encodeDoubles);
    }

    // A boolean is one byte in the stream, hence Byte.BYTES for boolean[] too.
    private <A> void encode(A array, int offset, int count, int elementBytes, BigEndianCodec.Encoder<A> encoder)
            throws IOException {
        ArrayRange.check(array, offset, count);
        if (count == 0) {
            return;
        }
        byte[] chunk = buffer.forTransfer((long) count * elementBytes);
        int chunkElements = chunk.length / elementBytes;
        for (int done = 0; done < count; ) {
            int n = Math.min(chunkElements, count - done);
            encoder.encode(array, offset + done, n, chunk);
            write(chunk, 0, n * elementBytes); // DataOutputStream's write, which counts for size()
            done += n;
        }
    }
}
