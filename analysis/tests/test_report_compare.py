"""`jiobench report --compare A B`: B/A per point, the ratio of the medians with its 95% interval
and verdict (faster, slower, same, unclear)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from jiobench.model import stats
from jiobench.model.reduce import measured_rates

from .handmade_runs import run_file
from .real_runs import FASTER, RATE, jiobench_run, run_report


def expected_ratio(a: Path, b: Path, approach: str, op: str, ranks: int) -> stats.Ratio:
    """B/A as jiobench.model.stats makes it from the two run files' measured phases."""
    key = (approach, op, ranks)
    rates = [measured_rates(json.loads(path.read_text())["phases"])[key] for path in (a, b)]
    return stats.ratio(rates[1], rates[0])


def assert_ratio(row: pd.Series, expected: stats.Ratio) -> None:
    assert row["ratio"] == pytest.approx(expected.value, rel=1e-12)
    assert row["ratio"] == pytest.approx(row["b_median"] / row["a_median"], rel=1e-12)
    if expected.ci95:
        assert [row["ratio_ci95_low"], row["ratio_ci95_high"]] == pytest.approx(expected.ci95, rel=1e-12)
    else:
        assert pd.isna(row["ratio_ci95_low"]) and pd.isna(row["ratio_ci95_high"])
    assert row["ratio_verdict"] == expected.verdict


def test_a_real_change_is_faster_with_its_ratio_and_interval(real_runs, tmp_path):
    a, b = real_runs.files[f"2/1MiB/{RATE}"], next(real_runs.faster.glob("*.json"))
    done = run_report(["--compare", str(a), str(b), "-o", str(tmp_path)])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "compare.csv")
    assert len(table) == 2  # calibrate write and read at 2 ranks, 1 MiB
    for _, row in table.iterrows():
        assert_ratio(row, expected_ratio(a, b, "calibrate", row["op"], 2))
        # calibrate is never faster than programmed but slower on a loaded machine, so its
        # repetitions scatter below the programmed rates; the ratio stays near theirs.
        assert FASTER / RATE * 0.5 < row["ratio"] < FASTER / RATE * 1.5
        assert row["ratio_verdict"] == "faster" and row["ratio_ci95_low"] > 1
    assert (tmp_path / "compare.md").read_text().count(" faster |") == 2
    lines = done.stdout.splitlines()
    calibrate = [line for line in lines if line.startswith("calibrate")]
    assert len(calibrate) == 2 and all(" faster" in line and "x [" in line for line in calibrate)
    # The text wraps at 80 columns; a path, named whole on a line of its own, is as long as it is.
    paths = (str(a), str(b), str(tmp_path))
    assert all(len(line) <= 80 for line in lines if not any(path in line for path in paths))


# Two runs of one command differ by chance: a 95% interval misses the true ratio in about 1
# comparison of 20. They differ in earnest too, which the verdict's ±5% band around 1 absorbs in
# most pairs: two runs' files lie in other pages, and the kernel's flusher, writing back what a
# run left dirty, takes a core from whichever run is writing then. So the two runs of a pair run
# one after the other, each with one rank, leaving a core to the flusher and to this test; phases
# of 64 MiB (5 to 10 ms) vary enough from one repetition to the next that a median's interval is
# wider than what is left of those differences, and 16 repetitions keep the interval of a ratio
# within a factor of 2 (else `unclear`). A point that is not `same` in one pair is tried again in
# the next, up to ATTEMPTS pairs: here a point came out `same` in 10 pairs of 12 (run side by
# side, in 9 of 12), so one of the two misses in every pair about once in 4,000 runs of this test,
# while a compare that says anything else of equal runs fails it every time.
ATTEMPTS = 5
SAME_COMMAND = ("-a", "c-posix", "-b", "64MiB", "-t", "1MiB", "-i", "16", "--warmup", "1")


@pytest.mark.runs
def test_two_runs_of_the_same_command_are_the_same(tmp_path):
    same: set[str] = set()
    for attempt in range(ATTEMPTS):
        a, b = (jiobench_run(tmp_path / f"{attempt}-{side}", 1, *SAME_COMMAND) for side in "ab")
        out = tmp_path / f"{attempt}-compare"
        done = run_report(["--compare", str(a), str(b), "-o", str(out)])
        assert done.code == 0, done.stderr
        table = pd.read_csv(out / "compare.csv")
        assert sorted(table["op"]) == ["read", "write"]
        for _, row in table.iterrows():
            assert_ratio(row, expected_ratio(a, b, "c-posix", row["op"], 1))
            (line,) = [line for line in done.stdout.splitlines() if line.split()[:2] == ["c-posix", row["op"]]]
            assert f" {row['ratio_verdict']}" in line
            if row["ratio_verdict"] == "same":
                same.add(row["op"])
        if same == {"write", "read"}:
            return
    pytest.fail(f"in {ATTEMPTS} pairs of c-posix runs, only {sorted(same) or 'no op'} came out the same")


def test_identical_inputs_are_the_same(real_runs):
    done = run_report(["--compare", str(real_runs.sweep), str(real_runs.sweep)])
    assert done.code == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("calibrate")]
    assert len(rows) == 6
    for row in rows:
        assert "1.00x [" in row and row.split("]")[1].split()[0] == "same"


def test_fewer_than_six_repetitions_a_side_are_unclear(tmp_path):
    a = run_file(tmp_path / "a", {"raw-bytes": 100.0}, reps=5)
    b = run_file(tmp_path / "b", {"raw-bytes": 300.0}, reps=5)
    done = run_report(["--compare", str(a), str(b), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "compare.csv")
    assert table["ratio"].tolist() == pytest.approx([3.0, 3.0], rel=0.05)
    assert table["ratio_ci95_low"].isna().all() and (table["ratio_verdict"] == "unclear").all()
    # Without an interval the median is noisy on both sides.
    assert [line.split()[-4:] for line in done.stdout.splitlines() if line.startswith("raw-bytes")] == \
        [["(n<6)", "unclear", "A,", "B"]] * 2
    assert "noisy: the 95% interval of the median is wider than ±10% of it" in " ".join(done.stdout.split())


def test_a_change_within_the_spread_is_the_same(tmp_path):
    a = run_file(tmp_path / "a", {"raw-bytes": 100.0}, reps=8, spread=0.2, seed=1)
    b = run_file(tmp_path / "b", {"raw-bytes": 105.0}, reps=8, spread=0.2, seed=2)
    done = run_report(["--compare", str(a), str(b), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "compare.csv")
    for _, row in table.iterrows():
        assert_ratio(row, expected_ratio(a, b, "raw-bytes", row["op"], 2))
        assert row["ratio_ci95_low"] < 1 < row["ratio_ci95_high"]
        assert row["ratio_verdict"] == "same"


def test_points_of_one_side_only_are_counted_not_compared(tmp_path):
    a = run_file(tmp_path / "a", {"raw-bytes": 100.0, "encode-decode": 40.0})
    b = run_file(tmp_path / "b", {"raw-bytes": 100.0})
    done = run_report(["--compare", str(a), str(b), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert "encode-decode" not in done.stdout
    assert "one side only: 2 points in A, 0 in B" in " ".join(done.stdout.split())
    assert "only in A" in (tmp_path / "out" / "compare.md").read_text()
