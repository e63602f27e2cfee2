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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jiobench.bulk.HeldFile;

/**
 * The file or files a rank touches, and the rules that protect the user's files: a write never
 * lands in an existing file without --overwrite, a read-only run needs a file large enough for its
 * plan, and the run removes only what it created (unless --keep). A run creates its files
 * exclusively (O_EXCL) before any rank writes, so of two runs started on one file only one gets
 * it.
 *
 * <p>Every file a JVM touches is held by a descriptor ({@link HeldFile}) taken without following a
 * link, and the approaches open it through that descriptor: what its path names later (another
 * user's link to a file of root's, in a directory anyone can write) is never written. A file
 * removed or replaced while the run goes on is found before the next phase, and between forks
 * against what the run created ({@link Task#created}). A link the user gave is followed only where
 * the kernel's protected_symlinks rule would follow it, and only for a run told --overwrite.
 */
final class Targets {
    /** How long a reordered read waits for this node to see what another node wrote. */
    private static final long SIZE_WAIT_NANOS = 10_000_000_000L;
    /** File type bits of stat's st_mode. */
    private static final int TYPE_BITS = 0170000;
    private static final int REGULAR_FILE = 0100000;

    /** A file this JVM holds: as the run names it, what it followed a link to (or itself), its descriptor and identity. */
    private record Held(Path name, Path file, HeldFile descriptor, FileIdentity identity) {
    }

    private final RunSettings settings;
    private final int rank;
    private final Set<FileIdentity> createdBefore;
    private final Map<Path, Held> held = new LinkedHashMap<>();

