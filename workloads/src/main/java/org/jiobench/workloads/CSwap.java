package org.jiobench.workloads;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.jiobench.bulk.AlignedBuffers;
import org.jiobench.bulk.PosixFile;

/**
 * The C comparison group of typed data: a C array of the element type in the machine's byte
 * order, as a C program holds it, converted to the file's byte order in C, then pwrite/pread, one
 * JNI call per phase. A write converts a piece into a buffer and writes it while it is in the
 * cache; a read reads a piece straight into the array and swaps it in place. Where the file's
 * order is the machine's, nothing is converted and this is c-posix.
 */
public final class CSwap implements Approach {
    static final ApproachOption PIECE_SIZE = ApproachOption.pieceSize(
            "Bytes converted and moved by one system call");

    @Override public String id() { return "c-swap"; }

    @Override public String description() {
        return "C comparison for typed data: a native array converted to the file's byte order in C, pwrite/pread";
    }

    @Override public DataForm dataForm() { return DataForm.NATIVE; }

    @Override public boolean opensDirect() { return true; }

    /** Its TransferIo runs a batch of transfers in one native call. */
    @Override public boolean runsItsOwnBatches() { return true; }

    @Override public List<ApproachOption> options() { return List.of(PIECE_SIZE); }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        boolean write = mode == IoMode.WRITE;
        PosixFile posix = PosixFile.open(file, write, settings.direct());
        if (settings.byteOrder() == ByteOrder.nativeOrder() || buffer.elementSize() == 1) {
            return NativeLoopIo.inFileOrder(posix, buffer.direct(), write);
        }
        int size = buffer.elementSize();
        ByteBuffer piece = AlignedBuffers.pageAligned(buffer.piece(settings.size(this, PIECE_SIZE)));
        return new NativeLoopIo(posix, posix::fsync, buffer.direct(), (data, length, offsets, nanosLeft) ->
                posix.transferSwappedBatch(write, data, size, piece, length, offsets, nanosLeft));
    }
}
