package org.jiobench.runner;

import java.util.List;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.DataForm;

/**
 * Which phases run, how often, and in how many JVMs.
 *
 * @param warmup repetitions at the start of each fork, run and kept but never in a statistic
 * @param forks  fresh JVMs per approach on every rank; 0: one JVM runs every approach
 */
record Schedule(List<Approach> approaches, boolean write, boolean read, Repetitions repetitions, int warmup,
                int forks) {
    Schedule {
        approaches = List.copyOf(approaches);
    }

    /** The same schedule in one JVM for all approaches, where no launcher starts forks. */
    Schedule withoutForks() {
        return new Schedule(approaches, write, read, repetitions, warmup, 0);
    }

    /** Calibration alone touches no file, so a run of it alone needs none. */
    boolean touchesFiles() {
        return approaches.stream().anyMatch(approach -> approach.dataForm() != DataForm.NONE);
    }
}
