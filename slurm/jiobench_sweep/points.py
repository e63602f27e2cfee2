"""A sweep's points started (`jiobench sweep`, jiobench_sweep.cli): submitted to Slurm as a job each or
as one allocation, with the report job after them; or run here one after another through
`jiobench run`, then reported; or, with no mode, left ready to review. Each point's state goes to
the sweep's manifest as it changes."""
from __future__ import annotations

import datetime
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from jiobench.model import sweepfile
from jiobench.paths import HOME

from . import slurm
from .jobs import launcher_of, run_words
from .status import show_status

# A point run here, and the report after it, are `jiobench run` and `jiobench report` as in a job.
JIOBENCH = HOME / "bin" / "jiobench"

def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def save_point(directory: Path, point: dict) -> None:
    def change(manifest):
        for index, old in enumerate(manifest["points"]):
            if old["id"] == point["id"]:
                manifest["points"][index] = point
    sweepfile.update(directory, change)


def submit(directory: Path, points: list[dict], mode: str, waiting: Sequence[str] = ()) -> int:
    """Submits the points (a job each, or one allocation), then the report job after them and
    after the `waiting` jobs (of points still running from before)."""
    try:
        if mode == "allocation":
            job_id = slurm.submit("jobs/allocation.sbatch", directory)
            for point in points:
                point.update(mode=mode, job_id=job_id, state="PENDING", exit_code=None)
                save_point(directory, point)
            job_ids = [job_id]
            print(f"  {len(points)} points in allocation job {job_id}")
        else:
            job_ids = []
            for point in points:
                job_id = slurm.submit(point["script"], directory)
                point.update(mode=mode, job_id=job_id, state="PENDING", exit_code=None)
                save_point(directory, point)
                job_ids.append(job_id)
                print(f"  {point['id']:<{width(points)}}  job {job_id}")
        report = slurm.submit("jobs/report.sbatch", directory,
                              dependency="afterany:" + ":".join(dict.fromkeys([*job_ids, *waiting])))
    except slurm.SlurmError as refused:
        return say(f"sbatch refused a job: {refused}; what was submitted is in {directory}/sweep.json "
                   f"(jiobench sweep --resume {directory} submits the rest)", 1)
    sweepfile.update(directory, lambda m: m.update(report={"job_id": report, "state": "PENDING", "exit_code": None}))
    print(f"  {'report':<{width(points)}}  job {report}, after all of them\n"
          f"Follow it with: jiobench sweep status {directory}")
    return 0


def width(points: Sequence[dict]) -> int:
    return max([len("report")] + [len(point["id"]) for point in points])


def run_here(directory: Path, manifest: dict, points: list[dict]) -> int:
    """The points one after another through mpirun on this machine, then the report."""
    (directory / "logs").mkdir(exist_ok=True)
    interrupted = False
    for index, point in enumerate(points, 1):
        point.update(mode="here", job_id=None, state="RUNNING", exit_code=None)
        save_point(directory, point)
        words = run_words(point, launcher_of(manifest, point), str(point["procs"]), manifest["launcher_args"])
        started = time.monotonic()
        with open(directory / "logs" / f"{point['id']}.here.out", "w") as out, \
                open(directory / "logs" / f"{point['id']}.here.err", "w") as err:
            process = subprocess.Popen([str(JIOBENCH), "run", *words], cwd=directory, stdout=out, stderr=err,
                                       start_new_session=True)
            try:
                code = process.wait()
            except KeyboardInterrupt:
                os.killpg(process.pid, signal.SIGTERM)
                code = process.wait()
                interrupted = True
        state = "CANCELLED" if interrupted else "COMPLETED" if code == 0 else "FAILED"
        # A run killed by a signal reads as Slurm writes it: code:signal.
        point.update(state=state, exit_code=str(code) if code >= 0 else f"0:{-code}")
        save_point(directory, point)
        print(f"  {index}/{len(points)} {point['id']:<{width(points)}}  {state:<9} "
              f"{time.monotonic() - started:6.1f} s  {sweepfile.point_label(point)}", flush=True)
        if interrupted:
            return say(f"interrupted; jiobench sweep --resume {directory} --here runs the points left", 130)
    print()
    show_status(directory)
    return make_report(directory)


def make_report(directory: Path) -> int:
    print(flush=True)
    return subprocess.run([str(JIOBENCH), "report", str(directory), "-o", str(directory / "report")]).returncode


def say(message: str, code: int) -> int:
    print(f"jiobench: {'error: ' if code else ''}{message}", file=sys.stderr)
    return code


def start(directory: Path, manifest: dict, points: list[dict], mode: Optional[str],
          waiting: Sequence[str] = ()) -> int:
    if mode == "here":
        return run_here(directory, manifest, points)
    if mode in ("submit", "allocation"):
        return submit(directory, points, mode, waiting)
    for point in points:
        print(f"  {point['id']:<{width(points)}}  {sweepfile.point_label(point)}")
    print(f"Nothing submitted. The jobs are in {directory}/jobs; --submit would run, from {directory}:\n"
          f"  sbatch --parsable jobs/POINT.sbatch                 (each of the {len(points)} points)\n"
          f"  sbatch --dependency=afterany:JOB:... jobs/report.sbatch\n"
          f"then: jiobench sweep --resume {directory} --submit   (or --allocation, or --here)")
    return 0
