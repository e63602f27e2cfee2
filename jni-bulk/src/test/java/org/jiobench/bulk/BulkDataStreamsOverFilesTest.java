package org.jiobench.bulk;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The stream pair composed with buffered file streams, as the paper's section 3.4 chains them; the
 * buffers are small and odd-sized so that bulk writes and reads straddle them.
 */
class BulkDataStreamsOverFilesTest extends BulkDataContractTest {

    private Path file() {
        return dir.resolve("data.bin");
    }

    @Override
    BulkDataOutput openOutput(BufferPolicy policy) throws IOException {
        return closedAfterTest(new BulkDataOutputStream(
                new BufferedOutputStream(new FileOutputStream(file().toFile()), 13), policy));
    }

    @Override
    byte[] closeAndGetWritten(BulkDataOutput out) throws IOException {
        ((BulkDataOutputStream) out).close();
        return Files.readAllBytes(file());
    }

    @Override
    BulkDataInput openInput(byte[] content, BufferPolicy policy) throws IOException {
        Files.write(file(), content);
        return closedAfterTest(new BulkDataInputStream(
                new BufferedInputStream(new FileInputStream(file().toFile()), 11), policy));
    }
}
