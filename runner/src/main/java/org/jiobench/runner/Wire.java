package org.jiobench.runner;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What a rank's JVM says to whatever started it, built here alone (docs/protocol.md, sections 4 and
 * 6): the JSON messages {@link LauncherWorld} writes on its message pipe and {@code MpjWorld}'s rank 0
 * prints after {@link #MPJ_TAG}, the answers the mpi4py launcher gives, and the exit codes. Their
 * reader is runner/python/jiobench/run/wire.py, which holds the same words.
 */
final class Wire {
    /** How the mpi4py launcher tells a JVM its rank and pipes ({@link LauncherWorld#fromControl}). */
    static final String CONTROL_VARIABLE = "JIOBENCH_CONTROL";
    /** What begins each of MPJ Express's rank 0's messages among the job's other output. */
    static final String MPJ_TAG = "@jiobench ";

    /**
     * The task of a JVM (its last field of the control variable, MPJ's {@code --task=}): "first", or
     * "FORK:APPROACH-INDEX:IDENTITIES" ({@link Task#parse}), IDENTITIES being the created files'
     * "DEV.INO", joined by "+".
     */
    static final String TASK_FIRST = "first";
    static final String TASK_SEPARATOR = ":";
    private static final String IDENTITY_SEPARATOR = "+";
    private static final String DEVICE_INODE_SEPARATOR = ".";

    /** The launcher's answers: the run starts, every rank is at the barrier, the run ends now. */
    static final String START = "start";
    static final String GO = "go";
    static final String STOP = "stop";

    /** Exit codes, as `jiobench run` gives them too (run/endings.py). */
    static final int DONE = 0;
    static final int FAILED = 1;
    static final int MISTAKE = 2;

    private Wire() {
    }

    /** 128 + the signal that stopped the run; a stop whose signal is unknown is a failure. */
    static int stopped(String signal) {
        if (signal == null) return FAILED;
        return 128 + switch (signal) {
            case "SIGHUP" -> 1;
            case "SIGINT" -> 2;
            default -> 15;
        };
    }

    /**
     * Files this rank just created, each absolute with its identity: the launcher removes them
     * should the run end early, if they are still what the run created.
     */
    static Map<String, Object> created(Map<Path, FileIdentity> files) {
        return message("created", "files", identities(files));
    }

    /** The JVM is ready to run; {@code created} is every file it created, as {@link #created} gives them. */
    static Map<String, Object> ready(Map<String, Object> parameters, Map<String, Object> environment,
            Map<String, String> created) {
        return message("ready", "parameters", parameters, "environment", environment, "created", created);
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
        return message("barrier", "phase", phase);
    }

    static Map<String, Object> wearOut(long bytes) {
        return message("wear-out", "bytes", bytes);
    }

    /** One rank's record of a phase, and the rank whose block it reads next. */
    static Map<String, Object> phase(RankRecord record, int blockRead) {
        return message("phase", "records", List.of(record), "block_read", blockRead);
    }

    /** Every rank's record of a phase, each a JSON object as {@link Json#line} wrote it. */
    static String phaseOfEveryRank(List<String> records) {
        return "{\"type\":\"phase\",\"records\":[" + String.join(",", records) + "]}";
    }

    static Map<String, Object> repeat(int fork, List<String> approaches) {
        return message("repeat", "fork", fork, "approaches", approaches);
    }

    /** This rank's options were refused. */
    static Map<String, Object> refused(String why) {
        return message("error", "exit", MISTAKE, "messages", List.of(why));
    }

    /**
     * The options were refused: what each rank said ({@code ranks}, in rank order, and their
     * {@code messages}); the reader says a complaint they all made alike once.
     */
    static Map<String, Object> refused(List<Integer> ranks, List<String> messages) {
        return message("error", "exit", MISTAKE, "ranks", ranks, "messages", messages);
    }

    /** The run cannot go on, as a rank, or the job, says it. */
    static Map<String, Object> failed(String why) {
        return message("failed", "messages", List.of(why));
    }

    /** The run cannot go on: what the ranks that failed said, as {@link #refused(List, List)}. */
    static Map<String, Object> failed(List<Integer> ranks, List<String> messages) {
        return message("failed", "ranks", ranks, "messages", messages);
    }

    static Map<String, Object> finished(long exit, List<String> messages) {
        return message("finished", "exit", exit, "messages", messages);
    }

    /** MPJ Express's ranks are up: every rank's host and JVM's process id. */
    static Map<String, Object> ranks(String[] hosts, long[] pids) {
        return message("ranks", "hosts", hosts, "pids", pids);
    }

    /** A rank ({@code null}: not yet known) whose MPI calls themselves failed. */
    static Map<String, Object> abort(Integer rank, String problem) {
        return message("abort", "rank", rank, "message", problem);
    }

    private static Map<String, Object> message(String type, Object... fields) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("type", type);
        for (int i = 0; i < fields.length; i += 2) message.put((String) fields[i], fields[i + 1]);
        return message;
    }
}
