"""The Slurm path on a real single-node cluster (slurm/local-cluster.sh): sbatch, then
`jiobench run --launcher srun` (srun --mpi=pmix) and mpirun inside the allocation."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from testing import (HOME, JIOBENCH, KILLED_LAUNCHER_AFTER, KILLED_LAUNCHER_RUN, job_state, phases_kept_after_a_lost_rank,
                     rank_jvm, rank_launcher, wait_for_first_phase_of_next_jvms, wait_for_job, wait_until_dead)

ACCOUNT = "proj42"  # no accounting database: Slurm takes any account and tells the job its name


def submit(env, tmp_path, script: str, ranks: int) -> tuple[str, Path]:
    """The batch job of `script` on `ranks` tasks, submitted: its job id and the file of its output."""
    batch = tmp_path / "job.sh"
    batch.write_text("#!/bin/bash\n" + script + "\n")
    batch.chmod(0o755)
    output = tmp_path / "job.out"
    submitted = subprocess.run(["sbatch", "--parsable", "-A", ACCOUNT, "-n", str(ranks), "-o", str(output),
                                str(batch)], capture_output=True, text=True, env=env, check=True)
    return submitted.stdout.strip().split(";")[0], output


def submit_and_wait(env, tmp_path, script: str, ranks: int, timeout: float = 120) -> tuple[str, str, str]:
    job_id, output = submit(env, tmp_path, script, ranks)
    return wait_for_job(env, job_id, timeout), output.read_text(), job_id


def wait_for_line(env, job_id: str, output: Path, line: str) -> None:
    """Until the job's output holds `line`, while the job is waiting or running."""
    deadline = time.monotonic() + 120
    while line not in (said := output.read_text() if output.exists() else ""):
        assert time.monotonic() < deadline and job_state(env, job_id) in ("PENDING", "RUNNING"), said
        time.sleep(0.2)


@pytest.mark.parametrize("launcher", ["srun", "mpirun"])
def test_a_batch_job_runs_the_ranks_of_its_allocation(slurm, tmp_path, launcher):
    script = (f"{JIOBENCH} run --launcher {launcher} -n 2 -- -a raw-bytes,calibrate -b 1MiB -t 256KiB --verify "
              f"-o {tmp_path}/f.dat --results {tmp_path}/results")
    state, output, job_id = submit_and_wait(slurm, tmp_path, script, ranks=2)
    assert state == "COMPLETED", output
    run = json.loads((tmp_path / "results" / output.strip().splitlines()[-1].rsplit("/", 1)[-1]).read_text())
    assert run["environment"]["launcher"] == launcher
    assert run["environment"]["ranks"] == 2
    # srun's ranks are step 0; mpirun's run in the batch script's own step.
    assert run["environment"]["slurm"] == {
        "job_id": job_id, "step_id": "0" if launcher == "srun" else "batch", "nodes": "localhost",
        "node_count": "1", "tasks_per_node": "2", "partition": "debug", "account": ACCOUNT}
    assert all(p["verified"] in (True, None) for p in run["phases"])


def test_a_user_mistake_under_srun_fails_the_job_with_one_line(slurm, tmp_path):
    state, output, _ = submit_and_wait(slurm, tmp_path, f"{JIOBENCH} run --launcher srun -n 2 -- -b 3MiB -t 2MiB",
                                       ranks=2)
    assert state == "FAILED"
    # srun adds its own "srun: error: ... Exited with exit code 2" line; jiobench speaks once.
    ours = [line for line in output.splitlines() if line.startswith("jiobench")]
    assert ours == ["jiobench: error: block size 3MiB is not a multiple of transfer size 2MiB (see --help)"], output
    assert "Traceback" not in output


@pytest.mark.parametrize("launcher", ["srun", "mpirun"])
def test_scancel_keeps_the_phases_completed_before(slurm, tmp_path, launcher):
    """Slurm's SIGTERM reaches the batch script, jiobench run and every rank (a time limit sends
    the same): the run ends its phase, writes what it completed and removes its file."""
    job_id, output = submit(slurm, tmp_path, f"exec {JIOBENCH} run --launcher {launcher} -n 2 -- -a raw-bytes,data-stream "
                            f"-b 16MiB -t 1MiB -i 1 -o {tmp_path}/f.dat --results {tmp_path}/results", ranks=2)
    wait_for_line(slurm, job_id, output, "raw-bytes              read  fork 1 rep 1")
    time.sleep(2)  # data-stream's JVMs are in their first phase
    subprocess.run(["scancel", job_id], env=slurm, check=True)
    assert wait_for_job(slurm, job_id, timeout=60) == "CANCELLED"
    text = output.read_text()
    # mpirun, signalled by Slurm too, may drop rank 0's lines; then jiobench run says what it knows: the run file
    # rank 0's last line named, or, where that was dropped too, that the ranks did not say.
    assert ("jiobench: stopped by SIGTERM during data-stream write fork 1 rep 0 (warm-up); the run file keeps the 4 "
            "phases completed before" in text) or (f"jiobench: stopped by SIGTERM; the run file of the phases "
                                                   f"completed before is {tmp_path}/results/" in text) or (
        f"jiobench: stopped by SIGTERM; the ranks did not say whether they wrote a run file (look in {tmp_path}/results)"
        ": a rank may be held by a file system that stopped answering" in text), text
    (run_file,) = (tmp_path / "results").glob("*.json")
    run = json.loads(run_file.read_text())
    assert run["incomplete"]["signal"] == "SIGTERM" and len(run["phases"]) == 4
    assert not (tmp_path / "f.dat").exists()
    deadline = time.monotonic() + 10
    while left := subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True).stdout.split():
        assert time.monotonic() < deadline, f"processes of the job left: {left}"
        time.sleep(0.2)


