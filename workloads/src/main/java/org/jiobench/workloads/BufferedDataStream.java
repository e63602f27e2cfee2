package org.jiobench.workloads;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Paper 3.4: RandomAccessFile, its file descriptor, a file stream, a buffered stream of
 * {@code --buffer-size} bytes, and a data stream on top ({@link StreamIo}).
 */
public final class BufferedDataStream implements Approach {
    static final ApproachOption BUFFER_SIZE =
            ApproachOption.bufferSize("Bytes of the buffered streams under the data streams");

    @Override public String id() { return "buffered-data-stream"; }

    @Override public String description() {
        return "Data*Stream on Buffered*Stream(--buffer-size) on the fd (paper 3.4)";
    }

    @Override public List<ApproachOption> options() { return List.of(BUFFER_SIZE); }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return settings.size(this, BUFFER_SIZE);
    }

    @Override public boolean writesEitherByteOrder() { return false; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        int bufferSize = settings.size(this, BUFFER_SIZE);
        return mode == IoMode.WRITE ? new Writer(file, buffer, bufferSize) : new Reader(file, buffer, bufferSize);
    }

    private static final class Writer extends StreamIo.Writer<DataOutputStream> {
        private final ElementArray elements;
        private final int elementSize;

        Writer(Path file, TransferBuffer buffer, int bufferSize) throws IOException {
            super(file, descriptor -> new DataOutputStream(new BufferedOutputStream(new FileOutputStream(descriptor),
                    bufferSize)));
            this.elements = buffer.elements();
            this.elementSize = buffer.elementSize();
        }

        @Override int move(int from, int to, Stonewall stonewall) throws IOException {
            return elementSize * elements.writeEach(out, from / elementSize, to / elementSize, stonewall);
        }
    }

    private static final class Reader extends StreamIo.Reader<DataInputStream> {
        private final ElementArray elements;
        private final int elementSize;

        Reader(Path file, TransferBuffer buffer, int bufferSize) throws IOException {
            super(file, descriptor -> new DataInputStream(new BufferedInputStream(descriptor, bufferSize)));
            this.elements = buffer.elements();
            this.elementSize = buffer.elementSize();
        }

        @Override int move(int from, int to, Stonewall stonewall) throws IOException {
            return elementSize * elements.readEach(in, from / elementSize, to / elementSize, stonewall);
        }
    }
}
