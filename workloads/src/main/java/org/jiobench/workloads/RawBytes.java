package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;

/** Paper 3.1: the data is already bytes; one seek and one byte-array call per transfer. */
public final class RawBytes implements Approach {
    @Override public String id() { return "raw-bytes"; }

    @Override public String description() {
        return "RandomAccessFile.write/readFully of a byte[] holding the data (paper 3.1)";
    }

    @Override public DataForm dataForm() { return DataForm.BYTES; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        byte[] bytes = buffer.bytes();
        return RandomAccessFileIo.of(file, mode, mode == IoMode.WRITE
                ? (raf, offset, from, to, stonewall) -> {
                    raf.seek(offset + from);
                    raf.write(bytes, from, to - from);
                    return to;
                }
                : (raf, offset, from, to, stonewall) -> {
                    raf.seek(offset + from);
                    raf.readFully(bytes, from, to - from);
                    return to;
                });
    }
}
