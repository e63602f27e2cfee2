"""Prints the striping campaign of bench/cluster-fs.sh (DIR/glusterfs and DIR/cephfs-1, -2, -3, or
what KEEP kept of it: KEEP=docs/runs/cluster-fs keeps it in docs/runs/cluster-fs/striping): each
approach's median MiB/s over its measured repetitions at every point, the GlusterFS volume's and
each CephFS layout's at 1, 2 and 4 ranks, write then read; the layouts as the run files recorded
them; then whether every phase's bytes were verified.

    python bench/striping.py DIR
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from jiobench.model.text import size_text
from nodes import FLAGS, SHORT_MARK, STONEWALL_MARK, approaches, cell, verification
from ratios import aligned, environment_line, runs_reps


def points(directory: Path) -> list[dict]:
    """Every run under DIR's point directories: the volume first, then CephFS by stripe count,
    each by ranks."""
    found = []
    for path in directory.glob("*/*.json"):
        run = json.loads(path.read_text())
        layout = run["environment"]["filesystem"].get("layout") or {}
        found.append({"run": run, "label": f"{path.parent.name}/{path.stem}", "missing": None,
                      "filesystem": "glusterfs" if layout.get("bricks") else "cephfs",
                      "stripes": "-" if layout.get("bricks") else str(layout.get("stripe_count")),
                      "ranks": run["environment"]["ranks"]})
    return sorted(found, key=lambda p: (p["filesystem"] != "glusterfs", p["stripes"], p["ranks"]))


def layouts(found: list[dict]) -> list[str]:
    """Each file system's layout as its runs recorded it, once."""
    said = []
    for point in found:
        layout = point["run"]["environment"]["filesystem"]["layout"]
        if point["filesystem"] == "glusterfs":
            line = (f"glusterfs: {str(layout['type']).lower()} volume of {layout['bricks']} bricks, shards of "
                    f"{size_text(layout['shard_block_size'])}")
        else:
            line = (f"cephfs: stripes of {size_text(layout['stripe_unit'])} in objects of "
                    f"{size_text(layout['object_size'])}, over {layout['osds']} OSDs (pool {layout['pool']})")
        if line not in said:
            said.append(line)
    return said


def heading(runs: list[dict]) -> str:
    p = runs[0]["parameters"]
    flags = " ".join(flag for flag, key in FLAGS if p.get(key))
    deadline = f" -D {p['deadline_s']:g}" if p.get("deadline_s") else ""
    return (f"-b {size_text(p['block_size'])} -t {size_text(p['transfer_size'])}{deadline} {flags},"
            f" {runs_reps(runs)} a point, one machine (every server shares its CPUs)\n"
            f"  median MiB/s of each point's measured reps ({STONEWALL_MARK} stonewalled, {SHORT_MARK} phases"
            f" under 50 ms)")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python bench/striping.py DIR (the striping directory bench/cluster-fs.sh filled)",
              file=sys.stderr)
        return 2
    found = points(Path(argv[0]))
    runs = [point["run"] for point in found]
    if not runs:
        print(f"bench/striping.py: no run file under {argv[0]}/*/", file=sys.stderr)
        return 1
    print(heading(runs))
    print(f"  {environment_line(runs)}")
    for line in layouts(found):
        print(f"  {line}")
    for op in ("write", "read"):
        rows = [[op, *("" for _ in found)],
                ["  file system", *(point["filesystem"] for point in found)],
                ["  stripes", *(point["stripes"] for point in found)],
                ["  ranks", *(str(point["ranks"]) for point in found)]]
        rows += [[f"  {approach}", *(cell(point["run"], approach, op) for point in found)]
                 for approach in approaches(runs)]
        print("\n".join(aligned(rows, "<" + ">" * len(found))))
    print(verification(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
