package org.jiobench.workloads;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.jiobench.bulk.StdioFile;

/**
 * The C partner of the buffered streams (Xu/Guo 3.2.2 beside C): fwrite/fread of each operation
 * through a FILE whose buffer setvbuf sets to --buffer-size, a batch of operations per native call.
 */
public final class CStdio implements Approach {
    @Override public String id() { return "c-stdio"; }

    @Override public String description() {
        return "C baseline, buffered: fwrite/fread of each operation through setvbuf(--buffer-size), fseeko where it jumps";
    }

    @Override public DataForm dataForm() { return DataForm.DIRECT; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        StdioFile stdio = StdioFile.open(file, mode == IoMode.WRITE, settings.bufferSize());
        ByteBuffer data = buffer.direct();
        return new TransferIo() {
            /** Part of a transfer, which a stonewall left: one operation from the slice of the buffer. */
            @Override
            public int transfer(long fileOffset, int from, int to, Stonewall stonewall) throws IOException {
                stdio.transferBatch(data.slice(from, to - from), to - from, new long[] {fileOffset + from},
                        Long.MAX_VALUE);
                return to;
            }

            @Override
            public int transferBatch(long[] fileOffsets, int first, int end, int size, Stonewall stonewall)
                    throws IOException {
                return size * stdio.transferBatch(data, size, Arrays.copyOfRange(fileOffsets, first, end),
                        stonewall.nanosLeft());
            }

            @Override public void sync() throws IOException {
                stdio.sync();
            }

            @Override public void close() throws IOException {
                stdio.close();
            }
        };
    }
}
