"""The Slurm path on a real single-node cluster (slurm/local-cluster.sh): sbatch, then
`jiobench run --launcher srun` (srun --mpi=pmix) and mpirun inside the allocation."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import HOME, JIOBENCH

CLUSTER = HOME / "slurm" / "local-cluster.sh"


@pytest.fixture(scope="module")
def slurm():
    # munged wants every directory above its socket searchable by all: pytest's own are private.
    directory = Path(tempfile.mkdtemp(prefix="jiobench-slurm-"))
    directory.chmod(0o755)
    started = subprocess.run([str(CLUSTER), "start", str(directory)], capture_output=True, text=True, timeout=60)
    assert started.returncode == 0, started.stderr
    env = dict(os.environ, SLURM_CONF=str(directory / "slurm.conf"))
    yield env
    subprocess.run([str(CLUSTER), "stop", str(directory)], capture_output=True, timeout=60)
    shutil.rmtree(directory, ignore_errors=True)


def job_state(env, job_id: str) -> str:
    shown = subprocess.run(["scontrol", "show", "job", job_id], capture_output=True, text=True, env=env).stdout
    return next(field.split("=", 1)[1] for field in shown.split() if field.startswith("JobState="))


def submit_and_wait(env, tmp_path, script: str, ranks: int, timeout: float = 120) -> tuple[str, str]:
    batch = tmp_path / "job.sh"
    batch.write_text("#!/bin/bash\n" + script + "\n")
    batch.chmod(0o755)
    output = tmp_path / "job.out"
    submitted = subprocess.run(["sbatch", "--parsable", "-n", str(ranks), "-o", str(output), str(batch)],
                               capture_output=True, text=True, env=env, check=True)
    job_id = submitted.stdout.strip().split(";")[0]
    deadline = time.monotonic() + timeout
    state = job_state(env, job_id)
    while state in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING"):
        assert time.monotonic() < deadline, f"job {job_id} still {state}"
        time.sleep(0.2)
        state = job_state(env, job_id)
    return state, output.read_text()


@pytest.mark.parametrize("launcher", ["srun", "mpirun"])
def test_a_batch_job_runs_the_ranks_of_its_allocation(slurm, tmp_path, launcher):
    script = (f"{JIOBENCH} run --launcher {launcher} -n 2 -- -a raw-bytes,calibrate -b 1MiB -t 256KiB --verify "
              f"-o {tmp_path}/f.dat --results {tmp_path}/results")
    state, output = submit_and_wait(slurm, tmp_path, script, ranks=2)
    assert state == "COMPLETED", output
    run = json.loads((tmp_path / "results" / output.strip().splitlines()[-1].rsplit("/", 1)[-1]).read_text())
    assert run["environment"]["launcher"] == launcher
    assert run["environment"]["ranks"] == 2
    assert all(p["verified"] in (True, None) for p in run["phases"])


def test_a_user_mistake_under_srun_fails_the_job_with_one_line(slurm, tmp_path):
    state, output = submit_and_wait(slurm, tmp_path, f"{JIOBENCH} run --launcher srun -n 2 -- -b 3MiB -t 2MiB",
                                    ranks=2)
    assert state == "FAILED"
    # srun adds its own "srun: error: ... Exited with exit code 2" line; jiobench speaks once.
    ours = [line for line in output.splitlines() if line.startswith("jiobench")]
    assert ours == ["jiobench: error: block size 3MiB is not a multiple of transfer size 2MiB (see --help)"], output
    assert "Traceback" not in output
