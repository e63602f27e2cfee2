package org.jiobench.runner;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mpi.Intracomm;
import mpi.MPI;

/**
 * The ranks of an MPJ Express job, started by MPJ's own starter for {@code jiobench run --launcher
 * mpj-multicore|mpj-niodev} (runner/python/jiobench/run/mpj.py). Under the multicore device every rank
 * is a thread of one JVM, loaded by a class loader of its own (so with its own copy of this class
 * and of MPI's); under niodev every rank is a JVM.
 *
 * <p>Every synchronisation is one round of collectives: an Allgather of each rank's step, a number
 * and the length of a text, then, where some rank has a text, an Allgatherv of the texts. A rank
 * that fails, or rejects the options, enters the next round with its message where the others
 * enter a barrier or hand in a record, so every rank learns of it in the same round and none is
 * left waiting in a collective that the failed rank never calls. The round before a phase is its
 * barrier: no rank leaves an Allgather before every rank has entered it, and the phase's clock
 * starts when it returns (System.nanoTime; MPJ's Wtime ticks in whole seconds).
 *
 * <p>Rank 0 tells the Python side what happens, on standard output (where MPJ relays the output of
 * every rank), one line per event: {@value Wire#MPJ_TAG} and a JSON object ({@link Wire}) whose type is ranks (hosts and
 * process ids), ready (parameters, environment, the files the run created), error (options
 * rejected), phase (every rank's record), failed or finished (exit code and messages): the types
 * and fields {@link LauncherWorld} sends for the same events. A rank whose MPI calls themselves
 * fail prints abort, and the Python side then ends the job's processes.
 */
final class MpjWorld implements World {
    private enum Step { HELLO, READY, REJECT, BARRIER, WEAR_OUT, RECORD, FAIL, FINISH }

    /** What every rank handed in to one round, by rank. */
    private record Round(Step[] steps, long[] values, String[] texts) {
        boolean any(Step step) {
            return Arrays.asList(steps).contains(step);
        }

        List<Integer> ranksAt(Step step) {
            List<Integer> ranks = new ArrayList<>();
            for (int r = 0; r < steps.length; r++) if (steps[r] == step) ranks.add(r);
            return ranks;
        }
    }

    /** Another rank failed or rejected the options: this rank stops too, and rank 0 has said why. */
    private static final class JobStopped extends IOException {
        JobStopped(String message) {
            super(message);
        }
    }

    private final Intracomm comm = MPI.COMM_WORLD;
    private final int rank = comm.Rank();
    private final int size = comm.Size();
    private final PrintStream out;
    private final Task task;
    private final boolean launched;
    private final String[] runnerArguments;
    private int[] hostOfRank;
    private int ranksInThisJvm;
    /** Set once every rank knows the job is over: no round follows. */
    private boolean over;
    /** Set when a collective itself failed: MPI can no longer be trusted to finalize. */
    private boolean broken;

    private MpjWorld(String[] applicationArguments, PrintStream out) {
        this.out = out;
        boolean taskGiven = Wire.hasTaskOption(applicationArguments);
        this.launched = taskGiven;
        this.task = Wire.taskOption(applicationArguments);
        this.runnerArguments = taskGiven
                ? Arrays.copyOfRange(applicationArguments, 1, applicationArguments.length)
                : applicationArguments;
    }

    /**
     * Runs this rank: MPI.Init takes MPJ's leading arguments, picocli gets the rest. Returns rather
     * than throws or exits, whatever happens: MPJ's multicore starter ends the whole JVM, with exit
     * code 0, when a rank's main throws.
     */
    static void run(String[] mpjArguments) {
        PrintStream out = System.out;
        MpjWorld world;
        try {
            world = new MpjWorld(MPI.Init(mpjArguments), out);
        } catch (RuntimeException e) {
            print(out, Wire.abort(null, "MPJ Express could not start this rank: " + e));
            return;
        }
        try {
            world.hello();
            Main.run(world.runnerArguments, world);
        } catch (IOException | RuntimeException | Error e) {
            world.fail(e.toString());
        }
        if (world.broken) return;
        try {
            MPI.Finalize();
        } catch (RuntimeException e) {
            print(out, Wire.abort(world.rank, "rank " + world.rank + ": MPI.Finalize: " + e));
        }
    }

    /**
     * Learns every rank's host (for -C) and process id (for the Python side, and to count the
     * ranks that share this JVM).
     */
    private void hello() throws IOException {
        long pid = ProcessHandle.current().pid();
        String host = MPI.Get_processor_name();
        Round round = round(Step.HELLO, pid, host);
        Map<String, Integer> numbers = new HashMap<>();
        hostOfRank = new int[size];
        for (int r = 0; r < size; r++) {
            hostOfRank[r] = numbers.computeIfAbsent(round.texts()[r], name -> numbers.size());
        }
        for (int r = 0; r < size; r++) if (round.values()[r] == pid && round.texts()[r].equals(host)) ranksInThisJvm++;
        if (rank == 0) print(Wire.ranks(round.texts(), round.values()));
    }

    @Override public int rank() { return rank; }

    @Override public int ranksInThisJvm() { return ranksInThisJvm; }

    @Override public int size() { return size; }

    @Override public int[] hostOfRank() { return hostOfRank; }

    @Override public Task task() { return task; }

    @Override public boolean launched() { return launched; }

    /** The Python side only reads what rank 0 prints: it has no way to answer a rank. */
    @Override public String describe() { return "--launcher mpj-multicore and mpj-niodev"; }

