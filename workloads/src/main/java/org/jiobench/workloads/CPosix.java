package org.jiobench.workloads;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.jiobench.bulk.PosixFile;

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
            @Override
            public void transfer(long fileOffset) throws IOException {
                posix.transfer(write, data, buffer.size(), new long[] {fileOffset}, null);
            }

            @Override
            public int transferAll(long[] fileOffsets, TransferHooks hooks) throws IOException {
                return posix.transfer(write, data, buffer.size(), fileOffsets, hooks);
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
}
