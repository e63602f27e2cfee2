package org.jiobench.bulk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A file opened with open(2), for I/O the way a C program does it: a whole phase of pwrite or pread
 * calls runs in one native call, from one direct buffer, at the offsets given.
 *
 * <p>Errors of the system calls are IOExceptions naming the call, the reason and the file. An instance
 * is not meant for use by several threads at once.
 */
public final class PosixFile extends Descriptor {

    private PosixFile(String path, int fd) {
        super(path, fd);
    }

    /**
     * Opens {@code path} read-only, or for writing with {@code O_WRONLY | O_CREAT} and mode 0666 (less
     * the umask). Writing does not truncate: several processes can write their own parts of one file.
     */
    public static PosixFile open(Path path, boolean forWrite) throws IOException {
        return open(path, forWrite, false);
    }

    /**
     * The same, with {@code O_DIRECT} when {@code direct}: the kernel then moves data between the
     * file and the buffer without its page cache, and buffers, offsets and lengths must be
     * multiples of the file system's block size (a file system that refuses it fails the open).
     */
    public static PosixFile open(Path path, boolean forWrite, boolean direct) throws IOException {
        String name = Objects.requireNonNull(path, "path").toString();
        return new PosixFile(name, open(NativePath.of(path), name, forWrite, direct));
    }

    /**
     * Runs one phase: for each {@code k} from 0, writes (or reads) the first {@code length} bytes of
     * {@code directBuffer} at {@code offsets[k]} of the file, all of them, between
     * {@code callback.beforeTransfer(k)} and {@code callback.afterTransfer(k)} when a callback is given.
     * The buffer's position and limit play no part.
     *
     * @param callback null, or called around each transfer; its {@code beforeTransfer} can end the phase early
     * @return the number of transfers done: {@code offsets.length}, or fewer if the callback ended the phase
     * @throws java.io.EOFException      if a read reaches the end of the file
     * @throws NullPointerException      if {@code directBuffer} or {@code offsets} is null
     * @throws IllegalArgumentException  if the buffer is not direct or an offset is negative (or so large
     *                                   that the transfer would end past {@code Long.MAX_VALUE}); no
     *                                   transfer is made then
     * @throws IndexOutOfBoundsException if {@code length} is negative or more than the buffer's capacity
     */
    public int transfer(boolean write, ByteBuffer directBuffer, int length, long[] offsets, TransferCallback callback)
            throws IOException {
        return transfer(descriptor(), path, write, directBuffer, length, offsets, false, Long.MAX_VALUE, callback,
                0, null);
    }

    /**
     * A batch of transfers prepared together: transfer {@code k} moves bytes
     * {@code [k * length, (k + 1) * length)} of {@code directBuffer} at {@code offsets[k]}, with no
     * call back into Java between them. The loop looks at the clock every 64 transfers and stops at
     * the first transfer boundary it sees {@code nanosLeft} nanoseconds after its start.
     *
     * @param nanosLeft the time the batch may take, or {@code Long.MAX_VALUE} for no limit
     * @return the number of transfers done: {@code offsets.length}, or fewer if the time ran out
     * @throws IndexOutOfBoundsException if the buffer holds fewer than {@code offsets.length * length} bytes
     */
    public int transferBatch(boolean write, ByteBuffer directBuffer, int length, long[] offsets, long nanosLeft)
            throws IOException {
        return transfer(descriptor(), path, write, directBuffer, length, offsets, true, nanosLeft, null, 0, null);
    }

    /**
     * The same for a C array of elements of {@code elementSize} bytes (2, 4 or 8) in the opposite
     * byte order to the file's: a write converts {@code piece}'s capacity at a time into
     * {@code piece} and writes it from there; a read reads a piece's worth straight into
     * {@code elements} and reverses its bytes in place. Each piece is one system call.
     *
     * @throws IllegalArgumentException also if {@code piece} is not direct, holds no element, or
     *                                  {@code length} is no whole number of elements
     */
    public int transferSwapped(boolean write, ByteBuffer elements, int elementSize, ByteBuffer piece, int length,
            long[] offsets, TransferCallback callback) throws IOException {
        return transfer(descriptor(), path, write, elements, length, offsets, false, Long.MAX_VALUE, callback,
                elementSize, Objects.requireNonNull(piece, "piece"));
    }

    /** {@link #transferBatch} of a C array of elements in the opposite byte order to the file's. */
    public int transferSwappedBatch(boolean write, ByteBuffer elements, int elementSize, ByteBuffer piece, int length,
            long[] offsets, long nanosLeft) throws IOException {
        return transfer(descriptor(), path, write, elements, length, offsets, true, nanosLeft, null, elementSize,
                Objects.requireNonNull(piece, "piece"));
    }

    /** fsync(2): the data and metadata written so far reach storage. */
    public void fsync() throws IOException {
        fsync(descriptor(), path);
    }

    private static native int open(byte[] nativePath, String path, boolean forWrite, boolean direct)
            throws IOException;

    /**
     * elementSize 0: the buffer holds the file's bytes as they are, and piece is not used. batch:
     * transfer k's bytes follow transfer k - 1's in the buffer; otherwise every transfer moves its start.
     */
    private static native int transfer(int fd, String path, boolean write, ByteBuffer buffer, int length,
            long[] offsets, boolean batch, long nanosLeft, TransferCallback callback, int elementSize, ByteBuffer piece)
            throws IOException;

    private static native void fsync(int fd, String path) throws IOException;
}
