package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the runner does to the files at its paths: never written through a link it may not
 * follow, and a later JVM of the run refuses a file that is not the one the run created.
 */
class TargetsTest {
    private static final String[] RUN = {"-a", "raw-bytes", "-b", "8k", "-t", "4k", "-i", "1", "--warmup", "0"};

    @TempDir
    Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** A later JVM of a launched run, told what the files its rank created are. */
    private final class LaterJvm implements World {
        final Task task;
        final List<String> said = new ArrayList<>();

        LaterJvm(Set<FileIdentity> created) {
            task = new Task(false, 1, 0, created);
        }

        @Override public int rank() { return 0; }
        @Override public int size() { return 1; }
        @Override public int[] hostOfRank() { return new int[] {0}; }
        @Override public Task task() { return task; }
        @Override public boolean launched() { return true; }
        @Override public String describe() { return "a later JVM of a test"; }
        @Override public boolean ready(Map<String, Object> parameters, Map<String, Object> environment,
                                       Map<Path, FileIdentity> created) { return true; }
        @Override public void barrier(String phase) { }
        @Override public long wearOut(long bytes) { return bytes; }
        @Override public long endPhase(RankRecord record, int blockRead) { return record.bytes(); }
        @Override public void reject(String message) { said.add(message); }
        @Override public void fail(String message) { said.add(message); }
        @Override public void finish(int exitCode, String message) { if (message != null) said.add(message); }
    }

    private int alone(String... args) {
        return Main.run(args, new SoloWorld(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
    }

    private static String[] with(String[] first, String... more) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8).strip();
    }

    private Path victim() throws IOException {
        return Files.writeString(dir.resolve("victim"), "keep me");
    }

    @Test
    void aLaterJvmRefusesAFileThatIsNotTheOneItsRankCreated() throws IOException {
        Path file = Files.write(dir.resolve("f.dat"), new byte[8192]);
        Path other = Files.write(dir.resolve("other.dat"), new byte[8192]);
        LaterJvm later = new LaterJvm(Set.of(FileIdentity.at(other)));
        assertEquals(1, Main.run(with(RUN, "-o", file.toString()), later));
        assertEquals(List.of(file + " is not the file the run created: it was replaced while the run went on (the run "
                + "ends, and writes nothing to what took its place)"), later.said);

        LaterJvm told = new LaterJvm(Set.of(FileIdentity.at(file)));
        assertEquals(0, Main.run(with(RUN, "-o", file.toString()), told), String.join("\n", told.said));
    }

    @Test
    void aLaterJvmWritesNothingThroughALinkThatTookTheFilesName() throws IOException {
        Path victim = victim();
        Path file = dir.resolve("f.dat");
        FileIdentity created = FileIdentity.of(FileIdentity.attributes(Files.write(dir.resolve("moved"), new byte[8192])));
        Files.createSymbolicLink(file, victim);
        LaterJvm later = new LaterJvm(Set.of(created));
        assertEquals(1, Main.run(with(RUN, "-o", file.toString()), later));
        assertEquals(List.of(file + " is now a symbolic link to " + victim + ", not the file the run began with (the run "
                + "ends, and writes nothing through it)"), later.said);
        assertEquals("keep me", Files.readString(victim));
    }

    @Test
    void aFileGivenASecondNameIsNotTheRunsOwn() throws IOException {
        Path file = Files.write(dir.resolve("f.dat"), new byte[8192]);
        Files.createLink(dir.resolve("second-name"), file);
        LaterJvm later = new LaterJvm(Set.of());
        assertEquals(1, Main.run(with(RUN, "-o", file.toString()), later));
        assertTrue(later.said.get(0).startsWith(file + " now has 2 names (hard links)"), later.said.toString());
    }

    @Test
    void aLinkAtTheOutputIsNamedAndFollowedOnlyWithOverwrite() throws IOException {
        Path victim = Files.write(dir.resolve("target.dat"), new byte[8192]);
        Path link = Files.createSymbolicLink(dir.resolve("jio.dat"), victim);
        assertEquals(2, alone(with(RUN, "-o", link.toString())));
        assertEquals("jiobench: error: " + link + " is a symbolic link to " + victim + "; pass --overwrite to write over "
                + victim + " through it (a run never removes a file it did not create)", errors());

        assertEquals(0, alone(with(RUN, "--overwrite", "-o", link.toString())), errors());
        assertTrue(Files.isSymbolicLink(link), "the link is the user's: kept");
        assertTrue(Files.exists(victim), "a file written over is the user's: kept");
    }

    @Test
    void anotherUsersLinkIsNeverFollowed() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can make a link of another user's");
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path victim = victim();
        Path link = Files.createSymbolicLink(shared.resolve("jio.dat"), victim);
        UserPrincipal nobody = link.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(shared, nobody);
        Files.getFileAttributeView(link, java.nio.file.attribute.PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS).setOwner(nobody);
        Files.setOwner(shared, link.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("root"));
        int owner = (Integer) Files.getAttribute(link, "unix:uid", LinkOption.NOFOLLOW_LINKS);

        assertEquals(2, alone(with(RUN, "--overwrite", "-o", link.toString())));
        assertEquals("jiobench: error: " + link + " is a symbolic link to " + victim + " made by uid " + owner
                + " in a directory of uid 0: a run follows only a link of its own user or of the directory's owner (as "
                + "the kernel's protected_symlinks does); name the file itself", errors());
        assertEquals("keep me", Files.readString(victim));
    }
}
