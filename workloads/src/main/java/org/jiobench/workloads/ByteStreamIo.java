package org.jiobench.workloads;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;

/**
 * The byte streams of Xu and Guo's section 3.2 over a RandomAccessFile's descriptor: one stream
 * call per operation. The streams share the descriptor's position with the file, so a transfer
 * that does not follow the last one seeks (a buffered write flushes first, a buffered read drops
 * its read-ahead by starting a new buffered stream), which is their random access; contiguous
 * transfers stream on.
 */
abstract class ByteStreamIo extends RandomAccessFileIo {
    /** Where the streams stand in the file, or -1 before the first transfer. */
    private long position = -1;
    final byte[] bytes;

    private ByteStreamIo(Path path, IoMode mode, TransferBuffer buffer) throws IOException {
        super(path, mode);
        this.bytes = buffer.bytes();
    }

    /** @param bufferSize the stream buffer's bytes, or 0 for unbuffered streams */
    static ByteStreamIo open(Path path, IoMode mode, TransferBuffer buffer, int bufferSize) throws IOException {
        return mode == IoMode.WRITE ? new Writer(path, buffer, bufferSize) : new Reader(path, buffer, bufferSize);
    }

    @Override
    public final int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
        if (fileOffset + from != position) reposition(fileOffset + from);
        move(from, to);
        position = fileOffset + to;
        return to;
    }

    abstract void reposition(long fileOffset) throws IOException;

    abstract void move(int from, int to) throws IOException;

    private static final class Writer extends ByteStreamIo {
        private final OutputStream out;

        Writer(Path path, TransferBuffer buffer, int bufferSize) throws IOException {
            super(path, IoMode.WRITE, buffer);
            OutputStream descriptor = new FileOutputStream(file.getFD());
            out = bufferSize > 0 ? new BufferedOutputStream(descriptor, bufferSize) : descriptor;
        }

        @Override void reposition(long fileOffset) throws IOException {
            out.flush();
            file.seek(fileOffset);
        }

        @Override void move(int from, int to) throws IOException {
            out.write(bytes, from, to - from);
        }

        @Override public void sync() throws IOException {
            out.flush();
            super.sync();
        }

        /** Flush before the descriptor closes, or the last buffer is lost. */
        @Override public void close() throws IOException {
            try {
                out.flush();
            } finally {
                super.close();
            }
        }
    }

    private static final class Reader extends ByteStreamIo {
        private final FileInputStream descriptor;
        private final int bufferSize;
        private InputStream in;

        Reader(Path path, TransferBuffer buffer, int bufferSize) throws IOException {
            super(path, IoMode.READ, buffer);
            this.descriptor = new FileInputStream(file.getFD());
            this.bufferSize = bufferSize;
        }

        @Override void reposition(long fileOffset) throws IOException {
            file.seek(fileOffset);
            in = bufferSize > 0 ? new BufferedInputStream(descriptor, bufferSize) : descriptor;
        }

        @Override void move(int from, int to) throws IOException {
            int got = in.readNBytes(bytes, from, to - from);
            if (got < to - from) {
                throw new EOFException("end of file after " + got + " of " + (to - from) + " bytes");
            }
        }
    }
}
