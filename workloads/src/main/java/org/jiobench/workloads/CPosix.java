package org.jiobench.workloads;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.jiobench.bulk.PosixFile;
import org.jiobench.bulk.TransferCallback;

/**
 * The paper's comparison group, C: open(2), then a C loop of pwrite/pread from one native buffer,
 * entered once per phase, so no Java runs while the clock runs (the runner's hooks between
 * transfers stop it), then fsync(2) and close(2).
 */
public final class CPosix implements Approach {
    @Override public String id() { return "c-posix"; }

    @Override public String description() {
        return "C baseline: a native pwrite/pread loop, one JNI call per phase";
    }

    @Override public DataForm dataForm() { return DataForm.DIRECT; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        PosixFile posix = PosixFile.open(file, mode == IoMode.WRITE);
        ByteBuffer data = buffer.direct();
        boolean write = mode == IoMode.WRITE;
        return new TransferIo() {
            /** Part of a transfer, which a stonewall left: one call from the slice of the buffer. */
            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                posix.transfer(write, data.slice(from, to - from), to - from, new long[] {fileOffset + from}, null);
                return to;
            }

            @Override
            public int transferAll(long[] fileOffsets, int first, int end, int size, TransferHooks hooks)
                    throws IOException {
                if (first == 0 && end == fileOffsets.length) return posix.transfer(write, data, size, fileOffsets, hooks);
                long[] offsets = Arrays.copyOfRange(fileOffsets, first, end);
                return first + posix.transfer(write, data, size, offsets, shifted(hooks, first));
            }

            @Override
            public void sync() throws IOException {
                posix.fsync();
            }

            @Override
            public void close() throws IOException {
                posix.close();
            }
        };
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
