package org.jiobench.runner;

import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.ApproachSettings;
import org.jiobench.workloads.Approaches;
import org.jiobench.workloads.DataForm;
import org.jiobench.workloads.ElementType;
import org.jiobench.workloads.TransferOrder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The per-rank options, with IOR's letters where IOR has one. */
@Command(name = "jiobench-runner", mixinStandardHelpOptions = true, version = "jiobench 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = "Runs one rank of a jiobench run: each approach writes and/or reads its block of the file, "
            + "phase by phase, each phase behind a barrier of all ranks. Started by 'bin/jiobench run' "
            + "(one JVM per MPI rank); started by hand it runs as a single rank and prints one JSON record "
            + "per phase.",
        footerHeading = "%nApproaches:%n")
final class RunCommand implements Callable<Integer> {
    /**
     * The fewest measured repetitions -i auto runs of an approach: with fewer, no interval of the
     * median reaches 95% (runner/python/jiobench/model/stats.py, MIN_REPS).
     */
    static final int AUTO_MIN_REPS = 6;
    /** Below this a deadline ends phases before they move anything worth timing. */
    static final double SHORTEST_DEADLINE_S = 0.01;

    @Spec
    CommandSpec spec;

    private final World world;

    @Option(names = {"-a", "--approach"}, paramLabel = "ID[,ID...]", defaultValue = "paper",
            completionCandidates = GroupNames.class,
            description = "Approach ids, or the groups ${COMPLETION-CANDIDATES} (comma-separated or repeated; "
                + "default: ${DEFAULT-VALUE}).")
    List<String> approaches;

