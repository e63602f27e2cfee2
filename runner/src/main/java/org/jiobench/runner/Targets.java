package org.jiobench.runner;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * The file or files a rank touches, and the rules that protect the user's files: a write never
 * lands in an existing file without --overwrite, a read-only run needs a file large enough for its
 * plan, and the run removes only what it created (unless --keep). A run creates its files
 * exclusively (O_EXCL) before any rank writes, so of two runs started on one file only one gets it.
 */
final class Targets {
    private final RunSettings settings;
    private final int rank;

    Targets(RunSettings settings, int rank) {
        this.settings = settings;
        this.rank = rank;
    }

    /** The file rank r writes: the shared file, or with -F its own, named as IOR names it. */
    Path fileOf(int r) {
        Path file = settings.file();
        return settings.filePerProcess() ? file.resolveSibling(file.getFileName() + String.format(".%08d", r)) : file;
    }

    Path ownFile() {
        return fileOf(rank);
    }

    /**
     * Checks what this rank will touch before any rank touches anything, and creates the file this
     * rank owns (the shared file is rank 0's, each file of -F its rank's).
     *
     * @return the files this rank created
     */
    List<Path> prepare(int readsRank, long extentRead) throws UsageError {
        if (!settings.touchesFiles()) return List.of();
        if (!settings.write()) {
            checkReadable(fileOf(readsRank), extentRead);
            return List.of();
        }
        Path file = ownFile();
        checkWritable(file);
        boolean owner = settings.filePerProcess() || rank == 0;
        return owner && !Files.exists(file) ? create(file) : List.of();
    }

    private List<Path> create(Path file) throws UsageError {
        try {
            Files.createFile(file);
            return List.of(file);
        } catch (FileAlreadyExistsException raced) {
            throw new UsageError(file + " was created by someone else just now; pass --overwrite to write over it");
        } catch (IOException e) {
            throw new UsageError("cannot create " + file + " (" + reason(e) + ")");
        }
    }

    private void checkWritable(Path file) throws UsageError {
        Path directory = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(directory)) throw new UsageError("directory " + directory + " does not exist");
        try {
            Files.delete(Files.createTempFile(directory, ".jiobench-probe-", ""));
        } catch (IOException e) {
            throw new UsageError("cannot write in directory " + directory + " (" + reason(e) + ")");
        }
        if (Files.exists(file) && (settings.filePerProcess() || rank == 0)) {
            if (!Files.isRegularFile(file)) throw new UsageError(file + " is not a regular file");
            if (!settings.overwrite()) {
                throw new UsageError(file + " exists; pass --overwrite to write over it"
                        + " (a run never removes a file it did not create)");
            }
        }
    }

    private void checkReadable(Path file, long extent) throws UsageError {
        if (!Files.isRegularFile(file)) {
            throw new UsageError(file + " does not exist: nothing to read (add -w to write it first)");
        }
        if (!Files.isReadable(file)) throw new UsageError("cannot read " + file);
        try {
            long size = Files.size(file);
            if (size < extent) {
                throw new UsageError(file + " holds " + size + " bytes but the plan reads " + extent
                        + " (check -b, -s, -F and the rank count)");
            }
        } catch (IOException e) {
            throw new UsageError("cannot read " + file + " (" + reason(e) + ")");
        }
    }

    /** Removes the files the run created, unless --keep, once every rank is done with them. */
    void remove(List<Path> created) throws IOException {
        if (settings.keep()) return;
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
