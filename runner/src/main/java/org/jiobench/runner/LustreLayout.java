package org.jiobench.runner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Lustre: {@code lfs setstripe} creates the file with its stripe count and size over the OSTs. */
final class LustreLayout implements FileLayout {
    private final Striping striping;

    LustreLayout(Striping striping) {
        this.striping = striping;
    }

    /** The command that creates {@code file} with this layout; it fails if the file exists. */
    List<String> command(Path file) {
        List<String> command = new ArrayList<>(List.of("lfs", "setstripe"));
        if (striping.count() != 0) command.addAll(List.of("-c", Integer.toString(striping.count())));
        if (striping.size() > 0) command.addAll(List.of("-S", Long.toString(striping.size())));
        command.add(file.toString());
        return command;
    }

    @Override
    public void create(Path file) throws UsageError {
        ToolCommand lfs = ToolCommand.run(command(file), "is Lustre's lfs installed?");
        if (!lfs.succeeded() || !Files.exists(file)) throw new UsageError(lfs.failure());
    }
}
