"""The tiers of the three test trees (runner/python/tests, slurm/tests, analysis/tests).

Every test is marked by the costly things it needs, set here from the fixtures it uses, or in its
module where it starts them itself, so that a part of the suite can be chosen by name:

    pytest -m slurm                     the tests of a real single-node Slurm
    pytest -m "not (cluster or ceph)"   all but the virtual cluster's and CephFS's

`make check` is the fast tier: every test that needs none of them, its few `smoke` runs, and
the analysis tests over the runs docs/runs/analysis-tests keeps (--kept-runs) in place of runs
taken afresh. `make test` runs everything.
"""
from __future__ import annotations

import pytest

MARKERS = {
    "runs": "starts real runs of jiobench (launchers, MPI or MPJ Express, JVMs)",
    "slurm": "a real single-node Slurm, started for the session",
    "cluster": "a virtual cluster of several nodes (network namespaces, its Slurm and volume)",
    "gluster": "a private GlusterFS volume",
    "ceph": "a private CephFS (monitor, manager, OSDs, metadata server, ceph-fuse)",
    "install": "installs or builds the project afresh (pip, Maven, a site without root)",
    "smoke": "one of the few real runs of the fast tier",
}
FIXTURE_MARKERS = {
    "jiobench": "runs",
    "real_runs": "runs",
    "slurm": "slurm",
    "virtual_cluster": "cluster",
}
# Fixtures whose costly part --kept-runs replaces by files the repository keeps.
KEPT_UNDER_KEPT_RUNS = {"real_runs"}


def pytest_addoption(parser):
    parser.addoption("--kept-runs", action="store_true",
                     help="the analysis tests read the runs docs/runs/analysis-tests keeps instead of taking them")


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def pytest_collection_modifyitems(config, items):
    kept = config.getoption("kept_runs")
    for item in items:
        for fixture in item.fixturenames:
            marker = FIXTURE_MARKERS.get(fixture)
            if marker and not (kept and fixture in KEPT_UNDER_KEPT_RUNS):
                item.add_marker(getattr(pytest.mark, marker))
