package org.jiobench.runner;

import java.io.IOException;
import picocli.CommandLine;

/**
 * Entry point of the per-rank JVM. Exit codes: 0 done, 1 the run failed (I/O error, wrong data,
 * a bug), 2 a user mistake found before any phase ran, 128 + the signal when a signal stopped it.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        StopRequest.install();
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
        cli.setParameterExceptionHandler((problem, ignored) -> {
            world.reject(problem.getMessage() + " (see --help)");
            return 2;
        });
        cli.setExecutionExceptionHandler((problem, ignored, parsed) -> {
            if (problem instanceof UsageError) {
                world.reject(problem.getMessage());
                return 2;
            }
            if (problem instanceof RunStopped) return stoppedExitCode();
            if (problem instanceof IOException) {
                world.fail(problem.getMessage());
            } else {
                // Neither a user mistake nor an I/O error: a bug, whose trace whoever fixes it needs.
                problem.printStackTrace();
                world.fail("internal error: " + problem + " (stack trace on stderr)");
            }
            return 1;
        });
        return cli.execute(args);
    }

    private static int stoppedExitCode() {
        String signal = StopRequest.signal();
        if (signal == null) return 1;
        return 128 + switch (signal) {
            case "SIGHUP" -> 1;
            case "SIGINT" -> 2;
            default -> 15;
        };
    }
}
