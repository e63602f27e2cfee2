package org.jiobench.runner;

import java.io.IOException;
import java.util.Set;
import picocli.CommandLine;

/**
 * Entry point of the per-rank JVM. Exit codes: 0 done, 1 the run failed (I/O error, wrong data,
 * a bug), 2 a user mistake found before any phase ran, 128 + the signal when a signal stopped it
 * ({@link ExitCode}).
 *
 * <p>The World comes from how the runner was started: by MPJ Express's starter (it puts its own
 * arguments first), by the mpi4py launcher (it sets {@value Wire#CONTROL_VARIABLE}), or by
 * hand.
 */
public final class Main {
    /** Compiled only where MPJ Express is installed (runner/pom.xml, profile mpj-express). */
    static final String MPJ_WORLD = "org.jiobench.runner.MpjWorld";

    /**
     * The device MPJ Express's starters name third, after the rank and the rank count (multicore,
     * which its threads call smpdev) or the job's configuration (niodev and the others).
     */
    private static final Set<String> MPJ_DEVICES = Set.of("smpdev", "multicore", "niodev", "hybdev", "mxdev",
            "native");

    private Main() {
    }

    public static void main(String[] args) {
        if (startedByMpj(args)) {
            // Under MPJ's multicore device every rank is a thread of one JVM: a rank ends by
            // returning, and MpjWorld tells the job's exit code to the Python side.
            runUnderMpj(args);
            return;
        }
        StopRequest.install();
        System.exit(run(args));
    }

    static boolean startedByMpj(String[] args) {
        return args.length >= 3 && args[0].matches("\\d+") && MPJ_DEVICES.contains(args[2]);
    }

    private static void runUnderMpj(String[] args) {
        try {
            Class.forName(MPJ_WORLD).getDeclaredMethod("run", String[].class).invoke(null, (Object) args);
        } catch (ClassNotFoundException missing) {
            System.err.println("jiobench: error: this runner was built without MPJ Express: install it "
                    + "(apt-get install libmpj-java) and rebuild (make build)");
        } catch (ReflectiveOperationException e) {
            System.err.println("jiobench: error: cannot start under MPJ Express: " + e);
        }
    }

    static int run(String[] args) {
        World world;
        try {
            String control = System.getenv(Wire.CONTROL_VARIABLE);
            world = control == null ? new SoloWorld(System.out, System.err) : LauncherWorld.of(Wire.control(control));
        } catch (IOException e) {
            System.err.println("jiobench: error: cannot reach the launcher: " + e.getMessage());
            return ExitCode.FAILED.code;
        }
        return run(args, world);
    }

    static int run(String[] args, World world) {
        CommandLine cli = new CommandLine(new RunCommand(world));
        cli.getCommandSpec().usageMessage().footer(RunCommand.approachList());
        ApproachOptions.addTo(cli.getCommandSpec());
        Description.addTo(cli);
        cli.setParameterExceptionHandler((problem, ignored) -> {
            world.reject(problem.getMessage() + " (see --help)");
            return ExitCode.MISTAKE.code;
        });
        cli.setExecutionExceptionHandler((problem, ignored, parsed) -> {
            if (problem instanceof UsageError) {
                world.reject(problem.getMessage());
                return ExitCode.MISTAKE.code;
            }
            if (problem instanceof RunStopped) return ExitCode.stopped(StopRequest.signal());
            if (problem instanceof IOException) {
                world.fail(problem.getMessage());
            } else {
                // Neither a user mistake nor an I/O error: a bug, whose trace whoever fixes it needs.
                problem.printStackTrace();
                world.fail("internal error: " + problem + " (stack trace on stderr)");
            }
            return ExitCode.FAILED.code;
        });
        return cli.execute(args);
    }
}
