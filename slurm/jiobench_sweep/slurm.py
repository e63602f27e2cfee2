"""Slurm's client commands as `jiobench sweep` calls them: sbatch to check and submit the jobs,
scancel, and scontrol (sacct where accounting keeps more) to follow them."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional, Sequence

from jiobench.paths import HOME


class SlurmError(Exception):
    """A Slurm command refused something; the message is Slurm's own reason, in one line."""


class NoAnswer(Exception):
    """Slurm's controller did not answer; the message says how, in one line."""


# Seconds a question to slurmctld may take. One that is up answers in well under a second; one that
# is down costs a client about 18 s of retries, which `scontrol ping` spares (it asks once).
ANSWER_S = 15


def sbatch_options(options: dict) -> list[str]:
    """The same options as sbatch arguments."""
    return [f"--{name}" if value is True else f"--{name}={value}"
            for name, value in options.items() if value not in (None, False)]


def has_slurm() -> bool:
    return shutil.which("sbatch") is not None


def _reason(output: str) -> str:
    """Slurm's own words: its `error:` line where there is one, else its last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return lines[-1].removeprefix("allocation failure:").strip() if lines else "no reason given"


def test_only(options: dict) -> None:
    """Asks Slurm whether it would take a job with these options (partition, account, size,
    time limit), submitting nothing; SlurmError with its reason when it would not."""
    done = subprocess.run(["sbatch", "--test-only", *sbatch_options(options), "--wrap", "true"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SlurmError(_reason(done.stderr + done.stdout))


def submit(script: str, directory: Path, dependency: Optional[str] = None) -> str:
    """Submits a rendered script (its path within `directory`) from `directory`, which becomes the
    job's working directory; returns the job id."""
    command = ["sbatch", "--parsable", *([f"--dependency={dependency}"] if dependency else []), script]
    # The job finds jiobench through JIOBENCH_HOME, which sbatch passes on (bin/jiobench sets it).
    env = dict(os.environ, JIOBENCH_HOME=os.environ.get("JIOBENCH_HOME", str(HOME)))
    done = subprocess.run(command, capture_output=True, text=True, cwd=directory, env=env)
    if done.returncode != 0:
        raise SlurmError(_reason(done.stderr + done.stdout))
    return done.stdout.strip().split(";")[0]


def cancel(job_id: str) -> None:
    subprocess.run(["scancel", job_id], capture_output=True)


def _field(record: str, name: str) -> Optional[str]:
    match = re.search(rf"(?:^|\s){name}=(\S*)", record)
    return match.group(1) if match else None


def _ask(command: list[str]) -> subprocess.CompletedProcess:
    """A client command whose controller must answer within ANSWER_S; NoAnswer where it does not."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=ANSWER_S)
    except subprocess.TimeoutExpired:
        raise NoAnswer(f"{' '.join(command[:2])} had no answer within {ANSWER_S} s") from None
    if "Unable to contact slurm controller" in done.stderr:
        raise NoAnswer(_reason(done.stderr))
    return done


def _controller_up() -> None:
    """NoAnswer, at once, where no slurmctld is up (`Slurmctld(primary) at HOST is DOWN`)."""
    done = _ask(["scontrol", "ping"])
    if " is UP" not in done.stdout:
        said = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("Slurmctld")]
        raise NoAnswer("; ".join(said) or _reason(done.stderr + done.stdout))


def _scontrol(job_id: str) -> Optional[dict]:
    done = _ask(["scontrol", "-o", "show", "job", job_id])
    if done.returncode != 0 or not done.stdout.strip():
        return None
    record = done.stdout.splitlines()[0]
    return {"state": _field(record, "JobState"), "exit_code": _field(record, "ExitCode"),
            "reason": _field(record, "Reason"), "start": _field(record, "StartTime"),
            "end": _field(record, "EndTime")}


def _sacct(job_ids: Sequence[str]) -> dict[str, dict]:
    """What the accounting database says of jobs slurmctld has forgotten (none where there is none)."""
    if not job_ids or shutil.which("sacct") is None:
        return {}
    try:
        done = subprocess.run(["sacct", "-n", "-P", "-X", "-j", ",".join(job_ids), "-o", "JobID,State,ExitCode"],
                              capture_output=True, text=True, timeout=ANSWER_S)
    except subprocess.TimeoutExpired:
        return {}
    if done.returncode != 0:
        return {}
    found = {}
    for line in done.stdout.splitlines():
        fields = line.split("|")
        if len(fields) == 3:
            # sacct writes "CANCELLED by 0": the state is the first word.
            found[fields[0]] = {"state": fields[1].split()[0], "exit_code": fields[2]}
    return found


def job_states(job_ids: Sequence[str]) -> dict[str, dict]:
    """Job id -> {state, exit_code, ...} for the jobs Slurm still knows, from scontrol (and from
    sacct where accounting keeps the jobs scontrol has forgotten); NoAnswer where slurmctld does
    not answer."""
    job_ids = sorted(set(job_ids))
    if not job_ids or shutil.which("scontrol") is None:
        return {}
    _controller_up()
    with ThreadPoolExecutor(max_workers=8) as pool:
        known = {job_id: state for job_id, state in zip(job_ids, pool.map(_scontrol, job_ids)) if state}
    known.update(_sacct([job_id for job_id in job_ids if job_id not in known]))
    return known
