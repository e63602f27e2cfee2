package org.jiobench.runner;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The file or files a rank touches, and the rules that protect the user's files: a write never
 * lands in an existing file without --overwrite, a read-only run needs a file large enough for its
 * plan, and the run removes only what it created (unless --keep). A run creates its files
 * exclusively (O_EXCL) before any rank writes, so of two runs started on one file only one gets
 * it, and a file removed or replaced while the run goes on is found before the next phase.
 */
final class Targets {
    /** How long a reordered read waits for this node to see what another node wrote. */
    private static final long SIZE_WAIT_NANOS = 10_000_000_000L;

    private final RunSettings settings;
    private final int rank;
    /** What each file this rank touches was when the run started (device and inode). */
    private final Map<Path, Object> identities = new LinkedHashMap<>();

    Targets(RunSettings settings, int rank) {
        this.settings = settings;
        this.rank = rank;
    }

    /** The file rank r writes: the shared file, or with -F its own, named as IOR names it. */
    Path fileOf(int r) {
        Geometry geometry = settings.geometry();
        Path file = geometry.file();
        return geometry.filePerProcess() ? file.resolveSibling(file.getFileName() + String.format(".%08d", r)) : file;
    }

    Path ownFile() {
        return fileOf(rank);
    }

    private boolean ownsFile() {
        return settings.geometry().filePerProcess() || rank == 0;
    }

    /**
     * Checks what this rank will touch before any rank touches anything, and creates the file this
     * rank owns (the shared file is rank 0's, each file of -F its rank's).
     *
     * @param extentRead bytes the read plan needs in the file it reads
     * @param extentWritten bytes all ranks' writes need on the file system
     * @return the files this rank created
     */
    List<Path> prepare(int readsRank, long extentRead, long extentWritten) throws UsageError {
        if (rank == 0) checkResultsDirectory(settings.output().results());
        if (!settings.schedule().touchesFiles()) return List.of();
        if (!settings.schedule().write()) {
            checkReadable(fileOf(readsRank), extentRead);
            return List.of();
        }
        Path file = ownFile();
        checkWritable(file, extentWritten);
        Path directory = file.toAbsolutePath().getParent();
        FileLayout layout = settings.striping().on(Environment.filesystemType(directory), directory);
        if (!ownsFile()) return List.of();
        // Only --overwrite writes over a file that is there; one that appeared since the check
        // above is another run's, which create() refuses.
        if (settings.output().overwrite() && Files.exists(file, LinkOption.NOFOLLOW_LINKS)) return List.of();
        if (layout != null) {
            layout.create(file);
            return List.of(file);
        }
        return create(file);
    }

    /** Notes what the files are now, for {@link #checkUnchanged}; a later fork calls this at its start. */
    void remember(int readsRank) throws IOException {
        List<Path> files = settings.schedule().write() ? List.of(ownFile(), fileOf(readsRank)) : List.of(fileOf(readsRank));
        for (Path file : files) {
            if (!settings.schedule().touchesFiles() || identities.containsKey(file)) continue;
            Object key = identity(file);
            if (key == null) throw new IOException(file + " was removed while the run went on");
            identities.put(file, key);
        }
    }

    /** Before each phase: the files are still the ones the run started with. */
    void checkUnchanged(String phase) throws IOException {
        for (Map.Entry<Path, Object> entry : identities.entrySet()) {
            if (!Objects.equals(identity(entry.getKey()), entry.getValue())) {
                throw new IOException(entry.getKey() + " was removed or replaced while the run went on (found before "
                        + phase + ")");
            }
        }
    }

