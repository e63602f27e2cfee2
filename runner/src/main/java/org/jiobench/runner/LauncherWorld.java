package org.jiobench.runner;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A rank served by its mpi4py launcher (runner/python/jiobench/run/rank.py) over two inherited pipes:
 * JSON lines from here, plain lines back. The launcher does the MPI: barriers, the gather of
 * records to rank 0, the agreements after a stonewall and the abort of the whole job; it starts
 * one JVM per fork and removes the files the run created.
 *
 * <p>Created (files: what this rank created, sent the moment it exists) is this launcher's alone.
 * The events it shares with {@link MpjWorld}'s rank 0 have the same types and fields: ready
 * (parameters, environment, created), phase (records: this rank's one), error (exit, messages),
 * failed (messages) and finished (exit, messages). Barrier, wear-out and repeat are questions only
 * this launcher answers; its phase also names the rank whose block this rank reads next (block_read),
 * whose byte count is the answer.
 */
final class LauncherWorld implements World {
    private final int rank;
    private final int size;
    private final int[] hostOfRank;
    private final Task task;
    private final BufferedReader replies;
    private final PrintStream messages;

    private LauncherWorld(int rank, int size, int[] hostOfRank, Task task, int replyFd, int messageFd)
            throws IOException {
        this.rank = rank;
        this.size = size;
        this.hostOfRank = hostOfRank;
        this.task = task;
        this.replies = new BufferedReader(new InputStreamReader(
                new FileInputStream("/dev/fd/" + replyFd), StandardCharsets.UTF_8));
        this.messages = new PrintStream(new FileOutputStream("/dev/fd/" + messageFd), false, StandardCharsets.UTF_8);
    }

    /** This rank, from what its launcher told it ({@link Wire#control}). */
    static LauncherWorld of(Wire.Control control) throws IOException {
        return new LauncherWorld(control.rank(), control.size(), control.hostOfRank(), control.task(),
                control.replyFd(), control.messageFd());
    }

    @Override public int rank() { return rank; }

    @Override public int size() { return size; }

    @Override public int[] hostOfRank() { return hostOfRank; }

    @Override public Task task() { return task; }

    @Override public boolean launched() { return true; }

    @Override
    public void created(Map<Path, FileIdentity> files) {
        if (!files.isEmpty()) send(Wire.created(files));
    }

    @Override
    public boolean ready(Map<String, Object> parameters, Map<String, Object> environment,
            Map<Path, FileIdentity> created) throws IOException {
        send(Wire.ready(parameters, environment, Wire.identities(created)));
        return reply().equals(Wire.START);
    }

    @Override
    public void barrier(String phase) throws IOException {
        send(Wire.barrier(phase));
        String reply = reply();
        if (!reply.equals(Wire.GO)) throw new IOException("launcher answered '" + reply + "' to a barrier");
    }

    @Override
    public long wearOut(long bytes) throws IOException {
        send(Wire.wearOut(bytes));
        String reply = reply();
        try {
            return Long.parseLong(reply);
        } catch (NumberFormatException e) {
            throw new IOException("launcher answered '" + reply + "' to a wear-out");
        }
    }

    @Override
    public long endPhase(RankRecord record, int blockRead) throws IOException {
        send(Wire.phase(record, blockRead));
        String reply = reply();
        try {
            return Long.parseLong(reply);
        } catch (NumberFormatException e) {
            throw new IOException("launcher answered '" + reply + "' to a phase");
        }
    }

    @Override public boolean decidesRepetitions() { return true; }

    @Override public String describe() { return "the mpi4py launcher"; }

    /** The launcher answers with the ids that go on, comma-separated, or an empty line. */
    @Override
    public List<String> anotherRepetition(int fork, List<String> approaches) throws IOException {
        send(Wire.repeat(fork, approaches));
        String reply = reply();
        List<String> going = reply.isEmpty() ? List.of() : List.of(reply.split(","));
        if (!approaches.containsAll(going)) throw new IOException("launcher answered '" + reply + "' to a repeat");
        return going;
    }

    @Override
    public void reject(String message) {
        send(Wire.refused(message));
    }

    @Override
    public void fail(String message) {
        send(Wire.failed(message));
    }

    @Override
    public void finish(int exitCode, String message) {
        send(Wire.finished(exitCode, message == null ? List.of() : List.of(message)));
    }

    private void send(Map<String, Object> message) {
        messages.println(Json.line(message));
        messages.flush();
    }

    /** The launcher's answer; "stop" ends the run wherever it comes. */
    private String reply() throws IOException {
        String line = replies.readLine();
        if (line == null) throw new EOFException("the launcher closed the control pipe");
        if (line.trim().equals(Wire.STOP)) throw new RunStopped("the launcher ended the run");
        return line.trim();
    }
}
