package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;

/** Xu/Guo 3.2.1: FileOutputStream.write / FileInputStream.read of one operation's bytes, a seek where the position jumps. */
public final class RawStream implements Approach {
    @Override public String id() { return "raw-stream"; }

    @Override public String description() {
        return "FileOutputStream.write/FileInputStream.read of each operation's bytes, unbuffered (Xu/Guo 3.2.1)";
    }

    @Override public DataForm dataForm() { return DataForm.BYTES; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        return BufferedStream.byteStreams(file, mode, buffer, 0);
    }
}
