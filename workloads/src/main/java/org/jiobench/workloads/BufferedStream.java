package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;

/** Xu/Guo 3.2.2: each operation's bytes through a BufferedOutputStream / BufferedInputStream of --buffer-size. */
public final class BufferedStream implements Approach {
    @Override public String id() { return "buffered-stream"; }

    @Override public String description() {
        return "Buffered*Stream(--buffer-size) on the fd, one write/read per operation (Xu/Guo 3.2.2)";
    }

    @Override public DataForm dataForm() { return DataForm.BYTES; }

    @Override public long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return settings.bufferSize();
    }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        return ByteStreamIo.open(file, mode, buffer, settings.bufferSize());
    }
}
