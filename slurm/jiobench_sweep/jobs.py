"""The batch scripts of a sweep, rendered from slurm/jiobench.sbatch: one per point, one that runs
every point as a step of one allocation, and the report job's; and the `jiobench run` command of
a point, which `--here` runs as it is."""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Optional

from jiobench.model import sweepfile
from . import slurm as batch
from jiobench.model.sweepfile import plural
from jiobench.errors import UsageError
from .plan import seconds, slurm_time


def job_options(manifest: dict, name: str, ntasks: int, nodes: Optional[int], limit: Optional[str],
                whole: bool = True) -> dict:
    """The #SBATCH options of one job of the sweep; `whole` false for the report's small job."""
    slurm = manifest["slurm"]
    return {"job-name": f"jiobench-{name}", "nodes": nodes if whole else None, "ntasks": ntasks,
            "ntasks-per-node": slurm["tasks_per_node"] if whole else None, "time": limit,
            "partition": slurm["partition"], "account": slurm["account"],
            "exclusive": slurm["exclusive"] and whole, "output": f"logs/{name}.%j.out",
            "error": f"logs/{name}.%j.err"}


def point_job(manifest: dict, point: dict) -> dict:
    return job_options(manifest, point["id"], point["procs"], point["nodes"], manifest["slurm"]["time"])


def allocation_job(manifest: dict, points: list[dict]) -> dict:
    """The largest point's nodes and tasks, for as long as all points' time limits together."""
    limit = manifest["slurm"]["time"]
    nodes = [point["nodes"] for point in points if point["nodes"]]
    return job_options(manifest, "sweep", max(point["procs"] for point in points), max(nodes) if nodes else None,
                       slurm_time(seconds(limit) * len(points)) if limit else None)


REPORT_SECONDS = 600  # a report of hundreds of runs takes a minute; a short limit backfills soon


def report_job(manifest: dict) -> dict:
    limit = manifest["slurm"]["time"]
    return job_options(manifest, "report", 1, None,
                       slurm_time(min(seconds(limit), REPORT_SECONDS)) if limit else None, whole=False)


def check_slurm(manifest: dict, points: list[dict], mode: str) -> None:
    """sbatch --test-only on every distinct job: an unknown partition or account, a job larger
    than the cluster, a wrong time limit are Slurm's own one line, before anything is submitted."""
    if not batch.has_slurm():
        raise UsageError(f"--{mode} needs Slurm's sbatch, which is not installed here (--here runs the "
                         "points on this machine)")
    jobs = [allocation_job(manifest, points)] if mode == "allocation" else [point_job(manifest, p) for p in points]
    seen = set()
    for job in jobs + [report_job(manifest)]:
        shape = tuple((name, value) for name, value in job.items() if name not in ("job-name", "output", "error"))
        if shape in seen:
            continue
        seen.add(shape)
        try:
            batch.test_only({name: value for name, value in shape})
        except batch.SlurmError as refused:
            size = plural(job["ntasks"], "task") + (f" on {plural(job['nodes'], 'node')}" if job["nodes"] else "")
            raise UsageError(f"sbatch refuses {job['job-name']} ({size}): {refused}") from None


class Ranks(str):
    """The rank count as the shell is to read it (a variable, not a quoted word)."""


def run_words(point: dict, launcher: str, ranks: str, launcher_args: str) -> list[str]:
    """What follows `jiobench run` for this point."""
    words = ["--launcher", launcher, "-n", ranks, "--run-id", point["id"]]
    if point["java"]:
        words += ["--java", point["java"]]
    if point["jvm_args"]:
        words.append(f"--jvm-args={point['jvm_args']}")
    if launcher_args:
        words.append(f"--launcher-args={launcher_args}")
    return words + ["--", *point["runner_args"]]


def shell_word(word: str) -> str:
    """A word quoted for bash; of `--name=value`, only the value, which reads better."""
    if isinstance(word, Ranks):
        return word
    name, equals, value = word.partition("=")
    if word.startswith("--") and equals and shlex.quote(name) == name:
        return f"{name}={shlex.quote(value)}"
    return shlex.quote(word)


def shell_line(prefix: str, words: list[str]) -> str:
    """A command line for bash, wrapped before the runner options."""
    text = " ".join(shell_word(word) for word in words)
    return prefix + text.replace(" -- ", " -- \\\n    ", 1)


