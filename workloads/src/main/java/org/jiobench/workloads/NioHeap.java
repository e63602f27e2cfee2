package org.jiobench.workloads;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * What most code does: a heap {@link ByteBuffer} of the whole array in the file's byte order,
 * filled or emptied through its typed view's bulk put/get, and one positional FileChannel call.
 * The JDK copies a heap buffer through a temporary direct buffer of its own (with O_DIRECT, an
 * aligned one), so this is one copy more than {@code nio-bulk}.
 */
public final class NioHeap implements Approach {
    @Override public String id() { return "nio-heap"; }

    @Override public String description() {
        return "FileChannel positional I/O of a heap ByteBuffer of the whole array (the JDK copies it)";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public boolean opensDirect() { return true; }

    /** The heap buffer, and the JDK's temporary direct buffer of the same size that it keeps. */
    @Override public long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return 2L * arrayBytes;
    }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(buffer.capacity()).order(settings.byteOrder());
        return ChannelIo.throughBuffer(file, mode, settings.direct(), buffer, bytes);
    }
}