    /**
     * Waits, untimed, until this node sees {@code file} reach {@code end} bytes: a FUSE or NFS client
     * keeps a file's size as it last knew it for its attribute timeout (about a second on
     * GlusterFS), and a read past that size ends at once with no data, though another node has
     * written there. A reordered read (-C) reads just such a block.
     */
    static void awaitSize(Path file, long end) throws IOException {
        long giveUp = System.nanoTime() + SIZE_WAIT_NANOS;
        long seen;
        while ((seen = Files.size(file)) < end) {
            if (System.nanoTime() > giveUp) {
                throw new IOException(file + ": this node sees " + seen + " bytes of it, short of the " + end
                        + " that the ranks wrote, after " + SIZE_WAIT_NANOS / 1_000_000_000 + " s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("waiting for " + file + " to reach " + end + " bytes");
            }
        }
    }

    /**
     * @return the file's device and inode, or null when it is gone; any other failure to look (a
     * file server lost, a stale handle) is said as itself, never taken for a removal
     */
    private static Object identity(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (NoSuchFileException gone) {
            return null;
        } catch (IOException e) {
            throw new IOException(file + " could not be looked at while the run went on (" + reason(e) + ")", e);
        }
    }

    private List<Path> create(Path file) throws UsageError {
        try {
            Files.createFile(file);
            return List.of(file);
        } catch (FileAlreadyExistsException raced) {
            if (settings.output().overwrite()) return List.of();
            throw new UsageError(file + " was created by someone else just now (another run?); pass --overwrite to "
                    + "write over it");
        } catch (IOException e) {
            throw new UsageError("cannot create " + file + " (" + reason(e) + ")");
        }
    }

    private void checkWritable(Path file, long extentWritten) throws UsageError {
        Path directory = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(directory)) throw new UsageError("directory " + directory + " does not exist");
        try {
            Files.delete(Files.createTempFile(directory, ".jiobench-probe-", ""));
        } catch (IOException e) {
            throw new UsageError("cannot write in directory " + directory + " (" + reason(e) + ")");
        }
        if (!ownsFile()) return;  // rank 0 alone decides about the shared file, which it may be creating right now
        long existing = 0;
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            describeUnusable(file);
            if (!settings.output().overwrite()) {
                throw new UsageError(file + " exists; pass --overwrite to write over it"
                        + " (a run never removes a file it did not create)");
            }
            existing = size(file);
        }
        if (rank == 0) checkSpace(directory, extentWritten - existing);
    }

    /** Refuses a plan the file system cannot hold, instead of failing in the middle with a half-written file. */
    private static void checkSpace(Path directory, long needed) throws UsageError {
        try {
            long usable = Files.getFileStore(directory).getUsableSpace();
            if (needed > usable) {
                throw new UsageError("the plan writes " + Sizes.format(needed) + " but " + directory + " has "
                        + Sizes.describe(usable) + " free: lower -b, -s or the rank count");
            }
        } catch (IOException unknown) {
            // A file system that does not say how much is free: the run will tell.
        }
    }

    private void checkReadable(Path file, long extent) throws UsageError {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new UsageError(file + " does not exist: nothing to read (add -w to write it first)");
        }
        describeUnusable(file);
        if (!Files.isReadable(file)) throw new UsageError("cannot read " + file + " (permission denied)");
        long size = size(file);
        if (size < extent) {
            throw new UsageError(file + " holds " + size + " bytes but the plan reads " + extent
                    + " (check -b, -s, -F and the rank count)");
        }
    }

    /** Names what an existing path is when it is not a file a run can use. */
    private static void describeUnusable(Path file) throws UsageError {
        if (Files.isSymbolicLink(file) && !Files.exists(file)) {
            throw new UsageError(file + " is a symbolic link to " + linkTarget(file) + ", which does not exist");
        }
        if (Files.isDirectory(file)) throw new UsageError(file + " is a directory: name a file (-o DIR/FILE)");
        if (!Files.isRegularFile(file)) {
            throw new UsageError(file + " is not a regular file (a device, FIFO or socket): name a file");
        }
    }

    private static String linkTarget(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException e) {
            return "an unreadable target";
        }
    }

    private static long size(Path file) throws UsageError {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UsageError("cannot read " + file + " (" + reason(e) + ")");
        }
    }

    /**
     * Rank 0's launcher writes the run file there at the end: a place it cannot write is found now.
     * It is created then, not now, so a run refused later leaves nothing behind.
     */
    private static void checkResultsDirectory(Path results) throws UsageError {
        Path existing = results.toAbsolutePath();
        while (!Files.exists(existing)) existing = existing.getParent();
        if (!Files.isDirectory(existing)) {
            throw new UsageError("--results " + results + (existing.equals(results.toAbsolutePath())
                    ? " is not a directory" : ": " + existing + " is not a directory"));
        }
        try {
            Files.delete(Files.createTempFile(existing, ".jiobench-probe-", ""));
        } catch (IOException e) {
            throw new UsageError("--results " + results + ": cannot write there (" + reason(e) + ")");
        }
    }

    /** Removes the files the run created, unless --keep, once every rank is done with them. */
    void remove(List<Path> created) throws IOException {
        if (settings.output().keep()) return;
        for (Path file : created) Files.deleteIfExists(file);
    }

    /** The cause without the probe's own name, so every rank says the same words. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) return "no such file or directory";
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof FileSystemException fileSystem && fileSystem.getReason() != null) return fileSystem.getReason();
        return e.getClass().getSimpleName();
    }
}
