package org.jiobench.runner;

import java.util.Map;

/**
 * How many measured repetitions each approach runs in each fork: a count ({@code -i N}), or, with
 * {@code -i auto}, as many as its figures need. Then the launcher decides after every measured
 * repetition, from every rank's phases, whether an approach runs another: until the 95% interval
 * of its median is within {@code ciTarget} of it for every op, its share of the time budget is
 * spent, or it has {@code maxReps} (runner/python/jiobench/model/repetitions.py holds the rule).
 *
 * @param count             measured repetitions per fork, or 0 under {@code -i auto}
 * @param ciTarget          {@code -i auto}: the half-width of the interval sought, as a share of the median
 * @param timeBudgetSeconds {@code -i auto}: the phases' time the whole run may spend
 * @param maxReps           {@code -i auto}: the most measured repetitions of an approach over all forks
 */
record Repetitions(int count, double ciTarget, double timeBudgetSeconds, int maxReps) {
    static final String AUTO = "auto";

    boolean automatic() {
        return count == 0;
    }

    /** Whether a fork that has run {@code measured} repetitions runs another without asking anyone. */
    boolean countAllows(int measured) {
        return measured < count;
    }

    void describeInto(Map<String, Object> parameters) {
        parameters.put("repetitions", automatic() ? AUTO : count);
        if (automatic()) {
            parameters.put("ci_target", ciTarget);
            parameters.put("time_budget_s", timeBudgetSeconds);
            parameters.put("max_reps", maxReps);
        }
    }
}
