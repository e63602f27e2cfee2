package org.jiobench.workloads;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Paper 3.5: per-element data-stream calls into a pre-sized in-memory byte stream, and one
 * byte-array call to the file. {@code toByteArray} copies, as the paper points out.
 */
public final class ByteArrayStream implements Approach {
    @Override public String id() { return "byte-array-stream"; }

    @Override public String description() {
        return "DataOutputStream on a ByteArrayOutputStream, one raf.write (paper 3.5)";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    /** The stream's own array and the copy toByteArray makes of it. */
    @Override public long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return 2L * arrayBytes;
    }

    @Override public boolean writesEitherByteOrder() { return false; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        ElementArray elements = buffer.elements();
        int size = buffer.elementSize();
        if (mode == IoMode.WRITE) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(buffer.size());
            DataOutputStream data = new DataOutputStream(bytes);
            return RandomAccessFileIo.of(file, mode, (raf, offset, from, to, stonewall) -> {
                bytes.reset();
                int end = size * elements.writeEach(data, from / size, to / size, stonewall);
                raf.seek(offset + from);
                raf.write(bytes.toByteArray());
                return end;
            });
        }
        byte[] bytes = new byte[buffer.capacity()];
        ByteArrayInputStream source = new ByteArrayInputStream(bytes);
        DataInputStream data = new DataInputStream(source);
        return RandomAccessFileIo.of(file, mode, (raf, offset, from, to, stonewall) -> {
            raf.seek(offset + from);
            raf.readFully(bytes, from, to - from);
            source.reset();
            source.skip(from);
            return size * elements.readEach(data, from / size, to / size, stonewall);
        });
    }
}
