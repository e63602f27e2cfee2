package org.jiobench.workloads;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** The open file of the approaches built on {@link FileChannel}: positional I/O, O_DIRECT where asked. */
abstract class ChannelIo implements TransferIo {
    protected final FileChannel channel;
    private final Path path;

    ChannelIo(Path path, IoMode mode, boolean direct) throws IOException {
        List<OpenOption> options = new ArrayList<>();
        // CREATE without TRUNCATE_EXISTING: ranks share the file, each writing its own blocks.
        // Readable when written too, as a writable mapping needs.
        options.add(StandardOpenOption.READ);
        if (mode == IoMode.WRITE) options.addAll(List.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE));
        if (direct) options.add(ExtendedOpenOption.DIRECT);
        this.channel = FileChannel.open(path, options.toArray(OpenOption[]::new));
        this.path = path;
    }

    /**
     * An open file whose transfers go through {@code bytes} (in the file's byte order) in pieces of
     * its capacity: the typed view's bulk put then a positional write, or a positional read then
     * the bulk get.
     */
    static ChannelIo throughBuffer(Path file, IoMode mode, boolean direct, TransferBuffer buffer, ByteBuffer bytes)
            throws IOException {
        ElementArray elements = buffer.elements();
        int size = buffer.elementSize();
        boolean write = mode == IoMode.WRITE;
        return new ChannelIo(file, mode, direct) {
            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                for (int at = from; at < to; at += bytes.capacity()) {
                    int end = Math.min(to, at + bytes.capacity());
                    bytes.clear().limit(end - at);
                    if (write) {
                        elements.putInto(bytes, at / size, end / size);
                        writeFully(bytes, fileOffset + at);
                    } else {
                        readFully(bytes, fileOffset + at);
                        elements.getFrom(bytes, at / size, end / size);
                    }
                }
                return to;
            }
        };
    }

    /**
     * Makes the file at least {@code end} bytes long before a writable mapping of its end:
     * FileChannel.map would extend it with ftruncate, which shrinks it again when another rank has
     * extended it further meanwhile; a write of the region's last byte, which the mapping then
     * overwrites, only ever grows it.
     */
    void extendForMapping(long end) throws IOException {
        if (channel.size() < end) writeFully(ByteBuffer.allocate(1), end - 1);
    }

    /** Writes all of {@code buffer}'s remaining bytes at {@code position}. */
    void writeFully(ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
        }
    }

    /** Fills {@code buffer}'s remaining bytes from {@code position}, then flips it for reading. */
    void readFully(ByteBuffer buffer, long position) throws IOException {
        long start = position;
        int wanted = buffer.remaining();
        while (buffer.hasRemaining()) {
            int got = channel.read(buffer, position);
            if (got < 0) {
                throw new EOFException(path + ": end of file after " + (position - start) + " of " + wanted
                        + " bytes at offset " + start);
            }
            position += got;
        }
        buffer.flip();
    }

    @Override
    public void sync() throws IOException {
        channel.force(true);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
