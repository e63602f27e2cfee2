package org.jiobench.workloads;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.jiobench.bulk.AlignedBuffers;

/**
 * Today's plain-Java answer: a {@link java.nio.channels.FileChannel} and one reused direct buffer
 * in the file's byte order, whose typed view's bulk {@code put(int[])}/{@code get(int[])} is the
 * one copy (with the byte swap, if any, inside the JDK); then a positional write or read of the
 * buffer. A transfer moves in pieces of the buffer's size, so each piece is still in the cache
 * when the kernel copies it.
 */
public final class NioBulk implements Approach {
    static final ApproachOption PIECE_SIZE = ApproachOption.pieceSize(
            "Bytes of the direct buffer: a transfer moves in pieces of this size");

    @Override public String id() { return "nio-bulk"; }

    @Override public String description() {
        return "FileChannel positional I/O of a reused direct ByteBuffer, typed-view bulk put/get";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public boolean opensDirect() { return true; }

    @Override public List<ApproachOption> options() { return List.of(PIECE_SIZE); }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        int piece = buffer.piece(settings.size(this, PIECE_SIZE));
        ByteBuffer bytes = AlignedBuffers.pageAligned(piece).order(settings.byteOrder());
        return ChannelIo.throughBuffer(file, mode, settings.direct(), buffer, bytes);
    }
}
