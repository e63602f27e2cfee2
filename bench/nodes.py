"""Prints the table of the papers' scaling experiment on a cluster file system from the sweeps
bench/nodes.sh ran (DIR/tasks-per-node-1, -2 and -4, each over 1, 2 and 3 nodes), or from what it
kept of them (KEEP=docs/runs/nodes: each sweep's manifest and run files): each approach's median
MiB/s over its measured repetitions at every point, write then read, then whether every phase's
bytes were verified and which points have no complete run file.

    python bench/nodes.py DIR
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from jiobench.model import sweepfile
from jiobench.model.text import size_text
from ratios import aligned, environment_line, readable, runs_reps

STONEWALL_MARK, SHORT_MARK = "†", "‡"  # as `jiobench report` marks them
REFERENCE = "c-posix"
FLAGS = (("-e", "fsync"), ("--drop-cache", "drop_cache"), ("-C", "reorder"), ("--verify", "verify"))


def sweep_points(directory: Path) -> list[dict]:
    """Every point of every sweep, by tasks per node then nodes: its place, and its run where the
    run file is complete (None otherwise, with the reason)."""
    found = []
    for sweep in (path.parent for path in directory.glob(f"*/{sweepfile.MANIFEST}")):
        manifest = sweepfile.read(sweep)
        per_node = manifest["slurm"]["tasks_per_node"]
        for point in manifest["points"]:
            path = sweepfile.point_run_file(sweep, point)
            state, detail = sweepfile.run_file_state(path)
            run = json.loads(path.read_text()) if state == sweepfile.COMPLETE else None
            found.append({"per_node": per_node, "nodes": point["nodes"], "procs": point["procs"], "run": run,
                          "label": f"{sweep.name}/{point['id']}",
                          "missing": None if run else state + (f" ({detail})" if detail else "")})
    return sorted(found, key=lambda p: (p["per_node"], p["nodes"]))


def approaches(runs: list[dict]) -> list[str]:
    """The reference first, then the others in the order the runs measured them."""
    names = list(dict.fromkeys(row["approach"] for run in runs for row in run["summary"]))
    return sorted(names, key=lambda name: name != REFERENCE)


def cell(run: dict | None, approach: str, op: str) -> str:
    if run is None:
        return "-"
    for row in run["summary"]:
        if (row["approach"], row["op"]) == (approach, op):
            return (readable(row["bw_mib_s"]["median"]) + (STONEWALL_MARK if row["stonewalled"] else "")
                    + (SHORT_MARK if row["short"] else ""))
    return "-"


def heading(runs: list[dict]) -> str:
    """What every point ran (a sweep's points share their runner options), and on what."""
    p = runs[0]["parameters"]
    filesystem = runs[0]["environment"]["filesystem"]
    layout = filesystem.get("layout") or {}
    volume = (f"{filesystem['type']} ({str(layout.get('type', '')).lower()} volume of {layout['bricks']} bricks,"
              f" shards of {size_text(layout['shard_block_size'])})" if layout.get("bricks") else filesystem["type"])
    flags = " ".join(flag for flag, key in FLAGS if p.get(key))
    deadline = f" -D {p['deadline_s']:g}" if p.get("deadline_s") else ""
    return (f"-b {size_text(p['block_size'])} -t {size_text(p['transfer_size'])}{deadline} {flags},"
            f" {runs_reps(runs)} a point, on {volume}\n"
            f"  median MiB/s of each point's measured reps"
            f" ({STONEWALL_MARK} stonewalled, {SHORT_MARK} phases under 50 ms)")


def verification(points: list[dict]) -> str:
    phases = [(point["label"], phase) for point in points if point["run"] for phase in point["run"]["phases"]]
    unchecked = [f"{label} {phase['approach']} {phase['op']} rep {phase['rep']}"
                 for label, phase in phases if phase.get("verified") is not True]
    if not unchecked:
        return f"verified: every byte of all {len(phases)} phases (warm-ups included) of the complete points"
    return f"not verified: {len(unchecked)} of {len(phases)} phases: " + "; ".join(unchecked)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python bench/nodes.py DIR (the directory bench/nodes.sh filled)", file=sys.stderr)
        return 2
    points = sweep_points(Path(argv[0]))
    runs = [point["run"] for point in points if point["run"]]
    if not runs:
        print(f"bench/nodes.py: no complete run in the sweeps of {argv[0]}", file=sys.stderr)
        return 1
    print(heading(runs))
    print(f"  {environment_line(runs)}")
    for op in ("write", "read"):
        rows = [[op, *("" for _ in points)],
                ["  ranks per node", *(str(point["per_node"]) for point in points)],
                ["  nodes", *(str(point["nodes"]) for point in points)],
                ["  ranks", *(str(point["procs"]) for point in points)]]
        rows += [[f"  {approach}", *(cell(point["run"], approach, op) for point in points)]
                 for approach in approaches(runs)]
        print("\n".join(aligned(rows, "<" + ">" * len(points))))
    print(verification(points))
    for point in points:
        if point["missing"]:
            print(f"no complete run file: {point['label']}: {point['missing']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
