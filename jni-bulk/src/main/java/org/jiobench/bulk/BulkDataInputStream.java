package org.jiobench.bulk;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * A {@link DataInputStream} that reads whole primitive arrays in one call, over any input stream.
 *
 * <p>A bulk call reads a chunk of bytes from the wrapped stream's {@code read(byte[], int, int)} into a
 * temporary byte array (see {@link BufferPolicy}) and converts it in C into the elements, chunk by chunk.
 *
 * <p>Like its superclass, an instance is not meant for use by several threads at once.
 */
public final class BulkDataInputStream extends DataInputStream implements BulkDataInput {

    private final ScratchBuffer<byte[]> buffer;

    public BulkDataInputStream(InputStream in) {
        this(in, BufferPolicy.DEFAULT);
    }

    public BulkDataInputStream(InputStream in, BufferPolicy policy) {
        super(in);
        this.buffer = ScratchBuffer.onHeap(policy);
    }

    @Override
    public void readArray(boolean[] array, int offset, int count) throws IOException {
        decode(array, offset, count, Byte.BYTES, BigEndianCodec::decodeBooleans);
    }

    /** Bytes need no conversion: they are read straight into the array. */
    @Override
    public void readArray(byte[] array, int offset, int count) throws IOException {
        ArrayRange.check(array, offset, count);
        readFully(array, offset, count);
    }

    @Override
    public void readArray(char[] array, int offset, int count) throws IOException {
        decode(array, offset, count, Character.BYTES, BigEndianCodec::decodeChars);
    }

    @Override
    public void readArray(short[] array, int offset, int count) throws IOException {
        decode(array, offset, count, Short.BYTES, BigEndianCodec::decodeShorts);
    }

    @Override
    public void readArray(int[] array, int offset, int count) throws IOException {
        decode(array, offset, count, Integer.BYTES, BigEndianCodec::decodeInts);
    }

    @Override
    public void readArray(long[] array, int offset, int count) throws IOException {
        decode(array, offset, count, Long.BYTES, BigEndianCodec::decodeLongs);
    }

    @Override
    public void readArray(float[] array, int offset, int count) throws IOException {
        decode(array, offset, count, Float.BYTES, BigEndianCodec::decodeFloats);
    }

    @Override
    public void readArray(double[] array, int offset, int count) throws IOException {
        decode(array, offset, count, Double.BYTES, BigEndianCodec::decodeDoubles);
    }

    // A boolean is one byte in the stream, hence Byte.BYTES for boolean[] too.
    private <A> void decode(A array, int offset, int count, int elementBytes, BigEndianCodec.Decoder<A> decoder)
            throws IOException {
        ArrayRange.check(array, offset, count);
        if (count == 0) {
            return;
        }
        byte[] chunk = buffer.forTransfer((long) count * elementBytes);
        int chunkElements = chunk.length / elementBytes;
        for (int done = 0; done < count; ) {
            int n = Math.min(chunkElements, count - done);
            int wanted = n * elementBytes;
            int got = readUpTo(chunk, wanted);
            decoder.decode(chunk, array, offset + done, got / elementBytes);
            if (got < wanted) {
                throw new EOFException("end of stream after " + ((long) done * elementBytes + got) + " of "
                        + (long) count * elementBytes + " bytes");
            }
            done += n;
        }
    }

    /** Reads {@code length} bytes, or fewer at end of stream; returns how many it read. */
    private int readUpTo(byte[] chunk, int length) throws IOException {
        int got = 0;
        while (got < length) {
            int n = in.read(chunk, got, length - got);
            if (n < 0) {
                break;
            }
            got += n;
        }
        return got;
    }
}