    @Override
    public boolean ready(Map<String, Object> parameters, Map<String, Object> environment,
            Map<Path, FileIdentity> created) throws IOException {
        List<String> pairs = new ArrayList<>();
        Wire.identities(created).forEach((path, identity) -> pairs.addAll(List.of(path, identity)));
        // NUL cannot occur in a path.
        Round round = round(Step.READY, 0, String.join("\0", pairs));
        if (round.any(Step.REJECT)) return false;
        if (rank == 0) {
            Map<String, String> all = new LinkedHashMap<>();
            for (String text : round.texts()) {
                String[] fields = text.isEmpty() ? new String[0] : text.split("\0");
                for (int i = 0; i + 1 < fields.length; i += 2) all.put(fields[i], fields[i + 1]);
            }
            print(Wire.ready(parameters, environment, all));
        }
        return true;
    }

    @Override
    public void barrier(String phase) throws IOException {
        round(Step.BARRIER, 0, null);
    }

    @Override
    public long wearOut(long bytes) throws IOException {
        return Arrays.stream(round(Step.WEAR_OUT, bytes, null).values()).max().orElse(bytes);
    }

    @Override
    public long endPhase(RankRecord record, int blockRead) throws IOException {
        Round round = round(Step.RECORD, record.bytes(), Json.line(record));
        // Each text is one record as Json wrote it: the line is their JSON array.
        if (rank == 0) print(Wire.phaseOfEveryRank(Arrays.asList(round.texts())));
        return round.values()[blockRead];
    }

    @Override
    public void reject(String message) {
        endingRound(Step.REJECT, 2, message);
    }

    @Override
    public void fail(String message) {
        endingRound(Step.FAIL, 1, message);
    }

    @Override
    public void finish(int exitCode, String message) throws IOException {
        Round round = round(Step.FINISH, exitCode, message);
        over = true;
        if (rank == 0) {
            long exit = Arrays.stream(round.values()).max().orElse(exitCode);
            print(Wire.finished(exit, nonEmpty(round.texts())));
        }
    }

    /** This rank's last round, in which it tells the others why it stops (unless they know already). */
    private void endingRound(Step step, int exitCode, String message) {
        if (over) return;
        try {
            round(step, exitCode, message);
        } catch (IOException alreadySaid) {
            // The round ended the job; rank 0 or this rank has printed why.
        }
    }

    /**
     * One round. When some rank failed or rejected the options, rank 0 says so and this rank stops:
     * the round throws, except to the rank that failed or rejected and to a ready() that learns of
     * a rejection (it returns false, as the options were refused).
     */
    private Round round(Step step, long value, String text) throws IOException {
        if (over) throw new JobStopped("the job has ended");
        Round round = exchange(step, value, text == null ? "" : text);
        boolean failed = round.any(Step.FAIL);
        boolean rejected = round.any(Step.REJECT);
        if (failed || rejected) {
            over = true;
            if (rank == 0 && failed) print(Wire.failed(round.ranksAt(Step.FAIL), textsAt(round, Step.FAIL)));
            if (rank == 0 && !failed) print(Wire.refused(round.ranksAt(Step.REJECT), textsAt(round, Step.REJECT)));
            boolean expected = step == Step.FAIL || step == Step.REJECT || (step == Step.READY && !failed);
            if (!expected) throw new JobStopped(failed ? "another rank failed" : "another rank rejected the options");
            return round;
        }
        if (round.ranksAt(step).size() != size) {
            over = true;
            String steps = Arrays.toString(round.steps());
            if (rank == 0) print(Wire.failed("the ranks are out of step: " + steps));
            throw new JobStopped("the ranks are out of step: " + steps);
        }
        return round;
    }

    /** The messages of the ranks at {@code step}, in rank order: the Python side says them. */
    private static List<String> textsAt(Round round, Step step) {
        return round.ranksAt(step).stream().map(r -> round.texts()[r]).toList();
    }

    private Round exchange(Step step, long value, String text) throws IOException {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        long[] header = {step.ordinal(), value, payload.length};
        long[] headers = new long[3 * size];
        byte[] texts;
        int[] lengths = new int[size];
        int[] offsets = new int[size];
        try {
            comm.Allgather(header, 0, 3, MPI.LONG, headers, 0, 3, MPI.LONG);
            int total = 0;
            for (int r = 0; r < size; r++) {
                lengths[r] = (int) headers[3 * r + 2];
                offsets[r] = total;
                total += lengths[r];
            }
            texts = new byte[total];
            if (total > 0) {
                comm.Allgatherv(payload, 0, payload.length, MPI.BYTE, texts, 0, lengths, offsets, MPI.BYTE);
            }
        } catch (RuntimeException e) {
            over = true;
            broken = true;
            String problem = "rank " + rank + ": MPJ Express failed in a collective: " + e;
            print(Wire.abort(rank, problem));
            throw new JobStopped("MPJ Express failed: " + e);
        }
        Step[] steps = new Step[size];
        long[] values = new long[size];
        String[] strings = new String[size];
        for (int r = 0; r < size; r++) {
            steps[r] = Step.values()[(int) headers[3 * r]];
            values[r] = headers[3 * r + 1];
            strings[r] = new String(texts, offsets[r], lengths[r], StandardCharsets.UTF_8);
        }
        return new Round(steps, values, strings);
    }

    private static List<String> nonEmpty(String[] texts) {
        return Arrays.stream(texts).filter(text -> !text.isEmpty()).toList();
    }

    private void print(Object message) {
        print(out, message);
    }

    private static void print(PrintStream out, Object message) {
        out.println(Wire.MPJ_TAG + (message instanceof String line ? line : Json.line(message)));
        out.flush();
    }
}