LAUNCHER_NOTES = {"srun": "srun --mpi=pmix starts one rank per task of the job",
                  "mpirun": "mpirun takes its slots from the job's allocation",
                  "mpj-multicore": "MPJ Express runs the ranks as threads of one JVM on the job's node",
                  "mpj-niodev": "MPJ Express starts a JVM per rank on the job's node"}


def launcher_of(manifest: dict, point: dict) -> str:
    """The point's own launcher where the sweep varies it, else the sweep's."""
    return point.get("launcher") or manifest["launcher"]


def point_body(manifest: dict, point: dict) -> list[str]:
    launcher = launcher_of(manifest, point)
    ntasks = Ranks('"$SLURM_NTASKS"')
    # exec: the run is then the job's own process, which Slurm's SIGTERM (scancel, the time limit)
    # reaches and waits for, so it ends its phase and writes its run file before anything is killed.
    body = [f"# {LAUNCHER_NOTES[launcher]}.",
            shell_line('exec "$jiobench" run ', run_words(point, launcher, ntasks, manifest["launcher_args"]))]
    if launcher not in ("srun", "mpirun"):
        return body
    other = "mpirun" if launcher == "srun" else "srun"
    alternative = shell_line('exec "$jiobench" run ', run_words(point, other, ntasks, ""))
    return body + [f"# Or {LAUNCHER_NOTES[other]}:", *(f"# {line}" for line in alternative.splitlines())]


def step_words(manifest: dict, point: dict) -> list[str]:
    """One point as a step of the allocation: srun gets the point's nodes, a name, a time limit."""
    launcher_args = manifest["launcher_args"]
    if launcher_of(manifest, point) == "srun":
        step = ([f"-N {point['nodes']}"] if point["nodes"] else []) + [f"-J {point['id']}"]
        if manifest["slurm"]["time"]:
            step.append(f"--time={manifest['slurm']['time']}")
        launcher_args = " ".join(step + ([launcher_args] if launcher_args else []))
    return run_words(point, launcher_of(manifest, point), str(point["procs"]), launcher_args)


ALLOCATION_PROLOGUE = [
    "# The points one job step after another; a point that fails leaves the others running. Each",
    "# point's output goes to logs/POINT.JOB.out and .err, its exit code to logs/steps.JOB. Slurm's",
    "# SIGTERM (scancel, the time limit) reaches the running point itself; this script waits for it",
    "# to write its run file rather than end and have the job's processes killed.",
    "trap : TERM",
    "step() {",
    "  local point=$1 code=0",
    "  shift",
    '  "$@" >"logs/$point.$SLURM_JOB_ID.out" 2>"logs/$point.$SLURM_JOB_ID.err" &',
    "  local child=$!",
    '  while kill -0 "$child" 2>/dev/null; do wait "$child" || code=$?; done',
    '  echo "$point $code" >>"logs/steps.$SLURM_JOB_ID"',
    "}",
]

REPORT_BODY = [
    "# After every point has ended (afterany): the state of each, then the report of their run files.",
    '"$jiobench" sweep status .',
    '"$jiobench" report . -o report',
]


def header(what: str) -> list[str]:
    return [f"{what}.",
            "Rendered from slurm/jiobench.sbatch by `jiobench sweep`; submit it from the sweep's directory,",
            "which holds sweep.json, logs/ and results/. `jiobench sweep status DIR` follows it."]


def render_all(directory: Path, manifest: dict, points: list[dict]) -> None:
    """A script per point, the allocation's for `points`, and the report's, into DIR/jobs."""
    jobs = directory / "jobs"
    jobs.mkdir(exist_ok=True)
    for point in points:
        text = batch.render(header(f"Point {point['id']} of a jiobench sweep ({sweepfile.point_label(point)})"),
                            point_job(manifest, point), point_body(manifest, point))
        (directory / point["script"]).write_text(text, encoding="utf-8")
    steps = [shell_line(f"step {point['id']} \"$jiobench\" run ", step_words(manifest, point)) for point in points]
    text = batch.render(header(f"All {len(points)} points of a jiobench sweep in one allocation"),
                        allocation_job(manifest, points), ALLOCATION_PROLOGUE + steps)
    (jobs / "allocation.sbatch").write_text(text, encoding="utf-8")
    text = batch.render(header("The report of a jiobench sweep"), report_job(manifest), REPORT_BODY)
    (jobs / "report.sbatch").write_text(text, encoding="utf-8")
