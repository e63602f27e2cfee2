package org.jiobench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A file system's own tool run to lay out or describe a file (lfs, setfattr, ceph): its exit code
 * and what it printed, or a {@link UsageError} that names the command when it cannot run at all.
 *
 * @param command the command line
 * @param exit    its exit code
 * @param output  what it printed on stdout and stderr, stripped
 */
record ToolCommand(List<String> command, int exit, String output) {
    private static final long LIMIT_SECONDS = 60;

    /**
     * Runs {@code command} to its end, a minute at most.
     *
     * @param missing what to say after "cannot run COMMAND (why):" when the tool cannot start
     */
    static ToolCommand run(List<String> command, String missing) throws UsageError {
        try {
            Process tool = new ProcessBuilder(command).redirectErrorStream(true).start();
            tool.getOutputStream().close();
            String output = new String(tool.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!tool.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                tool.destroyForcibly();
                throw new UsageError(String.join(" ", command) + " did not finish in a minute");
            }
            return new ToolCommand(command, tool.exitValue(), output);
        } catch (IOException e) {
            throw new UsageError("cannot run " + String.join(" ", command) + " (" + e.getMessage() + "): " + missing);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UsageError(String.join(" ", command) + " was interrupted");
        }
    }

    boolean succeeded() {
        return exit == 0;
    }

    /** "COMMAND failed: OUTPUT" on one line, for a message that ends the run. */
    String failure() {
        return String.join(" ", command) + " failed"
                + (output.isEmpty() ? " (exit " + exit + ")" : ": " + output.replace('\n', ' '));
    }
}
