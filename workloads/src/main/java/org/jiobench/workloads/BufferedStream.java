package org.jiobench.workloads;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Xu/Guo 3.2.2: each operation's bytes through a BufferedOutputStream / BufferedInputStream of --buffer-size. */
public final class BufferedStream implements Approach {
    static final ApproachOption BUFFER_SIZE = ApproachOption.bufferSize("Bytes of the buffered streams");

    @Override public String id() { return "buffered-stream"; }

    @Override public String description() {
        return "Buffered*Stream(--buffer-size) on the fd, one write/read per operation (Xu/Guo 3.2.2)";
    }

    @Override public List<ApproachOption> options() { return List.of(BUFFER_SIZE); }

    @Override public DataForm dataForm() { return DataForm.BYTES; }

    @Override public long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return settings.size(this, BUFFER_SIZE);
    }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        return byteStreams(file, mode, buffer, settings.size(this, BUFFER_SIZE));
    }

    /**
     * One stream call per operation over the descriptor, a seek only where the position jumps
     * (Xu/Guo's random access); {@code bufferSize} 0 for the unbuffered file streams.
     */
    static TransferIo byteStreams(Path file, IoMode mode, TransferBuffer buffer, int bufferSize) throws IOException {
        byte[] bytes = buffer.bytes();
        if (mode == IoMode.WRITE) {
            return new StreamIo.Writer<>(file, descriptor -> bufferSize > 0
                    ? new BufferedOutputStream(new FileOutputStream(descriptor), bufferSize)
                    : new FileOutputStream(descriptor)) {
                @Override int move(int from, int to, Stonewall stonewall) throws IOException {
                    out.write(bytes, from, to - from);
                    return to;
                }
            };
        }
        return new StreamIo.Reader<>(file, descriptor -> bufferSize > 0
                ? new BufferedInputStream(descriptor, bufferSize) : descriptor) {
            @Override int move(int from, int to, Stonewall stonewall) throws IOException {
                int got = in.readNBytes(bytes, from, to - from);
                if (got < to - from) throw new EOFException("end of file after " + got + " of " + (to - from) + " bytes");
                return to;
            }
        };
    }
}
