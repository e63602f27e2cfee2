package org.jiobench.workloads;

import java.io.Closeable;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Memory-mapped I/O: {@code FileChannel.map} of the rank's region (each run of transfers that lie
 * end to end in the file, so a sequential block is one mapping), then the typed view's bulk
 * put/get between the array and the mapping, in the file's byte order. A mapping is a
 * ByteBuffer, so a region longer than {@code Integer.MAX_VALUE} bytes is mapped in several.
 * {@code -e} forces the mappings to storage; close unmaps them, inside the timed interval, since
 * tearing a mapping down is part of its cost.
 */
public final class Mmap implements Approach {
    private final long longestMapping;

    public Mmap() {
        this(Integer.MAX_VALUE);
    }

    /** @param longestMapping the most bytes one mapping covers (a test maps in small pieces) */
    Mmap(long longestMapping) {
        this.longestMapping = longestMapping;
    }

    @Override public String id() { return "mmap"; }

    @Override public String description() {
        return "FileChannel.map of the rank's region, typed-view bulk put/get into the mapping";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    /** Its TransferIo maps each run of adjacent transfers of a batch at once. */
    @Override public boolean runsItsOwnBatches() { return true; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        return new Mapped(file, mode, buffer, settings);
    }

    private final class Mapped extends ChannelIo {
        private final boolean write;
        private final ElementArray elements;
        private final int size;
        private final ApproachSettings settings;
        private final Mappings mappings = Mappings.create();

        Mapped(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
            super(file, mode, false);
            this.write = mode == IoMode.WRITE;
            this.elements = buffer.elements();
            this.size = buffer.elementSize();
            this.settings = settings;
        }

        @Override
        public int transferBatch(long[] fileOffsets, int first, int end, int transferSize, Stonewall stonewall)
                throws IOException {
            int runStart = first;
            while (runStart < end) {
                if (runStart > first && stonewall.reached()) return (runStart - first) * transferSize;
                int runEnd = runStart + 1;
                while (runEnd < end && fileOffsets[runEnd] == fileOffsets[runEnd - 1] + transferSize
                        && (long) (runEnd + 1 - runStart) * transferSize <= longestMapping) {
                    runEnd++;
                }
                MappedByteBuffer region = map(fileOffsets[runStart], (long) (runEnd - runStart) * transferSize);
                for (int k = runStart; k < runEnd; k++) {
                    int from = (k - first) * transferSize;
                    move(region, (k - runStart) * transferSize, from, from + transferSize);
                }
                runStart = runEnd;
            }
            return (end - first) * transferSize;
        }

        @Override
        public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
            move(map(fileOffset + from, to - from), 0, from, to);
            return to;
        }

        /** Bytes [from, to) of the array to or from the mapping, from {@code at} within it. */
        private void move(MappedByteBuffer region, int at, int from, int to) {
            ByteBuffer view = region.slice(at, to - from).order(settings.byteOrder());
            if (write) {
                elements.putInto(view, from / size, to / size);
            } else {
                elements.getFrom(view, from / size, to / size);
            }
        }

        private MappedByteBuffer map(long position, long length) throws IOException {
            if (write) extendForMapping(position + length);
            return mappings.map(channel, write ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY,
                    position, length);
        }

        @Override
        public void sync() throws IOException {
            mappings.force();
            super.sync();
        }

        @Override
        public void close() throws IOException {
            try {
                mappings.close();
            } finally {
                super.close();
            }
        }
    }

    /**
     * The mappings of one open file, unmapped when it closes rather than when the collector finds
     * them. From JDK 22 a mapping belongs to an arena, which unmaps it on close ({@code
     * ArenaMappings}, compiled with ffm); JDK 17 has no public way, so there it is {@code
     * sun.misc.Unsafe.invokeCleaner} (module jdk.unsupported, there for this use), which JDK 24
     * and later warn about.
     */
    abstract static class Mappings implements Closeable {
        private final List<MappedByteBuffer> regions = new ArrayList<>();

        static Mappings create() {
            Object arena = Java22.instance("org.jiobench.workloads.ArenaMappings");
            return arena != null ? (Mappings) arena : new UnsafeMappings();
        }

        final MappedByteBuffer map(FileChannel channel, FileChannel.MapMode mode, long position, long length)
                throws IOException {
            MappedByteBuffer region = mapRegion(channel, mode, position, length);
            regions.add(region);
            return region;
        }

        /** Forces every mapping made so far to storage. */
        final void force() {
            for (MappedByteBuffer region : regions) region.force();
        }

        @Override
        public final void close() {
            unmap(regions);
            regions.clear();
        }

        abstract MappedByteBuffer mapRegion(FileChannel channel, FileChannel.MapMode mode, long position, long length)
                throws IOException;

        abstract void unmap(List<MappedByteBuffer> mapped);
    }

    private static final class UnsafeMappings extends Mappings {
        private static final sun.misc.Unsafe UNSAFE = unsafe();

        @Override
        MappedByteBuffer mapRegion(FileChannel channel, FileChannel.MapMode mode, long position, long length)
                throws IOException {
            return channel.map(mode, position, length);
        }

        @Override
        void unmap(List<MappedByteBuffer> mapped) {
            for (MappedByteBuffer region : mapped) UNSAFE.invokeCleaner(region);
        }

        private static sun.misc.Unsafe unsafe() {
            try {
                Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                field.setAccessible(true);
                return (sun.misc.Unsafe) field.get(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("sun.misc.Unsafe is not reachable", e);
            }
        }
    }
}