def test_a_stop_that_comes_as_a_rank_fails_ends_the_run_as_the_failure_does_under_srun(slurm, tmp_path):
    """A rank's JVM killed, and `jiobench run` stopped once it is gone (by a user's kill, not by
    Slurm), before the rank may have seen it: the failure says more than the stop, as under mpirun
    (test_faults) and MPJ Express (test_mpj)."""
    test_file = tmp_path / "f.dat"
    job_id, output = submit(slurm, tmp_path, f"{JIOBENCH} run --launcher srun -n 2 -- -a raw-bytes,data-stream "
                            f"-b 16MiB -t 1MiB -i 1 -D 3 -o {test_file} --results {tmp_path}/results; "
                            'echo "exit code $?"', ranks=2)
    wait_for_line(slurm, job_id, output, "raw-bytes              read  fork 1 rep 1")
    wait_for_first_phase_of_next_jvms(test_file, lambda: all(rank_jvm(tmp_path, rank) for rank in (0, 1)))
    victim = rank_jvm(tmp_path, 1)
    os.kill(victim, signal.SIGKILL)
    wait_until_dead(victim)
    (run,) = [int(pid) for pid in subprocess.run(["pgrep", "-f", f"jiobench.run.cli .*{tmp_path}"],
                                                 capture_output=True, text=True).stdout.split()]
    os.kill(run, signal.SIGTERM)
    assert wait_for_job(slurm, job_id, timeout=60) == "COMPLETED"
    text = output.read_text()
    assert "rank 1 failed during data-stream write fork 1 rep 0 (warm-up): the JVM was killed by SIGKILL" in text, text
    assert text.splitlines()[-1] == "exit code 1", text
    (run_file,) = (tmp_path / "results").glob("*.json")
    assert json.loads(run_file.read_text())["incomplete"]["reason"] == "failed"
    assert not test_file.exists()


def test_the_template_runs_as_a_user_edits_it_by_hand(slurm, tmp_path):
    """slurm/jiobench.sbatch as its own comment says to use it: copied, its #SBATCH lines and run
    line edited, submitted from the directory that holds logs/ and results/."""
    template = (HOME / "slurm" / "jiobench.sbatch").read_text()
    checked = subprocess.run(["bash", "-n"], input=template, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    edited = (template.replace("--ntasks=8", "--ntasks=2").replace("--ntasks-per-node=8", "--ntasks-per-node=2")
              .replace("-a paper,c-posix -b 256MiB -t 4MiB -e", "-a raw-bytes,c-posix -b 1MiB -t 256KiB -e --verify"))
    assert edited.count("-a raw-bytes,c-posix") == 2, "the run line and its mpirun alternative"
    (tmp_path / "jiobench.sbatch").write_text(edited)
    (tmp_path / "logs").mkdir()
    submitted = subprocess.run(["sbatch", "--parsable", "jiobench.sbatch"], capture_output=True, text=True,
                               cwd=tmp_path, env=dict(slurm, JIOBENCH_HOME=str(HOME), SCRATCH=str(tmp_path)),
                               check=True)
    job_id = submitted.stdout.strip().split(";")[0]
    assert wait_for_job(slurm, job_id, timeout=120) == "COMPLETED", (tmp_path / "logs").iterdir()
    output = (tmp_path / "logs" / f"jiobench.{job_id}.out").read_text()
    (run_file,) = (tmp_path / "results").glob("*.json")
    assert output.strip().splitlines()[-1].endswith(run_file.name), output
    run = json.loads(run_file.read_text())
    assert run["environment"]["launcher"] == "srun" and run["environment"]["ranks"] == 2
    assert run["environment"]["slurm"]["job_id"] == job_id
    assert [p["approach"] for p in run["phases"] if not p["warmup"]] == ["raw-bytes"] * 2 + ["c-posix"] * 2
    assert all(p["verified"] is True for p in run["phases"])
    assert not (tmp_path / "jiobench.dat").exists(), "the run removes the file it created"


def test_a_killed_rank_launcher_leaves_the_others_to_end_the_run_under_srun(slurm, tmp_path):
    """kill -9 of a rank's launcher: Slurm's PMIx plugin cancels the step on the PMIx connection it
    loses, unless the rank's keeper holds it; the other rank then finds it silent, writes the run file
    and removes the test file."""
    job_id, output = submit(slurm, tmp_path, f"exec {JIOBENCH} run --launcher srun -n 2 -- {' '.join(KILLED_LAUNCHER_RUN)} "
                            f"-o {tmp_path}/f.dat --results {tmp_path}/results", ranks=2)
    wait_for_line(slurm, job_id, output, KILLED_LAUNCHER_AFTER)
    os.kill(rank_launcher(tmp_path, 1), signal.SIGKILL)
    assert wait_for_job(slurm, job_id, timeout=60) == "FAILED"
    text = output.read_text()
    kept = phases_kept_after_a_lost_rank(text, 1, os.uname().nodename)
    (run_file,) = (tmp_path / "results").glob("*.json")
    run = json.loads(run_file.read_text())
    assert run["incomplete"]["reason"] == "failed" and len(run["phases"]) == kept < 6
    assert not (tmp_path / "f.dat").exists()

