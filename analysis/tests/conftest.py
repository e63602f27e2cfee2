"""Fixtures: the real runs (made once per test session) and the report over them."""
from __future__ import annotations

import pytest

from .real_runs import FASTER, RATE, Report, RealRuns, jiobench_run, run_report


@pytest.fixture(scope="session")
def real_runs(tmp_path_factory) -> RealRuns:
    work = tmp_path_factory.mktemp("real-runs")
    runs = RealRuns(sweep=work / "sweep", faster=work / "faster", mixed=work / "mixed", versus_c=work / "versus-c")
    # 6 repetitions: the fewest with a 95% interval, so that comparisons of these runs have a verdict.
    for ranks, transfer, rate, block, results in (
            (1, "1MiB", RATE, "8MiB", runs.sweep), (2, "1MiB", RATE, "8MiB", runs.sweep),
            (2, "256KiB", RATE, "8MiB", runs.sweep), (2, "1MiB", FASTER, "32MiB", runs.faster)):
        runs.files[f"{ranks}/{transfer}/{rate}"] = jiobench_run(
            results, ranks, "-a", "calibrate", "--calibrate-rate", f"{rate}MiB", "-b", block, "-t", transfer,
            "-i", "6")
    # data-stream makes a system call per element: far slower than the 0.2 s deadline allows. Two
    # repetitions only: too few for an interval, so its ratio is unclear.
    jiobench_run(runs.mixed, 2, "-a", "calibrate,raw-bytes,data-stream", "--verify", "-D", "0.2",
                 "-b", "1MiB", "-t", "16KiB", "-i", "2")
    # Beside C, data-stream is three to four orders of magnitude slower: a verdict no noise can turn.
    jiobench_run(runs.versus_c, 2, "-a", "calibrate,c-posix,data-stream", "-D", "0.2", "--calibrate-rate", "256MiB",
                 "-b", "16MiB", "-t", "64KiB", "-i", "6")
    return runs


@pytest.fixture(scope="session")
def real_report(real_runs, tmp_path_factory) -> Report:
    """The report over the real sweep, made once for all tests that read it."""
    done = run_report([str(real_runs.sweep), "-o", str(tmp_path_factory.mktemp("real-report"))])
    assert done.code == 0, done.stderr
    return done
