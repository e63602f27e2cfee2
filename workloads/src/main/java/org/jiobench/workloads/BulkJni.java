package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jiobench.bulk.BufferPolicy;
import org.jiobench.bulk.BulkRandomAccessFile;

/**
 * Paper 5-6: {@code BulkRandomAccessFile.writeArray/readArray}, one call per transfer, through the
 * JNI library of jni-bulk, with a recycled conversion buffer of a cache-sized chunk (the paper's
 * tunable), so each call is one byte-swapping copy per chunk and one pwrite or pread per chunk.
 * Reads go straight into the pinned array and are swapped there, and writes that need no swap go
 * straight from it, on every JVM, as the paper's implementation did: where a pin holds up the
 * collector (JDK 17 to 21) a collection waits for each system call, which a rank's one working
 * thread never needs; {@code auto} keeps to JVMs whose pins do not (G1, JDK 22+), as the library's
 * default does.
 */
public final class BulkJni implements Approach {
    static final ApproachOption CHUNK_SIZE = ApproachOption.size("chunk-size",
            SizeText.format(BufferPolicy.DEFAULT_CHUNK_BYTES),
            "Bytes of the conversion buffer: one byte-order conversion and one system call per chunk");
    static final ApproachOption IN_PLACE = ApproachOption.choice("in-place", List.of("always", "auto", "no"), "always",
            "I/O straight to and from the pinned array on every JVM, as the paper's implementation (always), only "
                    + "where the JVM pins without stopping its collector (auto: G1, JDK 22+), or always through the "
                    + "buffer (no)");

    private static final Map<String, BufferPolicy.InPlace> IN_PLACE_CHOICES = Map.of(
            "always", BufferPolicy.InPlace.ALWAYS, "auto", BufferPolicy.InPlace.WHERE_COLLECTOR_RUNS,
            "no", BufferPolicy.InPlace.NEVER);

    @Override public String id() { return "bulk-jni"; }

    @Override public String description() {
        return "BulkRandomAccessFile.writeArray/readArray through JNI (paper 5-6)";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    /** With {@code --bulk-jni.in-place} at always (the default), or at auto where G1 pins. */
    @Override public boolean readsInPlace() { return true; }

    @Override public List<ApproachOption> options() { return List.of(CHUNK_SIZE, IN_PLACE); }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        ElementArray elements = buffer.elements();
        int size = buffer.elementSize();
        BufferPolicy policy = new BufferPolicy(Math.max(BufferPolicy.MIN_CHUNK_BYTES, settings.size(this, CHUNK_SIZE)),
                true, IN_PLACE_CHOICES.get(settings.option(this, IN_PLACE)));
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
