package org.jiobench.workloads;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jiobench.bulk.PosixFile;

/**
 * The open file of the C approaches: a batch of transfers runs in one native loop, entered once,
 * which watches the phase's deadline itself, so no Java runs between the transfers.
 */
final class NativeLoopIo implements TransferIo {
    /** One native call over the transfers at {@code offsets}, transfer k from bytes [k * length, (k + 1) * length) of {@code data}. */
    @FunctionalInterface
    interface Loop {
        int run(ByteBuffer data, int length, long[] offsets, long nanosLeft) throws IOException;
    }

    /** What forces the written data to storage. */
    @FunctionalInterface
    interface Sync {
        void run() throws IOException;
    }

    private final Closeable file;
    private final Sync sync;
    private final ByteBuffer data;
    private final Loop loop;

    NativeLoopIo(Closeable file, Sync sync, ByteBuffer data, Loop loop) {
        this.file = file;
        this.sync = sync;
        this.data = data;
        this.loop = loop;
    }

    /** The loop of a buffer that already holds the file's bytes. */
    static NativeLoopIo inFileOrder(PosixFile posix, ByteBuffer data, boolean write) {
        return new NativeLoopIo(posix, posix::fsync, data,
                (bytes, length, offsets, nanosLeft) -> posix.transferBatch(write, bytes, length, offsets, nanosLeft));
    }

    /** Part of a transfer, which a stonewall left: one call from the slice of the buffer. */
    @Override
    public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
        loop.run(data.slice(from, to - from), to - from, new long[] {fileOffset + from}, Long.MAX_VALUE);
        return to;
    }

    @Override
    public int transferBatch(long[] fileOffsets, int first, int end, int size, Stonewall stonewall)
            throws IOException {
        long[] offsets = first == 0 && end == fileOffsets.length ? fileOffsets
                : Arrays.copyOfRange(fileOffsets, first, end);
        return size * loop.run(data, size, offsets, stonewall.nanosLeft());
    }

    @Override
    public void sync() throws IOException {
        sync.run();
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
