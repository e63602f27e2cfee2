package org.jiobench.runner;

import java.io.IOException;
import picocli.CommandLine;

/**
 * Entry point of the per-rank JVM. Exit codes: 0 done, 1 the run failed (I/O error, wrong data),
 * 2 a user mistake found before any phase ran.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        World world;
        try {
            String control = System.getenv(LauncherWorld.CONTROL_VARIABLE);
            world = control == null ? new SoloWorld(System.out, System.err) : LauncherWorld.fromControl(control);
        } catch (IOException | NumberFormatException e) {
            System.err.println("jiobench: error: cannot reach the launcher: " + e.getMessage());
            return 1;
        }
        return run(args, world);
    }

    static int run(String[] args, World world) {
        CommandLine cli = new CommandLine(new RunCommand(world));
        cli.getCommandSpec().usageMessage().footer(RunCommand.approachList());
        ApproachOptions.addTo(cli.getCommandSpec());
        cli.setParameterExceptionHandler((problem, ignored) -> {
            world.reject(problem.getMessage() + " (see --help)");
            return 2;
        });
        cli.setExecutionExceptionHandler((problem, ignored, parsed) -> {
            if (problem instanceof UsageError) {
                world.reject(problem.getMessage());
                return 2;
            }
            world.fail("rank " + world.rank() + ": " + problem.getMessage());
            return 1;
        });
        return cli.execute(args);
    }
}