    /** The groups -a takes, as its help names them: from the one registry, every one of them. */
    static final class GroupNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Approaches.groupNames().iterator();
        }
    }

    @Option(names = {"-b", "--block-size"}, converter = Sizes.class, defaultValue = "16MiB", paramLabel = "SIZE",
            description = "Contiguous bytes of one rank per segment (default: ${DEFAULT-VALUE}).")
    long blockSize;

    @Option(names = {"-t", "--transfer-size"}, converter = Sizes.class, defaultValue = "1MiB", paramLabel = "SIZE",
            description = "Bytes of the array moved by one write or read call: the paper's array per process (default: ${DEFAULT-VALUE}).")
    long transferSize;

    @Option(names = {"-s", "--segments"}, defaultValue = "1", paramLabel = "N",
            description = "Times the block layout repeats along the file (default: ${DEFAULT-VALUE}).")
    int segments;

    @Option(names = {"-F", "--file-per-process"}, description = "One file per rank (FILE.00000000, ...) instead of one shared file.")
    boolean filePerProcess;

    @Option(names = {"-o", "--file"}, defaultValue = "jiobench.dat", paramLabel = "FILE",
            description = "The test file (default: ${DEFAULT-VALUE}).")
    String file;

    @Option(names = {"-w", "--write"}, description = "Write phases (with -r: both; with neither: both).")
    boolean write;

    @Option(names = {"-r", "--read"}, description = "Read phases; alone, the file must already hold the data (same -b, -s, --type, --seed).")
    boolean read;

    @Option(names = {"-i", "--repetitions"}, defaultValue = "1", paramLabel = "N|auto",
            description = "Measured repetitions of each approach's phases in each fork; auto: as many as the 95%% "
                + "interval of each median needs to reach --ci-target, within --time-budget and --max-reps "
                + "(at least " + AUTO_MIN_REPS + " per approach) (default: ${DEFAULT-VALUE}).")
    String repetitions;

    @Option(names = "--ci-target", converter = Amounts.Share.class, defaultValue = "5%", paramLabel = "PERCENT",
            description = "With -i auto: the half-width of the 95%% interval of each median sought, as a share of it (default: ${DEFAULT-VALUE}).")
    double ciTarget;

    @Option(names = "--time-budget", converter = Amounts.Seconds.class, defaultValue = "10m", paramLabel = "DURATION",
            description = "With -i auto: the time the run's phases may take (e.g. 120s, 10m, 1h), shared equally by the approaches (default: ${DEFAULT-VALUE}).")
    double timeBudget;

    @Option(names = "--max-reps", defaultValue = "30", paramLabel = "N",
            description = "With -i auto: the most measured repetitions of an approach, all forks together (default: ${DEFAULT-VALUE}).")
    int maxReps;

    @Option(names = "--warmup", defaultValue = "1", paramLabel = "N",
            description = "Warm-up repetitions at the start of each fork: run and kept, never in a statistic (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--forks", defaultValue = "1", paramLabel = "N",
            description = "Fresh JVMs per approach on every rank, interleaved across approaches; 0: one JVM for all approaches (default: ${DEFAULT-VALUE}).")
    int forks;

    @Option(names = {"-e", "--fsync"}, description = "fsync after the write transfers, inside the timed interval.")
    boolean fsync;

    @Option(names = {"-D", "--deadline"}, defaultValue = "0", paramLabel = "SECONDS",
            description = "Stonewall: end each phase this many seconds after its barrier (per-element loops check every 4096 elements; 0: none).")
    double deadline;

    @Option(names = "--wear-out",
            description = "With -D: after the deadline every rank goes on until it has moved as much as the rank that moved most.")
    boolean wearOut;

    @Option(names = "--drop-cache",
            description = "Before each read phase, drop the file's pages from this node's cache (fdatasync + posix_fadvise), untimed.")
    boolean dropCache;

    @Option(names = {"-C", "--reorder"},
            description = "Read a block written on another node, each rank a different one where the placement allows, so a "
                + "read does not find what this node wrote in its cache; on FUSE and NFS only with --drop-cache.")
    boolean reorder;

    @Option(names = {"-Q", "--task-per-node-offset"}, defaultValue = "0", paramLabel = "N",
            description = "With -C: read the block of the rank N ranks over (IOR's -Q; default: chosen from the hosts).")
    int reorderOffset;

    @Option(names = "--stripe-count", defaultValue = "0", paramLabel = "N",
            description = "Lustre and CephFS: the stripe count of each file the run creates (-1: every OST or OSD; 0: the directory's).")
    int stripeCount;

    @Option(names = "--stripe-size", converter = Sizes.class, paramLabel = "SIZE",
            description = "Lustre and CephFS: the stripe size (CephFS's stripe unit), a multiple of 64KiB (default: the directory's).")
    Long stripeSize;

    @Option(names = "--object-size", converter = Sizes.class, paramLabel = "SIZE",
            description = "CephFS: the size of each object, a multiple of the stripe size (default: with --stripe-size, "
                + "its smallest multiple of at least 4MiB; without, the directory's).")
    Long objectSize;

    @Option(names = "--stripe-ignore",
            description = "On a file system other than Lustre and CephFS, run without striping instead of refusing the stripe options.")
    boolean stripeIgnore;

    @Option(names = "--type", defaultValue = "int", paramLabel = "TYPE",
            description = "Element type of the array: byte, int, long, float or double; byte allows operations of one byte (default: ${DEFAULT-VALUE}).")
    String type;

    @Option(names = "--order", defaultValue = "sequential", paramLabel = "ORDER",
            description = "Transfer order within a rank: sequential; shuffled (each transfer once, in an order drawn from --seed); random (positions drawn from --seed with replacement, as many as the transfers) (default: ${DEFAULT-VALUE}).")
    String order;

    @Option(names = "--verify", description = "Check every byte read, and read back every byte written, against the pattern (untimed).")
    boolean verify;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "N",
            description = "Seed of the data pattern and of the shuffled or random order (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--keep", description = "Keep the file(s) the run created (removed at the end otherwise).")
    boolean keep;

    @Option(names = "--overwrite", description = "Allow writing over an existing file (it is never truncated or removed).")
    boolean overwrite;

    @Option(names = "--results", defaultValue = "results", paramLabel = "DIR",
            description = "Where the launcher writes the run file (default: ${DEFAULT-VALUE}).")
    Path results;

    @Option(names = "--byte-order", defaultValue = "big", paramLabel = "ORDER",
            description = "Byte order of the elements in the file: big (DataOutput's, the papers') or little (x86's own, MPI-IO's native) (default: ${DEFAULT-VALUE}).")
    String byteOrder;

    @Option(names = "--direct",
            description = "Open the file with O_DIRECT (bypassing the page cache), for the approaches that can; transfers must be whole file system blocks.")
    boolean direct;

    @Option(names = "--dry-run",
            description = "Check the options, print the parameters as the run file would record them (one JSON line) "
                + "and exit; touch nothing.")
    boolean dryRun;

    @Option(names = "--dry-run-ranks", paramLabel = "N",
            description = "With --dry-run: check the options as those of a run of N ranks on one node (-C and -Q "
                + "depend on the rank count; default: ${DEFAULT-VALUE}).")
    int dryRunRanks = 1;

    RunCommand(World world) {
        this.world = world;
    }

    @Override
    public Integer call() throws Exception {
        require(dryRunRanks >= 1, "--dry-run-ranks must be 1 or more");
        RunSettings settings = validated();
        if (dryRun) {
            MemoryNeeds.checkEveryJvm(settings, Runtime.getRuntime().maxMemory());
            spec.commandLine().getOut().println(Json.line(settings.describe()));
            spec.commandLine().getOut().flush();
            return 0;
        }
        try {
            return new Benchmark(settings, world).run();
        } catch (OutOfMemoryError e) {
            throw new java.io.IOException("out of memory (this JVM may use " + Sizes.describe(Runtime.getRuntime()
                    .maxMemory()) + "; more with --jvm-args=-Xmx...): " + e.getMessage(), e);
        }
    }

    /** Turns the options into settings, or names the first thing wrong with them. */
    RunSettings validated() {
        List<Approach> chosen = chosenApproaches();
        Elements elements = elements();
        Geometry geometry = geometry(elements.type());
        Schedule schedule = new Schedule(chosen, write || !read, read || !write, repetitions(), warmup, forks);
        require(warmup >= 0, "--warmup must be 0 or more");
        require(forks >= 0, "--forks must be 0 or more");
        Deadline stonewall = deadline();
        Honesty honesty = honesty();
        Striping striping = striping();
        Output output = new Output(results, keep, overwrite);
        for (Approach approach : chosen) {
            approach.unavailable().ifPresent(reason -> require(false,
                    "approach '" + approach.id() + "' is unavailable: " + reason));
            require(elements.byteOrder() == ByteOrder.BIG_ENDIAN || approach.writesEitherByteOrder(),
                    "--byte-order little: " + approach.id() + " writes big-endian only (DataOutput's order)");
            require(!direct || approach.opensDirect() || approach.dataForm() == DataForm.NONE,
                    "--direct: " + approach.id() + " cannot open its file with O_DIRECT");
        }
        RunSettings settings = new RunSettings(schedule, geometry, elements, stonewall, honesty, striping, output,
                ApproachOptions.values(spec, chosen));
        ApproachSettings given = settings.approachSettings();
        for (Approach approach : chosen) approach.refusal(given).ifPresent(reason -> require(false, reason));
        return settings;
    }

    private List<Approach> chosenApproaches() {
        List<String> names = approaches.stream().flatMap(value -> List.of(value.split(",", -1)).stream()).toList();
        require(!names.contains(""), "-a " + String.join(",", approaches)
                + " names an empty approach: give ids separated by single commas");
        try {
            return Approaches.resolve(names);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Elements elements() {
        ElementType elementType;
        try {
            elementType = ElementType.fromId(type);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        require(byteOrder.equals("big") || byteOrder.equals("little"),
                "unknown byte order '" + byteOrder + "' (expected big or little)");
        return new Elements(elementType, byteOrder.equals("big") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN,
                seed);
    }

    private Geometry geometry(ElementType elementType) {
        TransferOrder transferOrder;
        try {
            transferOrder = TransferOrder.valueOf(order.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(),
                    "unknown order '" + order + "' (expected sequential, shuffled or random)");
        }
        require(blockSize % transferSize == 0, "block size " + Sizes.format(blockSize)
                + " is not a multiple of transfer size " + Sizes.format(transferSize));
        require(transferSize % elementType.bytes() == 0, "transfer size " + transferSize + " is not a multiple of the "
                + elementType.id() + " size (" + elementType.bytes() + " bytes; --type byte allows any size)");
        require(transferSize <= Integer.MAX_VALUE - 8, "transfer size " + Sizes.format(transferSize)
                + " is larger than a Java array can be");
        require(segments > 0, "segments must be at least 1");
        Geometry geometry = new Geometry(checkedFile(), filePerProcess, blockSize, transferSize, segments,
                transferOrder);
        require(geometry.transfers() <= Integer.MAX_VALUE, "too many transfers per rank: raise the transfer size");
        return geometry;
    }

    private Deadline deadline() {
        require(!wearOut || deadline > 0, "--wear-out needs a deadline (-D SECONDS)");
        require(deadline == 0 || deadline >= SHORTEST_DEADLINE_S && !Double.isInfinite(deadline),
                "-D " + deadline + ": the deadline must be 0 (none) or at least " + SHORTEST_DEADLINE_S + " seconds");
        return new Deadline(deadline, wearOut);
    }

    private Honesty honesty() {
        // A dry run checks the options of a run to come (a sweep's point), whose ranks are not here.
        int[] hostOfRank = dryRun ? new int[dryRunRanks] : world.hostOfRank();
        int ranks = hostOfRank.length;
        require(reorderOffset == 0 || reorder, "-Q sets how far -C looks: give -C too");
        require(reorderOffset == 0 || reorderOffset > 0 && reorderOffset < ranks,
                "-Q " + reorderOffset + " must be from 1 to the rank count less one (" + (ranks - 1) + ")");
        return new Honesty(fsync, dropCache, reorderOffset,
                reorder ? Reorder.readBlockOf(hostOfRank, reorderOffset) : null, direct, verify);
    }

    private Striping striping() {
        require(stripeCount >= -1, "--stripe-count must be -1 (every OST or OSD), 0 (the directory's) or more");
        require(stripeSize == null || stripeSize % Striping.SIZE_UNIT == 0,
                "--stripe-size " + (stripeSize == null ? "" : Sizes.format(stripeSize)) + " is not a multiple of 64KiB, "
                + "as Lustre and CephFS require");
        require(stripeSize == null || stripeSize < Striping.SIZE_LIMIT,
                "--stripe-size " + (stripeSize == null ? "" : Sizes.format(stripeSize)) + " is not under 4GiB, as "
                + "Lustre and CephFS require");
        require(objectSize == null || objectSize % Striping.SIZE_UNIT == 0,
                "--object-size " + (objectSize == null ? "" : Sizes.format(objectSize)) + " is not a multiple of 64KiB, "
                + "as CephFS requires");
        require(objectSize == null || objectSize < Striping.SIZE_LIMIT,
                "--object-size " + (objectSize == null ? "" : Sizes.format(objectSize)) + " is more than any CephFS "
                + "takes: its layouts hold objects under 4GiB, and its OSDs objects of at most osd_max_object_size "
                + "(128MiB unless raised)");
        require(objectSize == null || stripeSize == null || stripeSize == 0 || objectSize % stripeSize == 0,
                "--object-size " + (objectSize == null ? "" : Sizes.format(objectSize)) + " is not a multiple of "
                + "--stripe-size " + (stripeSize == null ? "" : Sizes.format(stripeSize))
                + ": CephFS fills each object with whole stripe units");
        return new Striping(stripeCount, stripeSize == null ? 0 : stripeSize, objectSize == null ? 0 : objectSize,
                stripeIgnore);
    }

    /** -i N, or -i auto with its target, budget and cap; the -i auto options given with a count are refused. */
    private Repetitions repetitions() {
        boolean automatic = repetitions.equals(Repetitions.AUTO);
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        for (String option : List.of("--ci-target", "--time-budget", "--max-reps")) {
            require(automatic || given == null || !given.hasMatchedOption(option), option + " applies to -i auto only");
        }
        if (!automatic) {
            int count;
            try {
                count = Integer.parseInt(repetitions);
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(), "-i " + repetitions + ": give a count or auto");
            }
            require(count > 0, "repetitions must be at least 1");
            return new Repetitions(count, 0, 0, 0);
        }
        require(ciTarget > 0 && ciTarget < 1, "--ci-target must be more than 0% and less than 100%");
        require(timeBudget > 0, "--time-budget must be more than 0");
        require(maxReps >= AUTO_MIN_REPS, "--max-reps must be at least " + AUTO_MIN_REPS
                + " (the fewest repetitions with a 95% interval of the median)");
        // After the values, which a dry run checks as a rank's runner would. A dry run checks the
        // options of a run that bin/jiobench run launches, whose own launchers decide (a sweep
        // refuses -i auto for a point of MPJ Express's, which cannot).
        require(dryRun || world.decidesRepetitions(), "-i auto: the launcher decides each next repetition from every rank's "
                + "phases, and this one cannot (" + world.describe() + "); give a count (-i N)");
        return new Repetitions(0, ciTarget, timeBudget, maxReps);
    }

    /** The file as a path, refusing names that cannot be one (empty, a directory by its trailing slash). */
    private Path checkedFile() {
        require(!file.isEmpty(), "-o: the file name is empty");
        require(!file.endsWith("/"), "-o " + file + " ends with '/': name a file, not a directory");
        Path path;
        try {
            path = Path.of(file);
        } catch (java.nio.file.InvalidPathException e) {
            throw new ParameterException(spec.commandLine(), "-o " + file + ": not a path (" + e.getReason() + ")");
        }
        require(path.getFileName() != null, "-o " + file + ": name a file, not a directory");
        return path;
    }

    private void require(boolean condition, String message) {
        if (!condition) throw new ParameterException(spec.commandLine(), message);
    }

    /** The footer that lists every approach, from the one registry. */
    static String[] approachList() {
        return Approaches.descriptions().entrySet().stream()
                .map(entry -> String.format("  %s%n      %s", entry.getKey(), entry.getValue()))
                .toArray(String[]::new);
    }
}
