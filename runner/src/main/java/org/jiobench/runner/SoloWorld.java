package org.jiobench.runner;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * One rank with nobody to wait for: the runner started by hand. It runs every approach in this
 * one JVM. Records go to standard output, one JSON line each (docs/run-file.md, per_rank), for a
 * script to collect.
 */
final class SoloWorld implements World {
    private final PrintStream out;
    private final PrintStream err;

    SoloWorld(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override public int rank() { return 0; }

    @Override public int size() { return 1; }

    @Override public int[] hostOfRank() { return new int[] {0}; }

    @Override public Task task() { return Task.FIRST; }

    @Override public boolean launched() { return false; }

    @Override public String describe() { return "a runner started by hand, without bin/jiobench run"; }

    @Override public boolean ready(Map<String, Object> parameters, Map<String, Object> environment,
                                   Map<Path, FileIdentity> created) {
        return true;
    }

    @Override public void barrier(String phase) {
        stopIfRequested();
    }

    @Override public long wearOut(long bytes) {
        return bytes;
    }

    /** A phase the stop cut short is not a completed one: it is not printed. */
    @Override public long endPhase(RankRecord record, int blockRead) {
        stopIfRequested();
        out.println(Json.line(record));
        out.flush();
        return record.bytes();
    }

    private static void stopIfRequested() {
        if (StopRequest.requested()) throw new RunStopped(StopRequest.signal());
    }

    @Override public void reject(String message) {
        err.println("jiobench: error: " + message);
    }

    @Override public void fail(String message) {
        err.println("jiobench: error: " + message);
    }

    @Override public void finish(int exitCode, String message) {
        if (message != null) err.println("jiobench: error: " + message);
    }
}
