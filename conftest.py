"""The tiers of the test trees (runner/python/tests, slurm/tests, analysis/tests, tests).

Every test is marked by the costly things it needs (COSTLY), set here from the fixtures it uses,
or in its module where it starts them itself, so that a part of the suite can be chosen by name:

    pytest -m fast                      the fast tier: what `make check` runs
    pytest -m slurm                     the tests of a real single-node Slurm
    pytest -m "not (cluster or ceph)"   all but the virtual cluster's and CephFS's

`fast` is set here too, on every test that needs none of them and on the few `smoke` runs; with
--kept-runs (as `make check` runs it) the analysis tests read the runs docs/runs/analysis-tests
keeps in place of runs taken afresh, and are fast as well. A test of the fast tier starts no
ranks: mpirun, mpiexec and srun on its PATH are stand-ins that fail it (starts_no_ranks), so that
one which starts a run without the fixture or marker that says so fails rather than slows the
tier. `make test` runs everything. Both spread the tests over the cores in groups that keep a
module's tests, and those of one session fixture, on one worker (SESSION_FIXTURES).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

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
    "fast": "the fast tier (make check): needs none of the markers above but smoke",
}
# What keeps a test out of the fast tier, unless it is marked smoke as well.
COSTLY = ("runs", "slurm", "cluster", "gluster", "ceph", "install")
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
        if item.get_closest_marker("smoke") or not costly(item):
            item.add_marker(pytest.mark.fast)
    groups = worker_groups(items)
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[module_of(item)]))


def costly(item) -> list[str]:
    return [name for name in COSTLY if item.get_closest_marker(name)]


REMEDY = ("ask for the fixture that starts them (jiobench, slurm, virtual_cluster) or mark the test with what it "
          "needs (conftest.py)")
# What starts ranks: MPI's launchers and Slurm's, by name on PATH. MPJ Express starts them from
# its installation, MPJ_HOME.
RANK_STARTERS = ("mpirun", "mpiexec", "srun")
STAND_IN = """#!/bin/sh
# {name} in a test of the fast tier, which starts no ranks (conftest.py): asked its version,
# the real {name} answers; anything else fails the test.
if [ "$*" = --version ]; then
    PATH=$(printf %s "$PATH" | tr : '\\n' | grep -vxF '{directory}' | paste -sd: -)
    export PATH
    exec {name} --version
fi
echo "{name} $*" >> '{directory}/started'
echo "jiobench tests: a test of the fast tier ran {name}, which starts ranks: {remedy}" >&2
exit 127
"""


@pytest.fixture(scope="session")
def rank_starter_stand_ins():
    """A directory of stand-ins for RANK_STARTERS, and an MPJ_HOME with no MPJ Express in it; each
    stand-in that ran writes a line to its file `started`, which every user may write (the tests of
    limits run jiobench as nobody)."""
    directory = Path(tempfile.mkdtemp(prefix="jiobench-fast-tier-starts-no-ranks-"))
    directory.chmod(0o755)
    (directory / "started").touch(mode=0o666)
    (directory / "started").chmod(0o666)
    for name in RANK_STARTERS:
        (directory / name).write_text(STAND_IN.format(name=name, directory=directory, remedy=REMEDY))
        (directory / name).chmod(0o755)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(autouse=True)
def starts_no_ranks(request, monkeypatch):
    """A test of the fast tier with none of COSTLY runs with RANK_STARTERS' stand-ins first on its
    PATH, and with MPJ_HOME where MPJ Express is not: one that starts ranks anyway, through
    bin/jiobench, `python -m jiobench.run.cli` or a launcher of its own, fails here (or, under MPJ
    Express, is refused as a run where it is not installed)."""
    if costly(request.node):
        yield
        return
    directory = request.getfixturevalue("rank_starter_stand_ins")
    started = directory / "started"
    before = started.stat().st_size
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("MPJ_HOME", str(directory))
    yield
    with started.open() as lines:
        lines.seek(before)
        ran = lines.read()
    if ran:
        pytest.fail(f"a test of the fast tier started ranks ({ran.strip()}): {REMEDY}")


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
