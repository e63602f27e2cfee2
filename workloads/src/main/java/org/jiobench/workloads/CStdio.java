package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;
import org.jiobench.bulk.StdioFile;

/**
 * The C partner of the buffered streams (Xu/Guo 3.2.2 beside C): fwrite/fread of each operation
 * through a FILE whose buffer setvbuf sets to --buffer-size, a batch of operations per native call.
 */
public final class CStdio implements Approach {
    @Override public String id() { return "c-stdio"; }

    @Override public String description() {
        return "C baseline, buffered: fwrite/fread of each operation through setvbuf(--buffer-size), fseeko where it jumps";
    }

    @Override public DataForm dataForm() { return DataForm.DIRECT; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        StdioFile stdio = StdioFile.open(file, mode == IoMode.WRITE, settings.bufferSize());
        return new NativeLoopIo(stdio, stdio::sync, buffer.direct(), stdio::transferBatch);
    }
}
