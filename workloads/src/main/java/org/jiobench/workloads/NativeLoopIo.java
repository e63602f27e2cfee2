package org.jiobench.workloads;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jiobench.bulk.PosixFile;
import org.jiobench.bulk.TransferCallback;

/**
 * The open file of the C approaches: a whole phase of transfers runs in one native loop, entered
 * once, so no Java runs while the clock runs (the runner's hooks between transfers stop it).
 */
final class NativeLoopIo implements TransferIo {
    /** One native call over the transfers at {@code offsets}, each {@code length} bytes of {@code data}. */
    @FunctionalInterface
    interface Loop {
        int run(ByteBuffer data, int length, long[] offsets, TransferCallback callback) throws IOException;
    }

    private final PosixFile posix;
    private final ByteBuffer data;
    private final Loop loop;

    NativeLoopIo(PosixFile posix, ByteBuffer data, Loop loop) {
        this.posix = posix;
        this.data = data;
        this.loop = loop;
    }

    /** The loop of a buffer that already holds the file's bytes. */
    static NativeLoopIo inFileOrder(PosixFile posix, ByteBuffer data, boolean write) {
        return new NativeLoopIo(posix, data,
                (bytes, length, offsets, callback) -> posix.transfer(write, bytes, length, offsets, callback));
    }

    /** Part of a transfer, which a stonewall left: one call from the slice of the buffer. */
    @Override
    public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
        loop.run(data.slice(from, to - from), to - from, new long[] {fileOffset + from}, null);
        return to;
    }

    @Override
    public int transferAll(long[] fileOffsets, int first, int end, int size, TransferHooks hooks) throws IOException {
        if (first == 0 && end == fileOffsets.length) return loop.run(data, size, fileOffsets, hooks);
        long[] offsets = Arrays.copyOfRange(fileOffsets, first, end);
        return first + loop.run(data, size, offsets, shifted(hooks, first));
    }

    @Override
    public void sync() throws IOException {
        posix.fsync();
    }

    @Override
    public void close() throws IOException {
        posix.close();
    }

    /** The hooks of transfer {@code first + k} for the native loop's k. */
    private static TransferCallback shifted(TransferHooks hooks, int first) {
        return new TransferCallback() {
            @Override public boolean beforeTransfer(int k) throws IOException {
                return hooks.beforeTransfer(first + k);
            }

            @Override public void afterTransfer(int k) throws IOException {
                hooks.afterTransfer(first + k);
            }
        };
    }
}
