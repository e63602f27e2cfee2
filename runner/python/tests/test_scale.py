"""What a rank costs as the rank count grows, measured from outside the run: the ranks' MPI traffic
by Open MPI's own monitor (bench/traffic.py), and the run file's size. The same 16 phases at 4 and
at 8 ranks: a round that gives every rank every rank's records (an allgather) costs N(N-1), 4.7x
from 4 to 8 ranks; a gather to rank 0 and a broadcast back cost N or N log N, 2.3x to 3x."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from testing import HOME, JIOBENCH, run_bounded

pytestmark = pytest.mark.runs

sys.path.insert(0, str(HOME / "bench"))
try:
    import traffic
finally:
    sys.path.remove(str(HOME / "bench"))

PHASES = ["-a", "c-posix", "-b", "64KiB", "-t", "64KiB", "-i", "8", "--warmup", "0"]


def measured(tmp_path: Path, ranks: int) -> tuple[dict, int]:
    """(the traffic of a run of PHASES at that many ranks, its JSON run file's size)."""
    directory = tmp_path / f"n{ranks}"
    directory.mkdir()
    prefix = directory / "prof"
    run = run_bounded([str(JIOBENCH), "run", "-n", str(ranks), f"--launcher-args={traffic.monitoring_args(prefix)}",
                       "--", *PHASES, "-o", str(directory / "f.dat"), "--results", str(directory / "results")],
                      timeout=240, text=True, cwd=directory)
    assert run.returncode == 0, run.stderr
    run_file = Path(run.stdout.strip().splitlines()[-1])
    assert len(json.loads(run_file.read_text())["phases"]) == 16
    counted = traffic.traffic(prefix)
    assert counted["ranks"] == ranks, f"{counted['ranks']} profiles of {ranks} ranks"
    return counted, run_file.stat().st_size


@pytest.fixture(scope="module")
def at_4_and_8(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("scale")
    return measured(tmp_path, 4), measured(tmp_path, 8)


def test_the_ranks_traffic_grows_as_n_log_n_at_most_never_as_n_squared(at_4_and_8):
    (four, _), (eight, _) = at_4_and_8
    growth = eight["collective_bytes"] / four["collective_bytes"]
    assert growth <= 3.0, (f"the collectives sent {four['collective_bytes']} bytes at 4 ranks and "
                           f"{eight['collective_bytes']} at 8: {growth:.2f}x")
    # What rank 0 hears grows with the ranks, never faster.
    assert eight["rank_0_received_bytes"] / four["rank_0_received_bytes"] <= 8 / 4 * 1.25


def test_the_run_file_does_not_grow_with_the_ranks(at_4_and_8):
    (_, four), (_, eight) = at_4_and_8
    assert eight / four <= 1.1, f"{four} bytes at 4 ranks, {eight} at 8"


def test_a_ranks_launcher_starts_without_numpy_scipy_pandas_or_pyarrow():
    """Only rank 0 reduces and writes: every other rank's launcher would pay their imports (0.2 s
    of CPU a rank, twice the launcher's own) for nothing."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import mpi4py; mpi4py.rc.initialize = False; import sys, jiobench.run.rank; "
                               "print(' '.join(m for m in ('numpy', 'scipy', 'pandas', 'pyarrow') if m in sys.modules))"],
        capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []
