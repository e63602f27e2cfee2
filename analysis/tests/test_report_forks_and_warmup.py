"""Run files with forks, warm-up repetitions, confidence intervals and short phases, and those
written before them."""
from __future__ import annotations

import pandas as pd
import pytest

from .handmade_runs import run_file
from .real_runs import run_report


def test_warmup_phases_are_listed_but_never_counted(tmp_path):
    run_file(tmp_path / "runs", {"raw-bytes": 100.0}, warmup=1, reps=3)
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "bandwidth.csv")
    assert (table["reps"] == 3).all()
    assert (table["min_mib_s"] > 50).all(), "the warm-up ran at a tenth of the rate and must not be the minimum"
    phases = pd.read_csv(tmp_path / "out" / "phases.csv")
    assert len(phases) == 2 * 4 and phases["warmup"].sum() == 2
    page = (tmp_path / "out" / "report.html").read_text()
    assert "2 warm-up phases kept, never counted" in page and '<tr class="warmup">' in page
    assert "| 0 warm-up |" in (tmp_path / "out" / "phases.md").read_text()


def test_a_run_file_from_before_forks_still_loads(tmp_path):
    run_file(tmp_path / "runs", {"raw-bytes": 100.0, "c-posix": 200.0}, schema="jiobench-run/1")
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "bandwidth.csv")
    assert table["median_mib_s"].isna().all() and table["mean_mib_s"].notna().all()
    assert (pd.read_csv(tmp_path / "out" / "phases.csv")["fork"] == 0).all()


def test_the_median_and_confidence_interval_come_from_the_run_file(tmp_path):
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, rep_factors=[1.0, 1.1, 0.9, 1.05, 0.95], spread=0)
    done = run_report([str(path), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    import json
    summary = {row["op"]: row for row in json.loads(path.read_text())["summary"]}
    for _, row in pd.read_csv(tmp_path / "out" / "bandwidth.csv").iterrows():
        stats = summary[row["op"]]["bw_mib_s"]
        assert row["median_mib_s"] == pytest.approx(stats["median"])
        assert [row["ci95_low_mib_s"], row["ci95_high_mib_s"]] == pytest.approx(stats["ci95"])
    assert "95% CI" in (tmp_path / "out" / "bandwidth.md").read_text()


def test_compare_judges_by_the_confidence_intervals_not_the_extremes(tmp_path):
    """20 steady repetitions each and one outlier per side: the ranges overlap, the means clearly differ."""
    a = run_file(tmp_path / "a", {"raw-bytes": 100.0}, rep_factors=[1.0] * 20 + [1.10], spread=0.01, seed=1)
    b = run_file(tmp_path / "b", {"raw-bytes": 106.0}, rep_factors=[1.0] * 20 + [0.88], spread=0.01, seed=2)
    done = run_report(["--compare", str(a), str(b), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "compare.csv")
    for _, row in table.iterrows():
        assert row["a_max"] >= row["b_min"], "the min..max ranges overlap"
        assert row["a_ci95_high"] < row["b_ci95_low"]
        assert row["significant"]


def test_short_points_and_runs_without_forks_are_named(tmp_path):
    run_file(tmp_path / "runs", {"raw-bytes": 100_000.0}, block_size=1 << 20, forks=0)
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    page = (tmp_path / "out" / "report.html").read_text()
    assert "2 points short: phases under 50 ms" in page
    assert "1 run without forks (--forks 0)" in page
    assert "‡" in (tmp_path / "out" / "bandwidth.md").read_text()
    assert "short" in done.stdout
