package org.jiobench.runner;

import java.io.PrintStream;
import java.util.Map;

/**
 * One rank with nobody to wait for: the runner started by hand. Records go to standard output,
 * one JSON line each (docs/run-file.md, per_rank), for a script to collect.
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

    @Override public int reorderShift() { return 0; }

    @Override public boolean ready(Map<String, Object> parameters, Map<String, Object> environment) {
        return true;
    }

    @Override public void barrier() { }

    @Override public int endPhase(RankRecord record) {
        out.println(Json.line(record));
        out.flush();
        return record.transfers();
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
