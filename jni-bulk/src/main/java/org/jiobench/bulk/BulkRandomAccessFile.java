package org.jiobench.bulk;

import java.io.EOFException;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@link RandomAccessFile} that reads and writes whole primitive arrays in one call.
 *
 * <p>A bulk call moves its elements with native pread or pwrite at the file pointer, through one
 * conversion into or out of a temporary buffer (see {@link BufferPolicy}), then moves the file pointer
 * past them, so that it and the inherited single-element methods can be mixed freely. At end of file a
 * bulk read throws {@link java.io.EOFException} with the file pointer at the end of the file, as a
 * loop of {@code readInt()} and the like would leave it.
 *
 * <p>The bulk methods write and read big-endian by default, as {@code DataOutput} does; a file
 * opened with {@link ByteOrder#LITTLE_ENDIAN} holds its arrays' elements least significant byte
 * first instead (what C on x86 writes), while the inherited single-element methods stay big-endian.
 *
 * <p>Like its superclass, an instance is not meant for use by several threads at once.
 */
public final class BulkRandomAccessFile extends RandomAccessFile implements BulkDataInput, BulkDataOutput {

    /** Flags of the native calls: the file's byte order, and I/O straight to and from the array. */
    private static final int LITTLE_ENDIAN = 1;
    private static final int IN_PLACE = 2;

    private final String path;
    private final ScratchBuffer<ByteBuffer> buffer;
    private final int flags;

    public BulkRandomAccessFile(String name, String mode) throws FileNotFoundException {
        this(new File(name), mode);
    }

    public BulkRandomAccessFile(File file, String mode) throws FileNotFoundException {
        this(file, mode, BufferPolicy.DEFAULT);
    }

    /** @see RandomAccessFile#RandomAccessFile(File, String) */
    public BulkRandomAccessFile(File file, String mode, BufferPolicy policy) throws FileNotFoundException {
        this(file, mode, policy, ByteOrder.BIG_ENDIAN);
    }

    /** @param order the byte order of the arrays' elements in the file */
    public BulkRandomAccessFile(File file, String mode, BufferPolicy policy, ByteOrder order)
            throws FileNotFoundException {
        super(file, mode);
        this.path = file.getPath();
        this.buffer = ScratchBuffer.direct(policy);
        this.flags = (order == ByteOrder.LITTLE_ENDIAN ? LITTLE_ENDIAN : 0)
                | (policy.inPlace().here() ? IN_PLACE : 0);
    }

    @Override
    public void close() throws IOException {
        super.close();
        buffer.release();
    }

    @Override
    public void readArray(boolean[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Byte.BYTES, ArrayFileIO::readBooleans);
    }

    @Override
    public void readArray(byte[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Byte.BYTES, ArrayFileIO::readBytes);
    }

    @Override
    public void readArray(char[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Character.BYTES, ArrayFileIO::readChars);
    }

    @Override
    public void readArray(short[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Short.BYTES, ArrayFileIO::readShorts);
    }

    @Override
    public void readArray(int[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Integer.BYTES, ArrayFileIO::readInts);
    }

    @Override
    public void readArray(long[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Long.BYTES, ArrayFileIO::readLongs);
    }

    @Override
    public void readArray(float[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Float.BYTES, ArrayFileIO::readFloats);
    }

    @Override
    public void readArray(double[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Double.BYTES, ArrayFileIO::readDoubles);
    }

    @Override
    public void writeArray(boolean[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Byte.BYTES, ArrayFileIO::writeBooleans);
    }

    @Override
    public void writeArray(byte[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Byte.BYTES, ArrayFileIO::writeBytes);
    }

    @Override
    public void writeArray(char[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Character.BYTES, ArrayFileIO::writeChars);
    }

    @Override
    public void writeArray(short[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Short.BYTES, ArrayFileIO::writeShorts);
    }

    @Override
    public void writeArray(int[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Integer.BYTES, ArrayFileIO::writeInts);
    }

    @Override
    public void writeArray(long[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Long.BYTES, ArrayFileIO::writeLongs);
    }

    @Override
    public void writeArray(float[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Float.BYTES, ArrayFileIO::writeFloats);
    }

    @Override
    public void writeArray(double[] array, int offset, int count) throws IOException {
        transfer(array, offset, count, Double.BYTES, ArrayFileIO::writeDoubles);
    }

    // A boolean is one byte in the file, hence Byte.BYTES for boolean[] too.
    private <A> void transfer(A array, int offset, int count, int elementBytes, ArrayFileIO.Transfer<A> transfer)
            throws IOException {
        ArrayRange.check(array, offset, count);
        if (count == 0) {
            return;
        }
        long bytes = (long) count * elementBytes;
        long position = getFilePointer();
        long moved = transfer.apply(getFD(), path, array, offset, count, position, buffer.forTransfer(bytes), flags);
        seek(position + moved);
        if (moved < bytes) {
            throw new EOFException(path + ": end of file after " + moved + " of " + bytes + " bytes at offset "
                    + position);
        }
    }
}
