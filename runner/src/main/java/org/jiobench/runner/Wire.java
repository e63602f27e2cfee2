package org.jiobench.runner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Everything that crosses between a rank's JVM and whatever started it, defined here alone
 * (docs/protocol.md): the JSON messages {@link LauncherWorld} writes on its message pipe and {@code
 * MpjWorld}'s rank 0 prints after {@link #MPJ_TAG}, the answers the mpi4py launcher gives, the control
 * variable, the task and its MPJ Express option, each rank's host in runs, the property that counts
 * jiobench's own JVM options and the key of the plan's memory. Their other side is
 * runner/python/jiobench/run/wire.py, which holds the same words; runner/python/tests/test_wire.py
 * runs both sides ({@code WireSamples}) and fails where they differ.
 */
final class Wire {
    /** How the mpi4py launcher tells a JVM its rank and pipes ({@link #control}). */
    static final String CONTROL_VARIABLE = "JIOBENCH_CONTROL";
    /** What begins each of MPJ Express's rank 0's messages among the job's other output. */
    static final String MPJ_TAG = "@jiobench ";
    /** What the Python side puts before the runner's options under MPJ Express: the JVM's task. */
    static final String TASK_OPTION = "--task=";
    /**
     * The system property that says how many of the JVM options before it are jiobench's own: the
     * runner reports them apart from the user's (environment.jvm.jiobench_args and args).
     */
    static final String OWN_OPTIONS_PROPERTY = "jiobench.own.options";
    /** The key of the ready message's environment that holds what the JVM's plan needs of memory. */
    static final String PLAN_MEMORY_BYTES = "plan_memory_bytes";

    /**
     * The task of a JVM (its last field of the control variable, MPJ's {@code --task=}): "first", or
     * "FORK:APPROACH-INDEX:IDENTITIES" ({@link #task(String)}), IDENTITIES being the created files'
     * "DEV.INO", joined by "+".
     */
    static final String TASK_FIRST = "first";
    static final String TASK_SEPARATOR = ":";
    static final String IDENTITY_SEPARATOR = "+";
    static final String DEVICE_INODE_SEPARATOR = ".";
    /** Each rank's host number in runs: "HOST*COUNT" (or "HOST" for one rank), joined by ".". */
    static final String RUN_SEPARATOR = ".";
    static final String COUNT_SEPARATOR = "*";
    /** The control variable's fields, in order, joined by ",". */
    static final String CONTROL_SEPARATOR = ",";
    private static final int CONTROL_FIELDS = 6;

    /** The {@code type} of each message, as it is spelled on the wire. */
    enum Kind {
        CREATED("created"), READY("ready"), BARRIER("barrier"), WEAR_OUT("wear-out"), PHASE("phase"),
        REPEAT("repeat"), REFUSED("error"), FAILED("failed"), FINISHED("finished"),
        /** MPJ Express only. */
        RANKS("ranks"),
        /** MPJ Express only. */
        ABORT("abort");

        final String type;

        Kind(String type) {
            this.type = type;
        }
    }

    /**
     * What the mpi4py launcher tells a JVM in {@link #CONTROL_VARIABLE}: "RANK,SIZE,HOSTS,REPLY-FD,
     * MESSAGE-FD,TASK".
     *
     * @param hostOfRank each rank's host number ({@link #hostsOf})
     */
    record Control(int rank, int size, int[] hostOfRank, int replyFd, int messageFd, Task task) {
    }

    /** The launcher's answers: the run starts, every rank is at the barrier, the run ends now. */
    static final String START = "start";
    static final String GO = "go";
    static final String STOP = "stop";

    private Wire() {
    }

