package org.jiobench.workloads;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * Paper 3.4: RandomAccessFile, its file descriptor, a file stream, a buffered stream of
 * {@code --buffer-size} bytes, and a data stream on top. The streams share the descriptor's
 * position with the RandomAccessFile, so a seek is only safe with the buffer empty: a write flushes
 * before it seeks, a read drops its read-ahead by starting a new buffered stream. Contiguous
 * transfers need no seek and keep the buffer streaming.
 */
public final class BufferedDataStream implements Approach {
    @Override public String id() { return "buffered-data-stream"; }

    @Override public String description() {
        return "Data*Stream on Buffered*Stream(--buffer-size) on the fd (paper 3.4)";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return settings.bufferSize();
    }

    @Override public boolean writesEitherByteOrder() { return false; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        return mode == IoMode.WRITE
                ? new Writer(file, buffer, settings.bufferSize())
                : new Reader(file, buffer, settings.bufferSize());
    }

    private abstract static class Streamed extends RandomAccessFileIo {
        final ElementArray elements;
        final int elementSize;
        final int bufferSize;
        /** Where the streams stand in the file, or -1 before the first transfer. */
        long position = -1;

        Streamed(Path file, IoMode mode, TransferBuffer buffer, int bufferSize) throws IOException {
            super(file, mode);
            this.elements = buffer.elements();
            this.elementSize = buffer.elementSize();
            this.bufferSize = bufferSize;
        }

        @Override
        public final int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
            if (fileOffset + from != position) reposition(file, fileOffset + from);
            int end = elementSize * move(from / elementSize, to / elementSize, stonewall);
            position = fileOffset + end;
            return end;
        }

        abstract void reposition(RandomAccessFile raf, long fileOffset) throws IOException;

        /** Elements [from, to) through the streams; returns the end of those moved. */
        abstract int move(int from, int to, Stonewall stonewall) throws IOException;
    }

    private static final class Writer extends Streamed {
        private final DataOutputStream data;

        Writer(Path file, TransferBuffer buffer, int bufferSize) throws IOException {
            super(file, IoMode.WRITE, buffer, bufferSize);
            data = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(this.file.getFD()), bufferSize));
        }

        @Override void reposition(RandomAccessFile raf, long fileOffset) throws IOException {
            data.flush();
            raf.seek(fileOffset);
        }

        @Override int move(int from, int to, Stonewall stonewall) throws IOException {
            return elements.writeEach(data, from, to, stonewall);
        }

        @Override public void sync() throws IOException {
            data.flush();
            super.sync();
        }

        /** Flush before the descriptor closes, or the last buffer is lost. */
        @Override public void close() throws IOException {
            try {
                data.flush();
            } finally {
                super.close();
            }
        }
    }

    private static final class Reader extends Streamed {
        private final FileInputStream descriptorStream;
        private DataInputStream data;

        Reader(Path file, TransferBuffer buffer, int bufferSize) throws IOException {
            super(file, IoMode.READ, buffer, bufferSize);
            descriptorStream = new FileInputStream(this.file.getFD());
        }

        @Override void reposition(RandomAccessFile raf, long fileOffset) throws IOException {
            raf.seek(fileOffset);
            data = new DataInputStream(new BufferedInputStream(descriptorStream, bufferSize));
        }

        @Override int move(int from, int to, Stonewall stonewall) throws IOException {
            return elements.readEach(data, from, to, stonewall);
        }
    }
}
