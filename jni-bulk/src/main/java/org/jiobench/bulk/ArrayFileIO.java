package org.jiobench.bulk;

import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The native half of {@link BulkRandomAccessFile}: pwrite or pread of {@code array[offset]} to
 * {@code array[offset + count - 1]} at {@code position} of the file, converted to or from big-endian
 * through {@code buffer} (direct), in chunks of the buffer's size. The file pointer is not moved.
 * {@code flags}: 1, the file is little-endian (the machine's order: a plain copy); 2, read straight
 * into the array, and where nothing needs converting write straight from it, pinning it during
 * each system call (only where the JVM pins without stopping its collector).
 * Each returns the bytes moved: all of them, or for a read fewer at end of file. Errors of the system
 * calls are IOExceptions naming the call and {@code path}; the arguments are checked again in C.
 */
final class ArrayFileIO {

    static {
        NativeLibrary.load();
    }

    /** One of the native methods below, for one array type. */
    @FunctionalInterface
    interface Transfer<A> {
        long apply(FileDescriptor fd, String path, A array, int offset, int count, long position, ByteBuffer buffer,
                int flags) throws IOException;
    }

    private ArrayFileIO() {
    }

    static native long writeBooleans(FileDescriptor fd, String path, boolean[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long readBooleans(FileDescriptor fd, String path, boolean[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long writeBytes(FileDescriptor fd, String path, byte[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long readBytes(FileDescriptor fd, String path, byte[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long writeChars(FileDescriptor fd, String path, char[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long readChars(FileDescriptor fd, String path, char[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long writeShorts(FileDescriptor fd, String path, short[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long readShorts(FileDescriptor fd, String path, short[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long writeInts(FileDescriptor fd, String path, int[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long readInts(FileDescriptor fd, String path, int[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long writeLongs(FileDescriptor fd, String path, long[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long readLongs(FileDescriptor fd, String path, long[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long writeFloats(FileDescriptor fd, String path, float[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long readFloats(FileDescriptor fd, String path, float[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long writeDoubles(FileDescriptor fd, String path, double[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;

    static native long readDoubles(FileDescriptor fd, String path, double[] array, int offset, int count, long position,
            ByteBuffer buffer, int flags) throws IOException;
}
