package org.jiobench.workloads;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Xu/Guo 3.2.3, their best Java strategy: the application's own byte[] of --buffer-size. A write
 * copies the operation's bytes into it and writes it whole, in one call, when it is full or the
 * next operation does not follow on; a read is served from it, and refills it with one call at
 * the operation's position when the bytes are not there. An operation larger than the buffer
 * goes to the file directly.
 */
public final class DirectBuffering implements Approach {
    static final ApproachOption BUFFER_SIZE = ApproachOption.bufferSize("Bytes of the application's own buffer");

    @Override public String id() { return "direct-buffering"; }

    @Override public String description() {
        return "the application's own byte[] of --buffer-size, one RandomAccessFile call per buffer (Xu/Guo 3.2.3)";
    }

    @Override public List<ApproachOption> options() { return List.of(BUFFER_SIZE); }

    @Override public DataForm dataForm() { return DataForm.BYTES; }

    @Override public long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return settings.size(this, BUFFER_SIZE);
    }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        int bufferSize = settings.size(this, BUFFER_SIZE);
        return mode == IoMode.WRITE ? new Writer(file, buffer, bufferSize) : new Reader(file, buffer, bufferSize);
    }

    private abstract static class Buffered extends RandomAccessFileIo {
        final byte[] bytes;
        final byte[] own;
        /** The file offset of own[0], and how many of its bytes are in use. */
        long start;
        int used;

        Buffered(Path file, IoMode mode, TransferBuffer buffer, int bufferSize) throws IOException {
            super(file, mode);
            this.bytes = buffer.bytes();
            this.own = new byte[bufferSize];
        }

        @Override
        public final int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
            long at = fileOffset + from;
            if (to - from > own.length) {
                directly(at, from, to - from);
            } else {
                buffered(at, from, to - from);
            }
            return to;
        }

        /** An operation larger than the buffer, straight to or from the array. */
        abstract void directly(long at, int from, int length) throws IOException;

        abstract void buffered(long at, int from, int length) throws IOException;
    }

    private static final class Writer extends Buffered {
        Writer(Path file, TransferBuffer buffer, int bufferSize) throws IOException {
            super(file, IoMode.WRITE, buffer, bufferSize);
        }

        @Override void directly(long at, int from, int length) throws IOException {
            if (used > 0) flush();
            file.seek(at);
            file.write(bytes, from, length);
        }

        @Override void buffered(long at, int from, int length) throws IOException {
            if (used > 0 && (at != start + used || used + length > own.length)) flush();
            if (used == 0) start = at;
            System.arraycopy(bytes, from, own, used, length);
            used += length;
        }

        private void flush() throws IOException {
            file.seek(start);
            file.write(own, 0, used);
            used = 0;
        }

        @Override public void sync() throws IOException {
            if (used > 0) flush();
            super.sync();
        }

        @Override public void close() throws IOException {
            try {
                if (used > 0) flush();
            } finally {
                super.close();
            }
        }
    }

    private static final class Reader extends Buffered {
        Reader(Path file, TransferBuffer buffer, int bufferSize) throws IOException {
            super(file, IoMode.READ, buffer, bufferSize);
        }

        @Override void directly(long at, int from, int length) throws IOException {
            file.seek(at);
            file.readFully(bytes, from, length);
        }

        @Override void buffered(long at, int from, int length) throws IOException {
            if (at < start || at + length > start + used) refill(at, length);
            System.arraycopy(own, (int) (at - start), bytes, from, length);
        }

        /** One read of up to a buffer's worth at {@code at}; the file may end sooner, but not before {@code needed} bytes. */
        private void refill(long at, int needed) throws IOException {
            file.seek(at);
            start = at;
            used = 0;
            while (used < own.length) {
                int got = file.read(own, used, own.length - used);
                if (got < 0) break;
                used += got;
            }
            if (used < needed) throw new EOFException("end of file after " + used + " of " + needed + " bytes");
        }
    }
}