    /** Reads {@link #CONTROL_VARIABLE}'s value. */
    static Control control(String text) throws IOException {
        String[] fields = text.split(CONTROL_SEPARATOR);
        if (fields.length != CONTROL_FIELDS) throw new IOException(CONTROL_VARIABLE + " is malformed: " + text);
        try {
            int size = Integer.parseInt(fields[1].trim());
            return new Control(Integer.parseInt(fields[0].trim()), size, hostsOf(fields[2].trim(), size),
                    Integer.parseInt(fields[3].trim()), Integer.parseInt(fields[4].trim()), task(fields[5].trim()));
        } catch (IllegalArgumentException e) {
            throw new IOException(CONTROL_VARIABLE + " is malformed: " + text + " (" + e.getMessage() + ")");
        }
    }

    /**
     * Each rank's host number from the launcher's runs, "HOST*COUNT" for COUNT ranks in a row on one
     * host (or "HOST" for one), separated by dots: "0*2.1*2" for ranks placed node by node on two
     * nodes, "0.1.0.1" for the same ranks placed round-robin. Ranks placed node by node, as most are,
     * take a run per node, which keeps a large job's environment short.
     */
    static int[] hostsOf(String runs, int size) throws IOException {
        int[] hosts = new int[size];
        int next = 0;
        for (String run : runs.split(Pattern.quote(RUN_SEPARATOR))) {
            String[] hostAndCount = run.split(Pattern.quote(COUNT_SEPARATOR), 2);
            int count = hostAndCount.length == 2 ? Integer.parseInt(hostAndCount[1]) : 1;
            if (count < 1 || count > size - next) throw notRanksOf(runs, size);
            Arrays.fill(hosts, next, next + count, Integer.parseInt(hostAndCount[0]));
            next += count;
        }
        if (next != size) throw notRanksOf(runs, size);
        return hosts;
    }

    private static IOException notRanksOf(String runs, int size) {
        return new IOException(CONTROL_VARIABLE + ": the hosts '" + runs + "' are not those of " + size + " ranks");
    }

