package org.jiobench.runner;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.ApproachOption;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.OptionValues;

/**
 * What {@code --direct} needs of the file system, checked before any rank touches the file: that
 * it lets a file be opened with O_DIRECT at all (tmpfs, for one, refuses), and that every size
 * moved by one call (the transfer, an approach's piece) is a whole number of its blocks.
 */
final class DirectIo {
    private DirectIo() {
    }

    /** @param file the file the run reads, whose directory is where it writes */
    static void check(RunSettings settings, Path file) throws UsageError {
        Path directory = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(directory)) return; // Targets says so, as for any run
        long block;
        try {
            block = Files.getFileStore(directory).getBlockSize();
            probe(directory, file, settings.schedule().write());
        } catch (FileSystemException e) {
            // The reason alone, without the probe's name, so that every rank says the same words.
            throw new UsageError("--direct: the file system of " + directory + " refuses O_DIRECT ("
                    + (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName()) + ")");
        } catch (IOException e) {
            throw new UsageError("--direct: cannot try O_DIRECT in " + directory + " (" + e.getMessage() + ")");
        }
        long transferSize = settings.geometry().transferSize();
        require(transferSize % block == 0, "transfer size " + transferSize, block);
        ApproachSettings values = settings.approachSettings();
        for (Approach approach : settings.approaches()) {
            // The others are refused O_DIRECT, or open no file (calibrate, whose rate is no buffer).
            if (!approach.opensDirect()) continue;
            for (ApproachOption option : approach.options()) {
                if (!option.choices().isEmpty()) continue;
                require(values.size(approach, option) % block == 0,
                        "--" + OptionValues.key(approach, option) + " " + values.size(approach, option), block);
            }
        }
    }

    /** Opens the file to read, or a fresh file beside it to write, with O_DIRECT. */
    private static void probe(Path directory, Path file, boolean write) throws IOException {
        if (!write) {
            try (FileChannel ignored = FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
                return;
            }
        }
        Path probe = Files.createTempFile(directory, ".jiobench-direct-", "");
        try (FileChannel ignored = FileChannel.open(probe, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
            // opened: O_DIRECT works here
        } finally {
            Files.delete(probe);
        }
    }

    private static void require(boolean whole, String what, long block) throws UsageError {
        if (!whole) {
            throw new UsageError("--direct: " + what + " bytes is not a multiple of the file system's block size ("
                    + block + " bytes)");
        }
    }
}
