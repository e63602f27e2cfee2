package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;
import org.jiobench.bulk.PosixFile;

/**
 * The limit of pure I/O: open(2), then a C loop of pwrite/pread from one native buffer that
 * already holds the file's bytes, entered once per phase, then fsync(2) and close(2).
 */
public final class CPosix implements Approach {
    @Override public String id() { return "c-posix"; }

    @Override public String description() {
        return "C baseline: a native pwrite/pread loop of bytes already in file order, one JNI call per phase";
    }

    @Override public DataForm dataForm() { return DataForm.DIRECT; }

    @Override public boolean opensDirect() { return true; }

    /** Its TransferIo runs a batch of transfers in one native call. */
    @Override public boolean runsItsOwnBatches() { return true; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        boolean write = mode == IoMode.WRITE;
        PosixFile posix = PosixFile.open(file, write, settings.direct());
        return NativeLoopIo.inFileOrder(posix, buffer.direct(), write);
    }
}
