package org.jiobench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The layout a run asks for its shared file on Lustre: rank 0 creates the file with
 * {@code lfs setstripe} before any rank opens it. Elsewhere the stripe options are refused, or
 * ignored when the user says so (the run then says it did).
 *
 * @param count  stripes (-1: every OST; 0: the directory's default)
 * @param size   bytes per stripe (0: the directory's default)
 * @param ignore run without striping on a file system that has none, instead of refusing
 */
record Striping(int count, long size, boolean ignore) {
    /** Lustre's stripe sizes are multiples of this. */
    static final long SIZE_UNIT = 64 * 1024;

    boolean asked() {
        return count != 0 || size > 0;
    }

    /** The command that creates {@code file} with this layout; it fails if the file exists. */
    List<String> command(Path file) {
        List<String> command = new ArrayList<>(List.of("lfs", "setstripe"));
        if (count != 0) command.addAll(List.of("-c", Integer.toString(count)));
        if (size > 0) command.addAll(List.of("-S", Long.toString(size)));
        command.add(file.toString());
        return command;
    }

    /**
     * Whether the file is created through lfs: on Lustre, when a layout is asked for. Elsewhere the
     * options are a mistake unless --stripe-ignore says to run without them.
     */
    boolean appliesTo(String filesystemType, Path directory) throws UsageError {
        if (!asked()) return false;
        if ("lustre".equals(filesystemType)) return true;
        if (ignore) return false;
        throw new UsageError("--stripe-count and --stripe-size set a Lustre layout, but " + directory + " is on "
                + filesystemType + " (pass --stripe-ignore to run without striping)");
    }

    /** Creates the file with its layout, as O_EXCL would: an existing file is an error. */
    void create(Path file) throws UsageError {
        List<String> command = command(file);
        String output;
        int exit;
        try {
            Process lfs = new ProcessBuilder(command).redirectErrorStream(true).start();
            output = new String(lfs.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!lfs.waitFor(60, TimeUnit.SECONDS)) {
                lfs.destroyForcibly();
                throw new UsageError(String.join(" ", command) + " did not finish in a minute");
            }
            exit = lfs.exitValue();
        } catch (IOException e) {
            throw new UsageError("cannot run " + String.join(" ", command) + " (" + e.getMessage()
                    + "): is Lustre's lfs installed?");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UsageError(String.join(" ", command) + " was interrupted");
        }
        if (exit != 0 || !Files.exists(file)) {
            throw new UsageError(String.join(" ", command) + " failed"
                    + (output.isEmpty() ? " (exit " + exit + ")" : ": " + output.replace('\n', ' ')));
        }
    }
}
