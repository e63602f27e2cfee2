"""-i auto's rule (jiobench.model.repetitions) on constructed phases; tests/test_auto_repetitions.py runs it."""
from jiobench.model import repetitions
from jiobench.model.repetitions import Rule

RULE = Rule(ci_target=0.05, time_budget_s=100, max_reps=30, forks=1, approaches=2)


def phases(rates, approach="c-posix", fork=1, warmup=1):
    """A write and a read phase per rate, after `warmup` warm-up repetitions."""
    made = [{"approach": approach, "op": op, "fork": fork, "rep": rep, "warmup": True, "bw_mib_s": 1.0} for rep in range(warmup) for op in ("write", "read")]
    made += [{"approach": approach, "op": op, "fork": fork, "rep": warmup + i, "warmup": False,
              "bw_mib_s": rate} for i, rate in enumerate(rates) for op in ("write", "read")]
    return made


def test_an_approach_runs_six_repetitions_before_anything_is_judged():
    assert repetitions.why_stop(RULE, phases([100] * 5), "c-posix", 1, 0) is None
    assert repetitions.why_stop(RULE, phases([100] * 6), "c-posix", 1, 0) == repetitions.TARGET


def test_a_wide_interval_asks_for_more_until_the_cap():
    scattered = [100, 60, 140, 80, 120, 70, 130]
    assert repetitions.why_stop(RULE, phases(scattered), "c-posix", 1, 0) is None
    assert repetitions.why_stop(RULE, phases(scattered * 5), "c-posix", 1, 0) == repetitions.MAX_REPS


def test_the_budget_is_shared_by_the_approaches():
    scattered = [100, 60, 140, 80, 120, 70, 130, 90]
    # 2 approaches share 100 s: 50 s each.
    assert repetitions.why_stop(RULE, phases(scattered), "c-posix", 1, spent_s=50) == repetitions.BUDGET
    assert repetitions.why_stop(RULE, phases(scattered), "c-posix", 1, spent_s=49) is None


def test_only_the_asked_approach_counts():
    mixed = phases([100] * 6) + phases([100, 60, 140, 80, 120, 70], approach="data-stream")
    assert repetitions.why_stop(RULE, mixed, "c-posix", 1, 0) == repetitions.TARGET
    assert repetitions.why_stop(RULE, mixed, "data-stream", 1, 0) is None


def test_every_op_must_reach_the_target():
    steady_write = [dict(p, bw_mib_s=100.0) if p["op"] == "write" else p
                    for p in phases([100, 60, 140, 80, 120, 70])]
    assert repetitions.why_stop(RULE, steady_write, "c-posix", 1, 0) is None


def test_forks_share_the_minimum_and_ask_for_more_forks_when_short_of_the_target():
    rule = Rule(ci_target=0.05, time_budget_s=100, max_reps=30, forks=3, approaches=1)
    assert repetitions.why_stop(rule, phases([100]), "c-posix", 1, 0) is None, "each fork runs 2 of the 6 first"
    assert repetitions.why_stop(rule, phases([100, 100]), "c-posix", 1, 0) == repetitions.FORK_PART, \
        "the other forks bring the rest of the minimum"
    steady = [phase for fork in (1, 2, 3) for phase in phases([100, 100], fork=fork)]
    assert repetitions.why_stop(rule, steady, "c-posix", 3, 0) == repetitions.TARGET
    scattered = [phase for fork, rates in ((1, [100, 60]), (2, [140, 80]), (3, [120, 70]))
                 for phase in phases(rates, fork=fork)]
    assert repetitions.why_stop(rule, scattered, "c-posix", 3, 0) == repetitions.FORK_PART, \
        "short of the target: the fork ends, and another is added"


def test_the_stop_says_how_many_repetitions_ran_and_how_wide_the_interval_was():
    stop = repetitions.stopped(phases([100] * 6), "c-posix", repetitions.TARGET, 7.0)
    assert stop == {"reason": "target", "reps": 6, "seconds": 7.0, "widest_share": 0.0}


def test_an_interval_can_come_of_auto_or_of_six_repetitions_over_the_forks():
    def can(reps, forks):
        return repetitions.can_have_intervals({"repetitions": reps, "forks": forks})

    assert can("auto", 0) and can(6, 0) and can(6, 1) and can(3, 2) and can(1, 6)
    assert not can(5, 0) and not can(5, 1) and not can(2, 2) and not can(1, 5)
