package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;

/** Paper 3.2: the application converts its typed array to bytes by shift and mask, then does byte-array I/O. */
public final class EncodeDecode implements Approach {
    @Override public String id() { return "encode-decode"; }

    @Override public String description() {
        return "shift/mask conversion to/from a byte[], then byte-array I/O (paper 3.2)";
    }

    @Override public DataForm dataForm() { return DataForm.TYPED; }

    /** The byte[] the conversion fills. */
    @Override public long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return arrayBytes;
    }

    @Override public boolean writesEitherByteOrder() { return false; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        ElementArray elements = buffer.elements();
        int size = buffer.elementSize();
        byte[] bytes = new byte[buffer.capacity()];
        return RandomAccessFileIo.of(file, mode, mode == IoMode.WRITE
                ? (raf, offset, from, to, stonewall) -> {
                    int end = size * elements.encode(bytes, from / size, to / size, stonewall);
                    raf.seek(offset + from);
                    raf.write(bytes, from, end - from);
                    return end;
                }
                : (raf, offset, from, to, stonewall) -> {
                    raf.seek(offset + from);
                    raf.readFully(bytes, from, to - from);
                    return size * elements.decode(bytes, from / size, to / size, stonewall);
                });
    }
}
