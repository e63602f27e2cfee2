"""`jiobench sweep status DIR`: every point's Slurm state, exit code and run file, from scontrol
(sacct where accounting keeps what scontrol forgot), an allocation's steps file, and the manifest,
which keeps the last state Slurm gave."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

from jiobench.model import sweepfile
from . import slurm


def steps_done(directory: Path, job_id: str) -> dict[str, str]:
    """Point -> exit code of the steps an allocation job has finished (its logs/steps.JOB)."""
    try:
        lines = (directory / "logs" / f"steps.{job_id}").read_text().splitlines()
    except FileNotFoundError:
        return {}
    return {fields[0]: fields[1] for fields in (line.split() for line in lines) if len(fields) == 2}


def refresh(directory: Path) -> dict:
    """The manifest with every job's state as Slurm tells it now, written back; where Slurm does
    not answer, the states the manifest kept, said so in one line."""
    manifest = sweepfile.read(directory, whole=True)
    lookups = [point["job_id"] for point in manifest["points"]
               if point["mode"] in ("submit", "allocation") and point["job_id"]]
    if manifest.get("report"):
        lookups.append(manifest["report"]["job_id"])
    try:
        known = slurm.job_states(lookups)
    except slurm.NoAnswer as silence:
        print(f"jiobench sweep: warning: Slurm did not answer ({silence}); the states are the last it gave, "
              f"kept in {directory / sweepfile.MANIFEST}", file=sys.stderr, flush=True)
        return manifest
    updates = {}
    for point in manifest["points"]:
        if point["mode"] == "submit" and point["job_id"] in known:
            job = known[point["job_id"]]
            updates[point["id"]] = (job["state"], job["exit_code"])
    allocations = {point["job_id"] for point in manifest["points"] if point["mode"] == "allocation"}
    for job_id in allocations:
        done = steps_done(directory, job_id)
        job = known.get(job_id)
        running = True
        for point in manifest["points"]:
            if point["mode"] != "allocation" or point["job_id"] != job_id:
                continue
            if point["id"] in done:
                updates[point["id"]] = ("COMPLETED" if done[point["id"]] == "0" else "FAILED", done[point["id"]])
            elif job and job["state"] == "RUNNING":
                # Steps run in the sweep's order: the first without an exit code is the one running.
                updates[point["id"]] = ("RUNNING" if running else "PENDING", None)
                running = False
            elif job:
                updates[point["id"]] = (job["state"], None)
    report = manifest.get("report")
    report_update = known.get(report["job_id"]) if report else None

    def change(latest):
        for point in latest["points"]:
            if point["id"] in updates:
                point["state"], point["exit_code"] = updates[point["id"]]
        if report_update and latest.get("report") and latest["report"]["job_id"] == report["job_id"]:
            latest["report"].update(state=report_update["state"], exit_code=report_update["exit_code"])
    if not (updates or report_update):
        return manifest
    try:
        return sweepfile.update(directory, change)
    except OSError:  # a sweep someone else owns: its states are shown, not kept
        change(manifest)
        return manifest


def run_file_text(directory: Path, point: dict) -> tuple[str, str]:
    state, detail = sweepfile.run_file_state(sweepfile.point_run_file(directory, point))
    if state == sweepfile.COMPLETE:
        return state, point["run_file"]
    return state, state + (f" ({detail})" if detail else "")


def last_error(directory: Path, point: dict) -> Optional[str]:
    """The last line the point's run wrote to its error log: what went wrong, in its words."""
    pattern = f"{point['id']}.{point['job_id'] or 'here'}.err"
    try:
        lines = [line.strip() for line in (directory / "logs" / pattern).read_text(errors="replace").splitlines()]
    except OSError:
        return None
    ours = [line for line in lines if line.startswith("jiobench")]
    return (ours or [line for line in lines if line] or [None])[-1]


def show_status(directory: Path) -> dict:
    manifest = refresh(directory)
    points = manifest["points"]
    names = list(points[0]["vary"]) if points else []
    headers = ["", "point", "procs", "nodes", *names, "job", "state", "exit", "run file"]
    rows, files = [], {}
    for point in points:
        files[point["id"]], text = run_file_text(directory, point)
        rows.append(["!" if point["state"] in sweepfile.BAD else "", point["id"], str(point["procs"]),
                     str(point["nodes"] or "-"), *(point["vary"][name] for name in names),
                     point["job_id"] or point["mode"] or "-", point["state"],
                     sweepfile.exit_text(point["state"], point["exit_code"]), text])
    report = manifest.get("report")
    if report:
        rows.append(["!" if report["state"] in sweepfile.BAD else "", "report", "", "", *("" for _ in names),
                     report["job_id"], report["state"], sweepfile.exit_text(report["state"], report.get("exit_code")),
                     "report/report.html" if (directory / "report" / "report.html").is_file() else "-"])
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    numeric = {2, 3}
    for row in [headers, *rows]:
        print("  ".join(cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
                        for i, cell in enumerate(row)).rstrip())
    states: dict[str, list[str]] = {}
    for point in points:
        states.setdefault(point["state"], []).append(point["id"])
    by_file = {state: sum(1 for f in files.values() if f == state) for state in dict.fromkeys(files.values())}
    for point in points:
        if point["state"] in sweepfile.BAD:
            why = last_error(directory, point)
            print(f"! {point['id']} {point['state']}" + (f": {why}" if why else ""))
    print(f"{len(points)} points: " + ", ".join(f"{len(ids)} {state}" for state, ids in states.items())
          + "; run files: " + ", ".join(f"{count} {state}" for state, count in by_file.items()))
    return manifest
