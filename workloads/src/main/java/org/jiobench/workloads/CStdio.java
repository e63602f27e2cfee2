package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jiobench.bulk.StdioFile;

/**
 * The C partner of the buffered streams (Xu/Guo 3.2.2 beside C): fwrite/fread of each operation
 * through a FILE whose buffer setvbuf sets to --buffer-size, a batch of operations per native call.
 */
public final class CStdio implements Approach {
    static final ApproachOption BUFFER_SIZE = ApproachOption.bufferSize("Bytes of the FILE's buffer, set by setvbuf");

    @Override public String id() { return "c-stdio"; }

    @Override public String description() {
        return "C baseline, buffered: fwrite/fread of each operation through setvbuf(--buffer-size), fseeko where it jumps";
    }

    @Override public List<ApproachOption> options() { return List.of(BUFFER_SIZE); }

    @Override public DataForm dataForm() { return DataForm.DIRECT; }

    /** Its TransferIo runs a batch of transfers in one native call. */
    @Override public boolean runsItsOwnBatches() { return true; }

    @Override
    public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException {
        StdioFile stdio = StdioFile.open(file, mode == IoMode.WRITE, settings.size(this, BUFFER_SIZE));
        return new NativeLoopIo(stdio, stdio::sync, buffer.direct(), stdio::transferBatch);
    }
}
