package org.jiobench.bulk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeldFileTest {

    @TempDir
    Path dir;

    @Test
    void writesThroughTheDescriptorReachTheHeldFileWhateverItsPathNamesSince() throws IOException {
        Path file = dir.resolve("data.bin");
        Path victim = dir.resolve("victim");
        Files.writeString(victim, "keep me");
        try (HeldFile held = HeldFile.create(file)) {
            Path moved = dir.resolve("moved.bin");
            Files.move(file, moved);
            Files.createSymbolicLink(file, victim);
            try (RandomAccessFile raf = new RandomAccessFile(held.descriptorPath().toFile(), "rw")) {
                raf.write("written".getBytes(StandardCharsets.US_ASCII));
            }
            assertEquals("written", Files.readString(moved));
        }
        assertEquals("keep me", Files.readString(victim));
    }

    @Test
    void creatingNeverFollowsALinkNorTakesAFileThatExists() throws IOException {
        Path victim = dir.resolve("victim");
        Files.writeString(victim, "keep me");
        Path link = Files.createSymbolicLink(dir.resolve("link"), victim);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));
        assertEquals(link.toString(), assertThrows(FileAlreadyExistsException.class, () -> HeldFile.create(link)).getFile());
        assertThrows(FileAlreadyExistsException.class, () -> HeldFile.create(victim));
        assertThrows(FileAlreadyExistsException.class, () -> HeldFile.create(dangling));
        assertEquals("keep me", Files.readString(victim));
        assertTrue(Files.notExists(dir.resolve("nowhere"), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aLinkIsHeldAsTheLinkItself() throws IOException {
        Path victim = dir.resolve("victim");
        Files.writeString(victim, "keep me");
        Path link = Files.createSymbolicLink(dir.resolve("link"), victim);
        try (HeldFile held = HeldFile.hold(link)) {
            assertTrue(Files.isSymbolicLink(held.descriptorPath()) || !Files.isRegularFile(held.descriptorPath()),
                    "the descriptor names the link, not its target");
        }
    }

    @Test
    void aFifoIsHeldWithoutBlocking() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        try (HeldFile held = HeldFile.hold(fifo)) {
            assertTrue(Files.readAttributes(held.descriptorPath(), "unix:mode").get("mode") instanceof Integer);
        }
    }

    @Test
    void errorsNameTheCallTheReasonAndTheFile() {
        Path missing = dir.resolve("missing.bin");
        IOException e = assertThrows(IOException.class, () -> HeldFile.hold(missing));
        assertEquals(missing + ": open: No such file or directory", e.getMessage());
    }

    @Test
    void aClosedFileHasNoDescriptorPath() throws IOException {
        HeldFile held = HeldFile.create(dir.resolve("data.bin"));
        held.close();
        held.close();
        assertThrows(IOException.class, held::descriptorPath);
        assertArrayEquals(new byte[0], Files.readAllBytes(dir.resolve("data.bin")));
    }
}
