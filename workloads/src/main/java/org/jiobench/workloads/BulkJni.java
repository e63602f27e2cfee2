package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jiobench.bulk.BufferPolicy;
import org.jiobench.bulk.BulkRandomAccessFile;

/**
 * Paper 5-6: {@code BulkRandomAccessFile.writeArray/readArray}, one call per transfer, through the
 * JNI library of jni-bulk, with a recycled conversion buffer of a cache-sized chunk (the paper's
 * tunable), so each call is one byte-swapping copy per chunk and one pwrite or pread per chunk.
 * Where the JVM pins an array without stopping its collector (G1, JDK 22+), reads go straight
 * into the array and are swapped there, and writes that need no swap go straight from it.
 */
public final class BulkJni implements Approach {
    static final ApproachOption CHUNK_SIZE = ApproachOption.size("chunk-size",
            SizeText.format(BufferPolicy.DEFAULT_CHUNK_BYTES),
            "Bytes of the conversion buffer: one byte-order conversion and one system call per chunk");
    static final ApproachOption IN_PLACE = ApproachOption.choice("in-place", List.of("auto", "no"), "auto",
            "I/O straight to and from the pinned array where the JVM pins without stopping its collector (auto), "
                    + "or always through the buffer (no)");

    @Override public String id() { return "bulk-jni"; }

    @Override public String description() {
        return "BulkRandomAccessFile.writeArray/readArray through JNI (paper 5-6)";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public List<ApproachOption> options() { return List.of(CHUNK_SIZE, IN_PLACE); }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        ElementArray elements = buffer.elements();
        int size = buffer.elementSize();
        BufferPolicy policy = new BufferPolicy(Math.max(BufferPolicy.MIN_CHUNK_BYTES, settings.size(this, CHUNK_SIZE)),
                true, settings.option(this, IN_PLACE).equals("auto"));
        BulkRandomAccessFile bulk = new BulkRandomAccessFile(file.toFile(), mode.randomAccessMode(), policy,
                settings.byteOrder());
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