    /**
     * Reads a task as the launchers pass it: {@link #TASK_FIRST}, or "FORK:APPROACH-INDEX:IDENTITIES"
     * for every later JVM of the run.
     */
    static Task task(String text) {
        if (text.equals(TASK_FIRST)) return Task.FIRST;
        String[] parts = text.split(TASK_SEPARATOR, -1);
        if (parts.length != 3) throw new IllegalArgumentException("no task: " + text);
        return new Task(false, Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), identities(parts[2]));
    }

    /**
     * The task of an MPJ Express job, from the application's arguments: {@link #TASK_OPTION} first
     * where the Python side started it, else none (the first JVM, started by hand).
     */
    static Task taskOption(String[] applicationArguments) {
        return hasTaskOption(applicationArguments)
                ? task(applicationArguments[0].substring(TASK_OPTION.length())) : Task.FIRST;
    }

    static boolean hasTaskOption(String[] applicationArguments) {
        return applicationArguments.length > 0 && applicationArguments[0].startsWith(TASK_OPTION);
    }

    /**
     * Takes jiobench's own options, and the property that counts them, out of the JVM's options,
     * which leaves the user's; returns jiobench's, none where the runner was started otherwise.
     */
    static List<String> ownOptions(List<String> args) {
        String counted = "-D" + OWN_OPTIONS_PROPERTY + "=";
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).startsWith(counted) && args.get(i).substring(counted.length()).matches("\\d{1,4}")) {
                int count = Integer.parseInt(args.get(i).substring(counted.length()));
                List<String> own = new ArrayList<>(args.subList(Math.max(0, i - count), i));
                args.subList(Math.max(0, i - count), i + 1).clear();
                return own;
            }
        }
        return List.of();
    }

    /**
     * Files this rank just created, each absolute with its identity: the launcher removes them
     * should the run end early, if they are still what the run created.
     */
    static Map<String, Object> created(Map<Path, FileIdentity> files) {
        return message(Kind.CREATED, "files", identities(files));
    }

    /** The JVM is ready to run; {@code created} is every file it created, as {@link #created} gives them. */
    static Map<String, Object> ready(Map<String, Object> parameters, Map<String, Object> environment,
            Map<String, String> created) {
        return message(Kind.READY, "parameters", parameters, "environment", environment, "created", created);
    }

    /** Each file's absolute path and its identity's text. */
    static Map<String, String> identities(Map<Path, FileIdentity> files) {
        Map<String, String> texts = new LinkedHashMap<>();
        files.forEach((path, identity) -> texts.put(path.toAbsolutePath().toString(), identityText(identity)));
        return texts;
    }

    /** Unsigned, as stat(2) gives them and Python reads them: a FUSE file system's inodes pass 2^63. */
    static String identityText(FileIdentity identity) {
        return Long.toUnsignedString(identity.device()) + DEVICE_INODE_SEPARATOR + Long.toUnsignedString(identity.inode());
    }

    static FileIdentity identity(String text) {
        String[] parts = text.split(Pattern.quote(DEVICE_INODE_SEPARATOR));
        if (parts.length != 2) throw new IllegalArgumentException("no file identity: " + text);
        return new FileIdentity(Long.parseUnsignedLong(parts[0]), Long.parseUnsignedLong(parts[1]));
    }

    /** The identities of a task's last field, "DEV.INO+DEV.INO", or none where it is empty. */
    static Set<FileIdentity> identities(String text) {
        if (text.isEmpty()) return Set.of();
        return Arrays.stream(text.split(Pattern.quote(IDENTITY_SEPARATOR))).map(Wire::identity)
                .collect(Collectors.toUnmodifiableSet());
    }

    static Map<String, Object> barrier(String phase) {
        return message(Kind.BARRIER, "phase", phase);
    }

    static Map<String, Object> wearOut(long bytes) {
        return message(Kind.WEAR_OUT, "bytes", bytes);
    }

    /** One rank's record of a phase, and the rank whose block it reads next. */
    static Map<String, Object> phase(RankRecord record, int blockRead) {
        return message(Kind.PHASE, "records", List.of(record), "block_read", blockRead);
    }

    /** Every rank's record of a phase, each a JSON object as {@link Json#line} wrote it. */
    static String phaseOfEveryRank(List<String> records) {
        return "{\"type\":\"" + Kind.PHASE.type + "\",\"records\":[" + String.join(",", records) + "]}";
    }

    static Map<String, Object> repeat(int fork, List<String> approaches) {
        return message(Kind.REPEAT, "fork", fork, "approaches", approaches);
    }

    /** This rank's options were refused. */
    static Map<String, Object> refused(String why) {
        return message(Kind.REFUSED, "exit", ExitCode.MISTAKE.code, "messages", List.of(why));
    }

    /**
     * The options were refused: what each rank said ({@code ranks}, in rank order, and their
     * {@code messages}); the reader says a complaint they all made alike once.
     */
    static Map<String, Object> refused(List<Integer> ranks, List<String> messages) {
        return message(Kind.REFUSED, "exit", ExitCode.MISTAKE.code, "ranks", ranks, "messages", messages);
    }

    /** The run cannot go on, as a rank, or the job, says it. */
    static Map<String, Object> failed(String why) {
        return message(Kind.FAILED, "messages", List.of(why));
    }

    /** The run cannot go on: what the ranks that failed said, as {@link #refused(List, List)}. */
    static Map<String, Object> failed(List<Integer> ranks, List<String> messages) {
        return message(Kind.FAILED, "ranks", ranks, "messages", messages);
    }

    static Map<String, Object> finished(long exit, List<String> messages) {
        return message(Kind.FINISHED, "exit", exit, "messages", messages);
    }

    /** MPJ Express's ranks are up: every rank's host and JVM's process id. */
    static Map<String, Object> ranks(String[] hosts, long[] pids) {
        return message(Kind.RANKS, "hosts", hosts, "pids", pids);
    }

    /** A rank ({@code null}: not yet known) whose MPI calls themselves failed. */
    static Map<String, Object> abort(Integer rank, String problem) {
        return message(Kind.ABORT, "rank", rank, "message", problem);
    }

    private static Map<String, Object> message(Kind kind, Object... fields) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("type", kind.type);
        for (int i = 0; i < fields.length; i += 2) message.put((String) fields[i], fields[i + 1]);
        return message;
    }
}
