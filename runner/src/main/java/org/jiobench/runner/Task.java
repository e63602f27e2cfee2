package org.jiobench.runner;

import java.util.List;
import java.util.Set;
import org.jiobench.workloads.Approach;

/**
 * What one JVM of a run does. The run's first JVM on each rank checks and creates the files; with
 * forks, every JVM runs one approach in one fork (fork 1 of every approach, then fork 2, ...);
 * without ({@code --forks 0}), the first JVM runs every approach and is the only one.
 *
 * @param first         the run's first JVM on this rank
 * @param fork          1-based fork number, or 0 for the one JVM of a run without forks
 * @param approachIndex index into the run's approaches of the one this fork runs
 * @param created       what the files this rank's launcher knows the run created are (a later
 *                      JVM's own file must be one of them), empty where it knows none
 */
record Task(boolean first, int fork, int approachIndex, Set<FileIdentity> created) {
    /** The first JVM, before the settings say whether the run forks. */
    static final Task FIRST = new Task(true, 1, 0, Set.of());

    /** The fork this first JVM turns out to be, once the settings are known. */
    Task resolvedFor(RunSettings settings) {
        return first && settings.schedule().forks() == 0 ? new Task(true, 0, 0, created) : this;
    }

    List<Approach> approaches(RunSettings settings) {
        return fork == 0 ? settings.approaches() : List.of(settings.approaches().get(approachIndex));
    }
}