    /** @param createdBefore what the files this rank created in the run's first JVM are, for later JVMs */
    Targets(RunSettings settings, int rank, Set<FileIdentity> createdBefore) {
        this.settings = settings;
        this.rank = rank;
        this.createdBefore = createdBefore;
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
     * @return the files this rank created, each with its identity, all held
     */
    Map<Path, FileIdentity> prepare(int readsRank, long extentRead, long extentWritten) throws UsageError, IOException {
        if (rank == 0) checkResultsDirectory(settings.output().results());
        if (!settings.schedule().touchesFiles()) return Map.of();
        if (!settings.schedule().write()) {
            checkReadable(fileOf(readsRank), extentRead);
            return Map.of();
        }
        Path file = ownFile();
        checkWritable(file, extentWritten);
        Path directory = file.toAbsolutePath().getParent();
        FileLayout layout = settings.striping().on(Environment.filesystemType(directory), directory);
        if (!ownsFile()) return Map.of();
        // Only --overwrite writes over a file that is there; one that appeared since the check
        // above is another run's, which create() refuses.
        if (settings.output().overwrite() && Files.exists(file, LinkOption.NOFOLLOW_LINKS)) return Map.of();
        if (layout != null) {
            layout.create(file);
            // The layout's tool created it by name: what is there now must be as new as what it made.
            Held created = hold(file, file, HeldFile.hold(file));
            Map<String, Object> attributes = FileIdentity.attributes(created.descriptor().descriptorPath());
            if ((Integer) attributes.get("nlink") != 1 || (Long) attributes.get("size") != 0) {
                throw new IOException(file + " was replaced the moment the run created it");
            }
            return Map.of(file, created.identity());
        }
        return create(file);
    }

    /**
     * Holds every file this JVM touches, checked against what the run began with: a later JVM
     * calls this at its start, the first once every rank has created its files.
     */
    void hold(int readsRank) throws IOException {
        if (!settings.schedule().touchesFiles()) return;
        List<Path> files = settings.schedule().write() ? List.of(ownFile(), fileOf(readsRank)) : List.of(fileOf(readsRank));
        for (Path name : files) {
            if (held.containsKey(name)) continue;
            Path file;
            try {
                file = followed(name);
            } catch (UsageError link) {
                throw new IOException(name + " is now " + whatIsAt(name) + ", not the file the run began with (the run "
                        + "ends, and writes nothing through it)");
            } catch (IOException e) {
                throw new IOException(name + " could not be looked at while the run went on (" + reason(e) + ")", e);
            }
            HeldFile descriptor;
            try {
                descriptor = HeldFile.hold(file);
            } catch (IOException e) {
                if (Files.notExists(file, LinkOption.NOFOLLOW_LINKS)) {
                    throw new IOException(name + " was removed while the run went on");
                }
                throw e;
            }
            Held holding = hold(name, file, descriptor);
            check(holding, name.equals(ownFile()) && ownsFile());
        }
    }

    /** Holds what the descriptor names, which must be a regular file. */
    private Held hold(Path name, Path file, HeldFile descriptor) throws IOException {
        Map<String, Object> attributes;
        try {
            attributes = FileIdentity.attributes(descriptor.descriptorPath());
            if (((Integer) attributes.get("mode") & TYPE_BITS) != REGULAR_FILE) {
                throw new IOException(name + " is now " + whatIsAt(file) + ", not the file the run began with");
            }
        } catch (IOException notAFile) {
            descriptor.close();
            throw notAFile;
        }
        Held holding = new Held(name, file, descriptor, FileIdentity.of(attributes));
        held.put(name, holding);
        return holding;
    }

    /**
     * What a held file must be: one this rank created, where it created any (its launcher says
     * which); with one name alone, where the run writes without --overwrite (every file it writes
     * is then its own creation, and a second name is a link another made to it, or it to another's
     * file).
     */
    private void check(Held holding, boolean createdHere) throws IOException {
        if (createdHere && !createdBefore.isEmpty() && !createdBefore.contains(holding.identity())) {
            throw new IOException(holding.name() + " is not the file the run created: it was replaced while the run "
                    + "went on (the run ends, and writes nothing to what took its place)");
        }
        int names = (Integer) FileIdentity.attributes(holding.descriptor().descriptorPath()).get("nlink");
        if (settings.schedule().write() && !settings.output().overwrite() && names != 1) {
            throw new IOException(holding.name() + " now has " + names + " names (hard links), where the file the run "
                    + "created had one: another name was linked to it, or it to another's file (the run ends, and "
                    + "writes nothing more to it)");
        }
    }

    /**
     * The name under which this JVM's approaches open {@code name}: its held descriptor's (a run
     * that touches no file, calibrate's alone, holds none).
     */
    Path opened(Path name) throws IOException {
        if (!settings.schedule().touchesFiles()) return name;
        Held holding = held.get(name);
        if (holding == null) throw new IllegalStateException(name + " is not held");
        return holding.descriptor().descriptorPath();
    }

    /** Before each phase: the files are still the ones the run started with. */
    void checkUnchanged(String phase) throws IOException {
        for (Held holding : held.values()) {
            FileIdentity now;
            try {
                now = FileIdentity.at(holding.file());
            } catch (IOException e) {
                throw new IOException(holding.file() + " could not be looked at while the run went on (" + reason(e) + ")",
                        e);
            }
            if (!holding.identity().equals(now)) {
                throw new IOException(holding.name() + " was removed or replaced while the run went on (found before "
                        + phase + "; it is now " + whatIsAt(holding.file()) + ")");
            }
        }
    }

    /** What is at {@code path} now, as a message says it: a link and its target, gone, another file. */
    static String whatIsAt(Path path) {
        try {
            if (Files.isSymbolicLink(path)) return "a symbolic link to " + linkTarget(path);
            if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) return "gone";
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) return "a directory";
            if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) return "a device, FIFO or socket";
            return "another file";
        } catch (RuntimeException e) {
            return "unreadable";
        }
    }

    /**
     * The file a name stands for: itself, or where it is a symbolic link, its target, followed only
     * where the kernel's protected_symlinks rule would follow it (the link belongs to this user or
     * to the directory's owner) and only for writes told --overwrite.
     */
    private Path followed(Path name) throws UsageError, IOException {
        if (!Files.isSymbolicLink(name)) return name;
        String target = linkTarget(name);
        Map<String, Object> link = FileIdentity.attributes(name, LinkOption.NOFOLLOW_LINKS);
        Path directory = name.toAbsolutePath().getParent();
        int owner = (Integer) link.get("uid");
        int directoryOwner = (Integer) FileIdentity.attributes(directory).get("uid");
        if (owner != ownUid() && owner != directoryOwner) {
            throw new UsageError(name + " is a symbolic link to " + target + " made by uid " + owner + " in a directory of "
                    + "uid " + directoryOwner + ": a run follows only a link of its own user or of the directory's "
                    + "owner (as the kernel's protected_symlinks does); name the file itself");
        }
        Path real;
        try {
            real = name.toRealPath();
        } catch (NoSuchFileException dangling) {
            throw new UsageError(name + " is a symbolic link to " + target + ", which does not exist");
        }
        if (settings.schedule().write() && !settings.output().overwrite()) {
            throw new UsageError(name + " is a symbolic link to " + target + "; pass --overwrite to write over " + target
                    + " through it (a run never removes a file it did not create)");
        }
        return real;
    }

    private static int ownUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
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

    private Map<Path, FileIdentity> create(Path file) throws UsageError, IOException {
        HeldFile created;
        try {
            created = HeldFile.create(file);
        } catch (FileAlreadyExistsException raced) {
            if (settings.output().overwrite()) return Map.of();
            throw new UsageError(file + " was created by someone else just now (another run?); pass --overwrite to "
                    + "write over it");
        } catch (IOException e) {
            throw new UsageError("cannot create " + file + " (" + reason(e) + ")");
        }
        return Map.of(file, hold(file, file, created).identity());
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
            Path target = followedBeforeTheRun(file);
            describeUnusable(target);
            if (!settings.output().overwrite()) {
                throw new UsageError(file + " exists; pass --overwrite to write over it"
                        + " (a run never removes a file it did not create)");
            }
            existing = size(target);
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
        Path target = followedBeforeTheRun(file);
        describeUnusable(target);
        if (!Files.isReadable(target)) throw new UsageError("cannot read " + file + " (permission denied)");
        long size = size(target);
        if (size < extent) {
            throw new UsageError(file + " holds " + size + " bytes but the plan reads " + extent
                    + " (check -b, -s, -F and the rank count)");
        }
    }

    /** {@link #followed}, where a file that cannot be looked at is the user's to hear of. */
    private Path followedBeforeTheRun(Path name) throws UsageError {
        try {
            return followed(name);
        } catch (IOException e) {
            throw new UsageError("cannot look at " + name + " (" + reason(e) + ")");
        }
    }

    /** Names what an existing path is when it is not a file a run can use. */
    private static void describeUnusable(Path file) throws UsageError {
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

    /**
     * Removes the files the run created, unless --keep, once every rank is done with them: each
     * where it is still what the run created, never what took its name since.
     */
    void remove(Map<Path, FileIdentity> created) throws IOException {
        if (settings.output().keep()) return;
        for (Map.Entry<Path, FileIdentity> file : created.entrySet()) {
            if (file.getValue().equals(FileIdentity.at(file.getKey()))) Files.deleteIfExists(file.getKey());
        }
    }

    /** The cause without the probe's own name, so every rank says the same words. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) return "no such file or directory";
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof FileSystemException fileSystem && fileSystem.getReason() != null) return fileSystem.getReason();
        return e.getClass().getSimpleName();
    }
}
