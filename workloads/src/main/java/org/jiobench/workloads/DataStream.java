package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Paper 3.3: {@code RandomAccessFile.writeInt/readInt} per element, unbuffered. Every element is
 * at least one system call (readInt is four), so this runs at kB/s: give it a deadline.
 */
public final class DataStream implements Approach {
    @Override public String id() { return "data-stream"; }

    @Override public String description() {
        return "RandomAccessFile.writeInt/readInt per element, unbuffered (paper 3.3)";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    @Override public boolean writesEitherByteOrder() { return false; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        ElementArray elements = buffer.elements();
        int size = buffer.elementSize();
        return RandomAccessFileIo.of(file, mode, mode == IoMode.WRITE
                ? (raf, offset, from, to, stonewall) -> {
                    raf.seek(offset + from);
                    return size * elements.writeEach(raf, from / size, to / size, stonewall);
                }
                : (raf, offset, from, to, stonewall) -> {
                    raf.seek(offset + from);
                    return size * elements.readEach(raf, from / size, to / size, stonewall);
                });
    }
}
