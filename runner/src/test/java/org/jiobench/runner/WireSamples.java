package org.jiobench.runner;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The runner's side of the wire, for runner/python/tests/test_wire.py, which holds it against
 * Python's (jiobench.run.wire): every constant of {@link Wire}, every message type, the exit codes,
 * the fields of each message and of a rank's record as they are written, and what this side reads
 * of the encodings Python wrote (its samples, the one argument: a JSON object).
 */
final class WireSamples {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private WireSamples() {
    }

    public static void main(String[] args) throws Exception {
        Map<?, ?> samples = MAPPER.readValue(args[0], Map.class);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("constants", constants());
        Map<String, String> kinds = new LinkedHashMap<>();
        for (Wire.Kind kind : Wire.Kind.values()) kinds.put(kind.name(), kind.type);
        out.put("kinds", kinds);
        Map<String, Integer> codes = new LinkedHashMap<>();
        for (ExitCode code : ExitCode.values()) codes.put(code.name(), code.code);
        out.put("exit_codes", codes);
        Map<String, Integer> stopped = new LinkedHashMap<>();
        for (String signal : List.of("SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1")) stopped.put(signal, ExitCode.stopped(signal));
        out.put("stopped", stopped);
        out.put("messages", messages());
        out.put("tasks", tasks((List<?>) samples.get("tasks")));
        out.put("mpj_tasks", mpjTasks((List<?>) samples.get("mpj_arguments")));
        out.put("controls", controls((List<?>) samples.get("controls")));
        out.put("own_options", ownOptions((List<?>) samples.get("jvm_options")));
        System.out.println(Json.line(out));
    }

    /** Every String constant of Wire, by name. */
    private static Map<String, String> constants() throws IllegalAccessException {
        Map<String, String> constants = new TreeMap<>();
        for (Field field : Wire.class.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers) && field.getType() == String.class) {
                field.setAccessible(true);
                constants.put(field.getName(), (String) field.get(null));
            }
        }
        return constants;
    }

    /** One message of each type, as the runner builds it. */
    private static List<Object> messages() throws Exception {
        Map<Path, FileIdentity> files = Map.of(Path.of("/scratch/f"), new FileIdentity(2049, -1L));
        RankRecord record = new RankRecord("c-posix", "write", 1, 0, false, 3, 1 << 20, 1, 0.001, 0.5, 0.002, 0.503,
                0.0001, 0.0, false, null, null, true, null, 0, false);
        List<Object> messages = new ArrayList<>(List.of(Wire.created(files),
                Wire.ready(Map.of("file", "/scratch/f"), Map.of(Wire.PLAN_MEMORY_BYTES, 1L << 30),
                        Wire.identities(files)),
                Wire.barrier("c-posix write"), Wire.wearOut(4096), Wire.phase(record, 2),
                Wire.repeat(2, List.of("c-posix")), Wire.refused("-b too small"),
                Wire.refused(List.of(1, 3), List.of("too short", "too short")), Wire.failed("disk full"),
                Wire.failed(List.of(2), List.of("disk full")), Wire.finished(0, List.of()),
                Wire.ranks(new String[] {"node1", "node2"}, new long[] {11, 12}), Wire.abort(1, "MPI failed"),
                Wire.abort(null, "MPI failed")));
        messages.add(MAPPER.readValue(Wire.phaseOfEveryRank(List.of(Json.line(record), Json.line(record))), Map.class));
        return messages;
    }

    private static List<Object> tasks(List<?> texts) {
        List<Object> read = new ArrayList<>();
        for (Object text : texts) read.add(task(Wire.task((String) text)));
        return read;
    }

    private static List<Object> mpjTasks(List<?> argumentLists) {
        List<Object> read = new ArrayList<>();
        for (Object arguments : argumentLists) {
            String[] array = ((List<?>) arguments).toArray(String[]::new);
            read.add(Wire.hasTaskOption(array) ? task(Wire.taskOption(array)) : null);
        }
        return read;
    }

    private static Map<String, Object> task(Task task) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("first", task.first());
        fields.put("fork", task.fork());
        fields.put("approach_index", task.approachIndex());
        fields.put("created", task.created().stream().map(Wire::identityText).sorted().toList());
        return fields;
    }

    private static List<Object> controls(List<?> texts) throws Exception {
        List<Object> read = new ArrayList<>();
        for (Object text : texts) {
            Wire.Control control = Wire.control((String) text);
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("rank", control.rank());
            fields.put("size", control.size());
            fields.put("host_of_rank", Arrays.stream(control.hostOfRank()).boxed().toList());
            fields.put("reply_fd", control.replyFd());
            fields.put("message_fd", control.messageFd());
            fields.put("task", task(control.task()));
            read.add(fields);
        }
        return read;
    }

    private static List<Object> ownOptions(List<?> optionLists) {
        List<Object> read = new ArrayList<>();
        for (Object options : optionLists) {
            List<String> args = new ArrayList<>();
            for (Object option : (List<?>) options) args.add((String) option);
            List<String> own = Wire.ownOptions(args);
            read.add(List.of(own, args));
        }
        return read;
    }
}
