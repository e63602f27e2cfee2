"""Fixtures: the real runs (made once per test session) and the report over them."""
from __future__ import annotations

import pytest

from .real_runs import Report, RealRuns, kept_real_runs, run_report, take_real_runs


@pytest.fixture(scope="session")
def real_runs(tmp_path_factory, request) -> RealRuns:
    """Taken afresh, or as docs/runs/analysis-tests keeps them under --kept-runs (the fast tier)."""
    work = tmp_path_factory.mktemp("real-runs")
    return kept_real_runs(work) if request.config.getoption("kept_runs") else take_real_runs(work)


@pytest.fixture(scope="session")
def real_report(real_runs, tmp_path_factory) -> Report:
    """The report over the real sweep, made once for all tests that read it."""
    done = run_report([str(real_runs.sweep), "-o", str(tmp_path_factory.mktemp("real-report"))])
    assert done.code == 0, done.stderr
    return done
