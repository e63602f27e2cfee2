"""The tiers of the three test trees (runner/python/tests, slurm/tests, analysis/tests).

Every test is marked by the costly things it needs, set here from the fixtures it uses, or in its
module where it starts them itself, so that a part of the suite can be chosen by name:

    pytest -m slurm                     the tests of a real single-node Slurm
    pytest -m "not (cluster or ceph)"   all but the virtual cluster's and CephFS's

`make check` is the fast tier: every test that needs none of them, its few `smoke` runs, and
the analysis tests over the runs docs/runs/analysis-tests keeps (--kept-runs) in place of runs
taken afresh. `make test` runs everything. Both spread the tests over the cores in groups that
keep a module's tests, and those of one session fixture, on one worker (SESSION_FIXTURES).
"""
from __future__ import annotations

from collections import defaultdict

import pytest

# The fixtures and helpers every test tree shares: tests/testing.py, on pyproject.toml's pythonpath.
pytest_plugins = ["testing"]

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
# Fixtures that start something once a session. Spread over workers (pytest-xdist, --dist
# loadgroup), each worker is a session of its own: the modules whose tests use one of them go to
# one worker, which starts it once, and every other module goes whole to one worker, which sets up
# its module's fixtures once (set up on two workers at once, they would meet each other's user,
# site or volume).
SESSION_FIXTURES = ("real_runs", "slurm", "virtual_cluster")
# Fixtures whose costly part --kept-runs replaces by files the repository keeps.
KEPT_UNDER_KEPT_RUNS = {"real_runs"}


def pytest_addoption(parser):
    parser.addoption("--kept-runs", action="store_true",
                     help="the analysis tests read the runs docs/runs/analysis-tests keeps instead of taking them")


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


# Before pytest-xdist's own, which reads the groups.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    kept = config.getoption("kept_runs")
    for item in items:
        for fixture in item.fixturenames:
            marker = FIXTURE_MARKERS.get(fixture)
            if marker and not (kept and fixture in KEPT_UNDER_KEPT_RUNS):
                item.add_marker(getattr(pytest.mark, marker))
    groups = worker_groups(items)
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[module_of(item)]))


def module_of(item) -> str:
    return item.nodeid.split("::")[0]


def worker_groups(items) -> dict[str, str]:
    """Module → the group its tests run in (xdist_group): the session fixtures they use, else the module."""
    used = defaultdict(set)
    for item in items:
        used[module_of(item)].update(name for name in SESSION_FIXTURES if name in item.fixturenames)
    return {module: "+".join(sorted(names)) or module for module, names in used.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """pytest-xdist's --dist loadgroup marks each test's id with its group, which pytest 9.2 no
    longer takes (pytest-xdist#1386): without the groups, fixtures would be set up twice at once."""
    if node.config.getvalue("dist") == "loadgroup" and any("@" not in nodeid for nodeid in ids):
        pytest.exit(f"pytest-xdist did not group the tests on {node.gateway.id} (--dist loadgroup under pytest "
                    f"{pytest.__version__}: pytest-xdist#1386)", returncode=pytest.ExitCode.USAGE_ERROR)
