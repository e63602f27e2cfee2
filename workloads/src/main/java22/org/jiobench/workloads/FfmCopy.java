package org.jiobench.workloads;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The Foreign Function &amp; Memory API (JDK 22+): {@code MemorySegment.copy} between the array and
 * a native segment, with the element layout in the file's byte order (the copy swaps where that
 * is not the machine's), then FileChannel positional I/O of the segment, a piece at a time. The
 * segment lives in a confined arena, freed when the file closes. Compiled only by a JDK 22 or
 * newer; {@link Ffm} finds it.
 */
public final class FfmCopy implements Approach {
    static final ApproachOption PIECE_SIZE = ApproachOption.size("piece-size", "256KiB",
            "Bytes of the native segment: a transfer moves in pieces of this size");
    /** Page-aligned, as O_DIRECT needs and as the kernel copies fastest. */
    private static final long ALIGNMENT = 4096;

    @Override public String id() { return Ffm.ID; }

    @Override public String description() { return Ffm.DESCRIPTION; }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public boolean opensDirect() { return true; }

    @Override public List<ApproachOption> options() { return List.of(PIECE_SIZE); }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        int size = buffer.elementSize();
        int piece = buffer.piece(settings.size(this, PIECE_SIZE));
        ValueLayout layout = switch (buffer.type()) {
            case INT -> ValueLayout.JAVA_INT;
            case LONG -> ValueLayout.JAVA_LONG;
            case FLOAT -> ValueLayout.JAVA_FLOAT;
            case DOUBLE -> ValueLayout.JAVA_DOUBLE;
        };
        ValueLayout inFile = layout.withOrder(settings.byteOrder());
        Object array = buffer.elements().array();
        boolean write = mode == IoMode.WRITE;
        Arena arena = Arena.ofConfined();
        MemorySegment segment = arena.allocate(piece, ALIGNMENT);
        ByteBuffer bytes = segment.asByteBuffer();
        return new ChannelIo(file, mode, settings.direct()) {
            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                for (int at = from; at < to; at += piece) {
                    int end = Math.min(to, at + piece);
                    bytes.clear().limit(end - at);
                    if (write) {
                        MemorySegment.copy(array, at / size, segment, inFile, 0, (end - at) / size);
                        writeFully(bytes, fileOffset + at);
                    } else {
                        readFully(bytes, fileOffset + at);
                        MemorySegment.copy(segment, inFile, 0, array, at / size, (end - at) / size);
                    }
                }
                return to;
            }

            @Override
            public void close() throws IOException {
                try {
                    super.close();
                } finally {
                    arena.close();
                }
            }
        };
    }
}
