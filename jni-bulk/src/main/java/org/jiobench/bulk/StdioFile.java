package org.jiobench.bulk;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A file opened with fopen's buffered streams (open(2), then fdopen), its buffer set with
 * setvbuf: fwrite and fread of each operation, fseeko only where an operation does not follow the
 * last one, as a C program with stdio does it. A batch of operations runs in one native call.
 *
 * <p>Not meant for use by several threads at once.
 */
public final class StdioFile implements Closeable {

    static {
        NativeLibrary.load();
    }

    private final String path;
    private final boolean write;
    private long handle;

    private StdioFile(String path, boolean write, long handle) {
        this.path = path;
        this.write = write;
        this.handle = handle;
    }

    /**
     * Opens {@code path} read-only, or for writing with {@code O_WRONLY | O_CREAT} and no truncation,
     * with a stream buffer of {@code bufferSize} bytes.
     */
    public static StdioFile open(Path path, boolean forWrite, int bufferSize) throws IOException {
        String name = Objects.requireNonNull(path, "path").toString();
        return new StdioFile(name, forWrite, open(NativePath.of(path), name, forWrite, bufferSize));
    }

    /**
     * Writes (or reads) transfer {@code k}, bytes {@code [k * length, (k + 1) * length)} of
     * {@code directBuffer}, at {@code offsets[k]}, one fwrite (or fread) each; the loop looks at the
     * clock every 64 transfers and stops at the first transfer boundary it sees {@code nanosLeft}
     * nanoseconds after its start.
     *
     * @param nanosLeft the time the batch may take, or {@code Long.MAX_VALUE} for no limit
     * @return the number of transfers done
     * @throws java.io.EOFException if a read reaches the end of the file
     */
    public int transferBatch(ByteBuffer directBuffer, int length, long[] offsets, long nanosLeft) throws IOException {
        return transferBatch(openHandle(), path, write, directBuffer, length, offsets, nanosLeft);
    }

    /** fflush(3), then fsync(2): what the buffer held reaches storage. */
    public void sync() throws IOException {
        sync(openHandle(), path);
    }

    /** fclose(3), which writes what the buffer still holds; closing again does nothing. */
    @Override
    public void close() throws IOException {
        if (handle != 0) {
            long closing = handle;
            handle = 0;
            close(closing, path);
        }
    }

    private long openHandle() throws IOException {
        if (handle == 0) throw new IOException(path + ": closed");
        return handle;
    }

    private static native long open(byte[] nativePath, String path, boolean forWrite, int bufferSize)
            throws IOException;

    private static native int transferBatch(long handle, String path, boolean write, ByteBuffer buffer, int length,
            long[] offsets, long nanosLeft) throws IOException;

    private static native void sync(long handle, String path) throws IOException;

    private static native void close(long handle, String path) throws IOException;
}
