package org.jiobench.workloads;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

/** Mmap's mappings from JDK 22: each belongs to one shared arena, whose close unmaps them all. */
final class ArenaMappings extends Mmap.Mappings {
    private final Arena arena = Arena.ofShared();

    /** A mapped segment's buffer is a MappedByteBuffer, which force() writes back. */
    @Override
    MappedByteBuffer mapRegion(FileChannel channel, FileChannel.MapMode mode, long position, long length)
            throws IOException {
        return (MappedByteBuffer) channel.map(mode, position, length, arena).asByteBuffer();
    }

    @Override
    void unmap(List<MappedByteBuffer> mapped) {
        arena.close();
    }
}
