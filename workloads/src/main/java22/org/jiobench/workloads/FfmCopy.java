package org.jiobench.workloads;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Foreign Function &amp; Memory API (JDK 22+): the array to or from a native segment, with the
 * element layout in the file's byte order, then FileChannel positional I/O of the segment, a piece
 * at a time. Where the file's order is the machine's, {@code MemorySegment.copy} is a plain copy;
 * where it is not, a loop of segment accesses that C2 vectorizes is the default ({@link
 * SwappedCopy}), {@code MemorySegment.copy} the other choice. The segment lives
 * in a confined arena, freed when the file closes. Compiled only by a JDK 22 or newer; {@link Ffm}
 * finds it.
 */
public final class FfmCopy implements Approach {
    static final ApproachOption PIECE_SIZE = ApproachOption.pieceSize(
            "Bytes of the native segment: a transfer moves in pieces of this size");
    static final ApproachOption COPY = ApproachOption.choice("copy", List.of("loop", "bulk"), "loop",
            "Where the bytes need swapping: an element loop of big-endian segment accesses, which C2 vectorizes "
                    + "(loop), or MemorySegment.copy, which swaps in a scalar loop inside the JVM (bulk)");
    static final ApproachOption SEGMENT = ApproachOption.choice("segment", List.of("native", "mapped"), "native",
            "Copy to or from a native segment and FileChannel I/O (native), or straight to or from a mapping of "
                    + "the transfer's part of the file (mapped; not with --direct)");
    /** Page-aligned, as O_DIRECT needs and as the kernel copies fastest. */
    private static final long ALIGNMENT = 4096;

    @Override public String id() { return Ffm.ID; }

    @Override public String description() { return Ffm.DESCRIPTION; }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public boolean opensDirect() { return true; }

    @Override public List<ApproachOption> options() { return List.of(PIECE_SIZE, COPY, SEGMENT); }

    @Override public Optional<String> refusal(ApproachSettings settings) {
        return settings.direct() && settings.option(this, SEGMENT).equals("mapped")
                ? Optional.of("--direct: ffm with --ffm.segment mapped cannot open its file with O_DIRECT")
                : Optional.empty();
    }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        int size = buffer.elementSize();
        int piece = buffer.piece(settings.size(this, PIECE_SIZE));
        ValueLayout layout = switch (buffer.type()) {
            case BYTE -> ValueLayout.JAVA_BYTE;
            case INT -> ValueLayout.JAVA_INT;
            case LONG -> ValueLayout.JAVA_LONG;
            case FLOAT -> ValueLayout.JAVA_FLOAT;
            case DOUBLE -> ValueLayout.JAVA_DOUBLE;
        };
        ValueLayout inFile = layout.withOrder(settings.byteOrder());
        Object array = buffer.elements().array();
        boolean write = mode == IoMode.WRITE;
        SwappedCopy.Copier copier = settings.byteOrder() != ByteOrder.nativeOrder() && size > 1
                && settings.option(this, COPY).equals("loop") ? SwappedCopy.loop(array) : SwappedCopy.bulk(array, inFile);
        if (settings.option(this, SEGMENT).equals("mapped")) {
            return mapped(file, mode, copier, size);
        }
        return new InArena(file, mode, settings.direct()) {
            private final MemorySegment segment = arena.allocate(piece, ALIGNMENT);
            private final ByteBuffer bytes = segment.asByteBuffer();

            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                for (int at = from; at < to; at += piece) {
                    int end = Math.min(to, at + piece);
                    bytes.clear().limit(end - at);
                    if (write) {
                        copier.store(at / size, segment, (end - at) / size);
                        writeFully(bytes, fileOffset + at);
                    } else {
                        readFully(bytes, fileOffset + at);
                        copier.load(segment, at / size, (end - at) / size);
                    }
                }
                return to;
            }
        };
    }

    /**
     * Each transfer maps its part of the file into one arena for the phase and copies straight
     * between the array and the mapping; the arena's close unmaps them all, inside the timed
     * interval.
     */
    private static TransferIo mapped(Path file, IoMode mode, SwappedCopy.Copier copier, int size) throws IOException {
        boolean write = mode == IoMode.WRITE;
        List<MemorySegment> written = new ArrayList<>();
        return new InArena(file, mode, false) {
            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                if (write) extendForMapping(fileOffset + to);
                MemorySegment region = channel.map(write ? FileChannel.MapMode.READ_WRITE
                        : FileChannel.MapMode.READ_ONLY, fileOffset + from, to - from, arena);
                if (write) {
                    copier.store(from / size, region, (to - from) / size);
                    written.add(region);
                } else {
                    copier.load(region, from / size, (to - from) / size);
                }
                return to;
            }

            @Override
            public void sync() throws IOException {
                for (MemorySegment region : written) region.force();
                super.sync();
            }
        };
    }

    /** An open file with the native memory of one confined arena, freed (or unmapped) when it closes. */
    private abstract static class InArena extends ChannelIo {
        final Arena arena = Arena.ofConfined();

        InArena(Path file, IoMode mode, boolean direct) throws IOException {
            super(file, mode, direct);
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } finally {
                arena.close();
            }
        }
    }
}
