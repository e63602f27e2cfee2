package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whether the pages really left the cache the kernel alone can say; these tests check the calls and their errors. */
class PageCacheTest {

    @TempDir
    Path dir;

    @Test
    void droppingAFilesPagesKeepsItsContent() throws IOException {
        Path file = dir.resolve("data.bin");
        byte[] content = new byte[1 << 20];
        new Random(1).nextBytes(content);
        Files.write(file, content);

        PageCache.drop(file);

        assertArrayEquals(content, Files.readAllBytes(file));
    }

    @Test
    void dropsThePagesOfAnOpenFile() throws IOException {
        Path file = dir.resolve("data.bin");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.write(new byte[8192]);
            PageCache.drop(raf.getFD());
            raf.seek(0);
            assertEquals(0, raf.readLong());
        }
    }

    @Test
    void errorsNameTheCallTheReasonAndTheFile() {
        Path missing = dir.resolve("missing.bin");
        IOException e = assertThrows(IOException.class, () -> PageCache.drop(missing));
        assertEquals(missing + ": open: No such file or directory", e.getMessage());
    }

    @Test
    void aClosedOrMissingDescriptorIsRejected() throws IOException {
        assertThrows(IOException.class, () -> PageCache.drop(new FileDescriptor()));
        assertThrows(NullPointerException.class, () -> PageCache.drop((FileDescriptor) null));
        assertThrows(NullPointerException.class, () -> PageCache.drop((Path) null));
    }
}
