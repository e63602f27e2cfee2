"""jiobench on the MPIs a cluster may have: Debian's Open MPI 4.1, Open MPI 5 and MPICH (each from
its PyPI wheel, with its own mpi4py): a verified 2-rank run and a stop under each, and the
refusal when mpi4py's MPI is not the launcher's."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from testing import HOME, KILLED_LAUNCHER_AFTER, KILLED_LAUNCHER_RUN, phases_kept_after_a_lost_rank, rank_launcher

pytestmark = pytest.mark.runs

VENVS = HOME / ".venv-mpi"
MPIS = {  # name -> (python, launcher, words of its library version)
    "open-mpi-4": (Path(sys.executable), "mpirun", "Open MPI v4."),
    "open-mpi-5": (VENVS / "openmpi5" / "bin" / "python", "mpirun", "Open MPI v5."),
    "mpich": (VENVS / "mpich" / "bin" / "python", "mpiexec", "MPICH Version:"),
}


def jiobench(mpi: str, tmp_path: Path, *args: str, **popen) -> subprocess.Popen:
    python, launcher, _ = MPIS[mpi]
    assert python.exists(), f"{python} is missing: `make test` installs it"
    env = dict(os.environ, PATH=f"{python.parent}:{os.environ['PATH']}", PYTHONPATH=str(HOME / "runner" / "python"),
               JIOBENCH_HOME=str(HOME))
    return subprocess.Popen([str(python), "-m", "jiobench.run.cli", "-n", "2", "--launcher", launcher, "--", *args,
                             "-o", str(tmp_path / "f.dat"), "--results", str(tmp_path / "results")],
                            env=env, cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)


def run_file(tmp_path: Path) -> dict:
    (path,) = (tmp_path / "results").glob("*.json")
    return json.loads(path.read_text())


@pytest.mark.parametrize("mpi", MPIS)
def test_a_verified_run_on_each_mpi(tmp_path, mpi):
    # One JVM a rank (--forks 0): what is tested is the MPI.
    job = jiobench(mpi, tmp_path, "-a", "raw-bytes,bulk-jni,calibrate", "-b", "1MiB", "-t", "256KiB", "--verify",
                   "--forks", "0")
    out, err = job.communicate(timeout=180)
    assert job.returncode == 0, err
    run = run_file(tmp_path)
    assert MPIS[mpi][2] in run["environment"]["mpi"]["library"] and "\0" not in run["environment"]["mpi"]["library"]
    assert run["environment"]["ranks"] == 2 and {p["ranks"] for p in run["phases"]} == {2}
    assert all(p["verified"] is True for p in run["phases"] if p["approach"] != "calibrate")
    assert "\x1e" not in out, "rank 0's exit code line is jiobench run's, not the user's"


@pytest.mark.parametrize("mpi", MPIS)
def test_a_stop_reaches_every_rank_on_each_mpi(tmp_path, mpi):
    job = jiobench(mpi, tmp_path, "-a", "data-stream", "-b", "16MiB", "-t", "1MiB", "-i", "1", "--warmup", "0")
    time.sleep(6)
    job.send_signal(signal.SIGTERM)
    out, err = job.communicate(timeout=30)
    assert job.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM during data-stream write fork 1 rep 0" in err, err
    assert run_file(tmp_path)["incomplete"]["signal"] == "SIGTERM"
    assert not (tmp_path / "f.dat").exists()


def test_an_mpi4py_of_another_mpi_is_refused_before_any_rank_starts(tmp_path):
    python, _, _ = MPIS["mpich"]
    env = dict(os.environ, PYTHONPATH=str(HOME / "runner" / "python"), JIOBENCH_HOME=str(HOME))
    done = subprocess.run([str(python), "-m", "jiobench.run.cli", "-n", "2", "--", "-a", "calibrate"], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "jiobench: error: mpirun is Open MPI 4.1.4 but mpi4py uses MPICH 5.0.2: the ranks would not find each other; "
        "put the MPICH 5.0.2 launcher first on PATH or install mpi4py for the other"], done.stderr


@pytest.mark.parametrize("mpi", ["open-mpi-5", "mpich"])
def test_a_killed_rank_launcher_on_each_mpi(tmp_path, mpi):
    """Open MPI 5 (--enable-recovery) leaves the other rank to end the run. MPICH's Hydra kills every
    rank as soon as it reaps one a signal ended, whatever its options, and reaps at its next event: the
    dead rank's keeper holds its output, so that the next event is the survivor's first line, which
    comes after the run file; the test file is left, and jiobench run says why in one line."""
    job = jiobench(mpi, tmp_path, *KILLED_LAUNCHER_RUN)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(job.stdout), daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not any(line.startswith(KILLED_LAUNCHER_AFTER) for line in lines):
        assert time.monotonic() < deadline and job.poll() is None, job.stderr.read() if job.poll() is not None else lines
        time.sleep(0.1)
    os.kill(rank_launcher(tmp_path, 1), signal.SIGKILL)
    err = job.communicate(timeout=60)[1]
    assert job.returncode == 1, err
    kept = phases_kept_after_a_lost_rank(err, 1, os.uname().nodename)
    run = run_file(tmp_path)
    assert run["incomplete"]["reason"] == "failed" and len(run["phases"]) == kept < 6
    if mpi == "mpich":
        assert f"jiobench: error: mpiexec ended (exit code 9) before the ranks said how the run ended (ranks up: 0 on " \
               f"{os.uname().nodename}, 1 on {os.uname().nodename}): it ends them all when one of their processes dies" \
               in err, err
    else:
        assert not (tmp_path / "f.dat").exists()
