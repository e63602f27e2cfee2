"""Run files with forks, warm-up repetitions, confidence intervals and short phases, and those
written before them."""
from __future__ import annotations

import json
import statistics

import pandas as pd
import pytest

from jiobench.model import stats
from jiobench.model.reduce import measured_rates

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


@pytest.mark.parametrize("schema", ["jiobench-run/1", "jiobench-run/2"])
def test_an_older_run_file_gets_its_median_interval_and_ratios_from_its_phases(tmp_path, schema):
    """Schema 1 (before forks) and 2 (before the median's interval and ratios) hold no
    `median_ci95`, `noisy` or `ratio`: the one reduction makes them from the phases."""
    factors = [1.0, 1.2, 0.8, 1.1, 0.9, 1.05, 0.95, 1.0]
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0, "c-posix": 200.0}, schema=schema, rep_factors=factors)
    run = json.loads(path.read_text())
    assert not any(key in row for row in run["summary"] for key in ("median_ci95", "noisy", "ratio"))
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "bandwidth.csv").set_index(["approach", "op"])
    rates = measured_rates(run["phases"])
    for (approach, op, ranks), values in rates.items():
        point = table.loc[(approach, op)]
        median = statistics.median(values)
        interval = stats.median_interval(values)
        assert point["median_mib_s"] == pytest.approx(median)
        assert [point["median_ci95_low_mib_s"], point["median_ci95_high_mib_s"]] == pytest.approx(interval)
        assert point["noisy"] == stats.is_noisy(median, interval)
        if approach == "c-posix":
            assert pd.isna(point["ratio_to_c-posix"]) and pd.isna(point["ratio_to_c-posix_verdict"])
            continue
        expected = stats.ratio(values, rates[("c-posix", op, ranks)])
        assert point["ratio_to_c-posix"] == pytest.approx(expected.value)
        assert [point["ratio_to_c-posix_ci95_low"], point["ratio_to_c-posix_ci95_high"]] == pytest.approx(expected.ci95)
        assert point["ratio_to_c-posix_verdict"] == expected.verdict == "slower"
    assert table["mean_mib_s"].notna().all()
    if schema == "jiobench-run/1":
        assert (pd.read_csv(tmp_path / "out" / "phases.csv")["fork"] == 0).all()


def test_the_median_and_its_intervals_come_from_the_run_file(tmp_path):
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, rep_factors=[1.0, 1.1, 0.9, 1.05, 0.95, 1.02], spread=0)
    done = run_report([str(path), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    summary = {row["op"]: row for row in json.loads(path.read_text())["summary"]}
    for _, row in pd.read_csv(tmp_path / "out" / "bandwidth.csv").iterrows():
        written = summary[row["op"]]
        assert row["median_mib_s"] == pytest.approx(written["bw_mib_s"]["median"])
        assert [row["median_ci95_low_mib_s"], row["median_ci95_high_mib_s"]] == pytest.approx(written["median_ci95"])
        assert row["noisy"] == written["noisy"]
        assert [row["ci95_low_mib_s"], row["ci95_high_mib_s"]] == pytest.approx(written["bw_mib_s"]["ci95"])
    markdown = (tmp_path / "out" / "bandwidth.md").read_text()
    assert "| median MiB/s | 95% interval |" in markdown and "95% CI of mean" in markdown


def test_compare_judges_by_the_medians_not_the_extremes(tmp_path):
    """20 steady repetitions each and one outlier per side: the ranges overlap, the medians clearly differ."""
    a = run_file(tmp_path / "a", {"raw-bytes": 100.0}, rep_factors=[1.0] * 20 + [1.10], spread=0.01, seed=1)
    b = run_file(tmp_path / "b", {"raw-bytes": 106.0}, rep_factors=[1.0] * 20 + [0.88], spread=0.01, seed=2)
    done = run_report(["--compare", str(a), str(b), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "compare.csv")
    for _, row in table.iterrows():
        assert row["a_max"] >= row["b_min"], "the min..max ranges overlap"
        assert row["ratio"] == pytest.approx(1.06, rel=0.02)
        assert row["ratio_ci95_low"] > 1 and row["ratio_verdict"] == "faster"


def test_short_points_and_runs_without_forks_are_named(tmp_path):
    run_file(tmp_path / "runs", {"raw-bytes": 100_000.0}, block_size=1 << 20, forks=0)
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    page = (tmp_path / "out" / "report.html").read_text()
    assert "2 points short: phases under 50 ms" in page
    assert "1 run without forks (--forks 0)" in page
    assert "‡" in (tmp_path / "out" / "bandwidth.md").read_text()
    assert "short" in done.stdout
