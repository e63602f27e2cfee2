package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;
import org.jiobench.bulk.BulkRandomAccessFile;

/**
 * Paper 5-6: {@code BulkRandomAccessFile.writeArray/readArray}, one call per transfer, through the
 * JNI library of jni-bulk, with the library's default buffer policy: a recycled conversion buffer
 * of a cache-sized chunk (the paper's tunable), so each call is one byte-swapping copy per chunk
 * and one pwrite or pread per chunk.
 */
public final class BulkJni implements Approach {
    @Override public String id() { return "bulk-jni"; }

    @Override public String description() {
        return "BulkRandomAccessFile.writeArray/readArray through JNI (paper 5-6)";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        ElementArray elements = buffer.elements();
        int size = buffer.elementSize();
        BulkRandomAccessFile bulk = new BulkRandomAccessFile(file.toFile(), mode.randomAccessMode());
        return new RandomAccessFileIo(bulk) {
            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                bulk.seek(fileOffset + from);
                if (mode == IoMode.WRITE) {
                    elements.writeArray(bulk, from / size, to / size);
                } else {
                    elements.readArray(bulk, from / size, to / size);
                }
                return to;
            }
        };
    }
}
