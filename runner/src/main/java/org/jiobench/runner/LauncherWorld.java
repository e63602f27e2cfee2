package org.jiobench.runner;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A rank served by its mpi4py launcher (runner/python/jiobench/launch.py) over two inherited pipes:
 * JSON lines from here, plain lines back. The launcher does the MPI: barriers, the gather of
 * records to rank 0, the stonewall agreement and the abort of the whole job.
 */
final class LauncherWorld implements World {
    static final String CONTROL_VARIABLE = "JIOBENCH_CONTROL";

    private final int rank;
    private final int size;
    private final int reorderShift;
    private final BufferedReader replies;
    private final PrintStream messages;

    private LauncherWorld(int rank, int size, int reorderShift, int replyFd, int messageFd) throws IOException {
        this.rank = rank;
        this.size = size;
        this.reorderShift = reorderShift;
        this.replies = new BufferedReader(new InputStreamReader(
                new FileInputStream("/dev/fd/" + replyFd), StandardCharsets.UTF_8));
        this.messages = new PrintStream(new FileOutputStream("/dev/fd/" + messageFd), false, StandardCharsets.UTF_8);
    }

    /** Reads "rank,size,reorderShift,replyFd,messageFd" as the launcher sets it. */
    static LauncherWorld fromControl(String control) throws IOException {
        String[] fields = control.split(",");
        if (fields.length != 5) throw new IOException(CONTROL_VARIABLE + " is malformed: " + control);
        int[] numbers = new int[5];
        for (int i = 0; i < 5; i++) numbers[i] = Integer.parseInt(fields[i].trim());
        return new LauncherWorld(numbers[0], numbers[1], numbers[2], numbers[3], numbers[4]);
    }

    @Override public int rank() { return rank; }

    @Override public int size() { return size; }

    @Override public int reorderShift() { return reorderShift; }

    @Override
    public boolean ready(Map<String, Object> parameters, Map<String, Object> environment) throws IOException {
        send(message("ready", "parameters", parameters, "environment", environment));
        return reply().equals("start");
    }

    @Override
    public void barrier() throws IOException {
        send(message("barrier"));
        String reply = reply();
        if (!reply.equals("go")) throw new IOException("launcher answered '" + reply + "' to a barrier");
    }

    @Override
    public int endPhase(RankRecord record) throws IOException {
        send(message("record", "record", record));
        return Integer.parseInt(reply());
    }

    @Override
    public void reject(String message) {
        send(message("error", "message", message, "exit", 2));
    }

    @Override
    public void fail(String message) {
        send(message("failed", "message", message));
    }

    @Override
    public void finish(int exitCode, String message) {
        send(message("finished", "exit", exitCode, "message", message));
    }

    private static Map<String, Object> message(String type, Object... fields) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("type", type);
        for (int i = 0; i < fields.length; i += 2) message.put((String) fields[i], fields[i + 1]);
        return message;
    }

    private void send(Map<String, Object> message) {
        messages.println(Json.line(message));
        messages.flush();
    }

    private String reply() throws IOException {
        String line = replies.readLine();
        if (line == null) throw new EOFException("the launcher closed the control pipe");
        return line.trim();
    }
}
