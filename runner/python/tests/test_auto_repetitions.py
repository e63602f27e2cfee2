"""-i auto with real ranks: repetitions until each median's interval is tight, decided for all
ranks at once, and the run file saying why each approach stopped (jiobench/model/repetitions.py)."""
import subprocess

import pytest

from testing import JIOBENCH

pytestmark = pytest.mark.runs

CALIBRATE = ("-a", "calibrate", "-b", "4MiB", "-t", "1MiB", "--calibrate-rate", "64MiB", "--warmup", "1")


def measured_reps(run_file: dict, approach: str) -> set:
    """The (fork, rep) of each measured phase of the approach, write and read alike."""
    by_op = {op: {(p["fork"], p["rep"]) for p in run_file["phases"]
                  if p["approach"] == approach and p["op"] == op and not p["warmup"]} for op in ("write", "read")}
    assert by_op["write"] == by_op["read"], "every repetition has its write and its read"
    return by_op["write"]


# A calibrate phase here lasts 62 ms, and a rank that the loaded machine (the suite's other worker,
# the other rank) leaves waiting a few milliseconds moves it by 5% or more: tests of where -i auto
# stops, rather than of how tight calibrate is, give it a target that such waits cannot miss.
LOOSE_TARGET = ("--ci-target", "50%")


def test_calibrate_meets_the_target_at_once_and_stops_at_the_minimum(jiobench):
    run = jiobench(*CALIBRATE, "-i", "auto", *LOOSE_TARGET)
    assert run.code == 0, run
    stop = run.file["auto"]["stopped"]["calibrate"]
    assert stop["reason"] == "target" and stop["reps"] == 6, stop
    assert len(measured_reps(run.file, "calibrate")) == 6
    assert all(row["reps"] == 6 for row in run.file["summary"])
    assert run.file["parameters"]["repetitions"] == "auto" and run.file["schema"] == "jiobench-run/4"
    assert "warm-up + measured reps until each median's 95% interval is within ±50%" in run.stdout


def test_forks_share_the_minimum(jiobench):
    run = jiobench(*CALIBRATE, "-i", "auto", *LOOSE_TARGET, "--forks", "2")
    assert run.code == 0, run
    assert sorted(measured_reps(run.file, "calibrate")) == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]


def test_forks_short_of_the_target_are_followed_by_more_forks(jiobench):
    """With --forks 2 each fork runs 3 repetitions; planted jitter leaves 2 forks short of ±7% (their
    3 repetitions each spread over half the jitter or more), so forks 3, 4, ... follow, each of 3
    repetitions, until the target (about 30 repetitions)."""
    run = jiobench(*CALIBRATE, "--calibrate.jitter=30%", "-i", "auto",
                   "--ci-target", "7%", "--max-reps", "60", "--forks", "2", ranks=1)
    assert run.code == 0, run
    reps = measured_reps(run.file, "calibrate")
    forks = {fork for fork, _ in reps}
    assert len(forks) > 2 and forks == set(range(1, len(forks) + 1)), reps
    assert all(sum(1 for f, _ in reps if f == fork) == 3 for fork in forks), reps
    assert run.file["auto"]["stopped"]["calibrate"] == dict(run.file["auto"]["stopped"]["calibrate"], reason="target",
                                                            reps=len(reps))


def test_planted_jitter_takes_more_repetitions_until_the_target(jiobench):
    """Phases slowed by 0 to 30%, spread evenly: any 6 repetitions leave an interval of ±13% or
    more, about 10 to 20 bring it within ±10%, the target here, long before the cap or the budget.
    One rank: with more, each phase is the slowest rank's, and the ranks' slowdowns, each evenly
    spread, are not evenly spread together."""
    run = jiobench(*CALIBRATE, "--calibrate.jitter=30%", "-i", "auto", "--ci-target", "10%", "--max-reps", "60",
                   ranks=1)
    assert run.code == 0, run
    stop = run.file["auto"]["stopped"]["calibrate"]
    assert stop["reason"] == "target", stop
    assert 6 < stop["reps"] < 60 and stop["widest_share"] <= 0.10, stop
    assert len(measured_reps(run.file, "calibrate")) == stop["reps"]
    for row in run.file["summary"]:
        low, high = row["median_ci95"]
        assert (high - low) / 2 <= 0.10 * row["bw_mib_s"]["median"] and not row["noisy"], row


def test_a_spent_budget_stops_the_repetitions_and_marks_the_rows(jiobench):
    """60% jitter cannot reach ±1% in a budget of 1 s of phases (each 4 MiB phase at up to 128 MiB/s
    takes over 30 ms): the approach stops for its budget once it has its 6, and its rows are noisy."""
    run = jiobench(*CALIBRATE, "--calibrate.jitter=60%", "-i", "auto", "--ci-target", "1%", "--time-budget", "1s")
    assert run.code == 0, run
    stop = run.file["auto"]["stopped"]["calibrate"]
    assert stop["reason"] == "budget" and stop["reps"] >= 6 and stop["seconds"] >= 1, stop
    assert all(row["noisy"] for row in run.file["summary"])
    assert f"-i auto stopped short of its target: calibrate after {stop['reps']} reps because its share of the " \
           "time budget was spent." in run.stdout
    assert "noisy: the 95% interval of the median is wider than" in run.stdout


def test_the_cap_stops_the_repetitions(jiobench):
    run = jiobench(*CALIBRATE, "--calibrate.jitter=60%", "-i", "auto", "--ci-target", "0.1%", "--max-reps", "8")
    assert run.code == 0, run
    assert run.file["auto"]["stopped"]["calibrate"]["reason"] == "max-reps"
    assert len(measured_reps(run.file, "calibrate")) == 8


def test_a_runner_started_by_hand_cannot_decide_and_says_so(tmp_path):
    jar = JIOBENCH.parent.parent / "runner" / "target" / "jiobench-runner.jar"
    done = subprocess.run(["java", "-jar", str(jar), *CALIBRATE, "-i", "auto"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "-i auto: the launcher decides each next repetition from every rank's phases, and this one cannot " \
           "(a runner started by hand, without bin/jiobench run); give a count (-i N)" in done.stderr
