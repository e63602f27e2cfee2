package org.jiobench.workloads;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;

/**
 * Streams over a RandomAccessFile's descriptor, as paper 3.4 and Xu/Guo 3.2 build them. The streams
 * share the descriptor's position with the file, so a seek is only safe with a buffer empty: a
 * writer flushes before it seeks, a reader drops its read-ahead by starting its streams anew.
 * Contiguous transfers need no seek and keep a buffer streaming.
 */
abstract class StreamIo extends RandomAccessFileIo {
    /** Where the streams stand in the file, or -1 before the first transfer. */
    private long position = -1;

    private StreamIo(Path path, IoMode mode) throws IOException {
        super(path, mode);
    }

    @Override
    public final int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
        if (fileOffset + from != position) reposition(fileOffset + from);
        int end = move(from, to, stonewall);
        position = fileOffset + end;
        return end;
    }

    abstract void reposition(long fileOffset) throws IOException;

    /** Bytes [from, to) of the rank's array through the streams; returns the end of those moved. */
    abstract int move(int from, int to, Stonewall stonewall) throws IOException;

    @FunctionalInterface
    interface OutputStreams<S extends OutputStream> {
        S on(FileDescriptor descriptor);
    }

    @FunctionalInterface
    interface InputStreams<S extends InputStream> {
        S on(FileInputStream descriptor);
    }

    /** The streams a writer writes through, made once over the descriptor. */
    abstract static class Writer<S extends OutputStream> extends StreamIo {
        final S out;

        Writer(Path path, OutputStreams<S> streams) throws IOException {
            super(path, IoMode.WRITE);
            out = streams.on(file.getFD());
        }

        @Override final void reposition(long fileOffset) throws IOException {
            out.flush();
            file.seek(fileOffset);
        }

        @Override public final void sync() throws IOException {
            out.flush();
            super.sync();
        }

        /** Flush before the descriptor closes, or the last buffer is lost. */
        @Override public final void close() throws IOException {
            try {
                out.flush();
            } finally {
                super.close();
            }
        }
    }

    /** The streams a reader reads through, made anew at each seek. */
    abstract static class Reader<S extends InputStream> extends StreamIo {
        private final FileInputStream descriptor;
        private final InputStreams<S> streams;
        S in;

        Reader(Path path, InputStreams<S> streams) throws IOException {
            super(path, IoMode.READ);
            this.descriptor = new FileInputStream(file.getFD());
            this.streams = streams;
        }

        @Override final void reposition(long fileOffset) throws IOException {
            file.seek(fileOffset);
            in = streams.on(descriptor);
        }
    }
}
