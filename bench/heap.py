"""Prints, from run files of bench/heap.sh, one row per run: its JVM and heap set-up, whether the
transfer array was humongous, in how many of the in-place approaches' measured phases it lay where
the kernel's copy crawls (as the runs recorded it), and c-swap's median MiB/s beside each in-place
approach's ratio to it, for reads and for writes.

    python bench/heap.py RUN.json...
"""
from __future__ import annotations

import argparse
import sys

from ratios import environment_line, load_runs, medians, readable

IN_PLACE = ["bulk-jni", "ffm-pread"]


def setup(run: dict) -> str:
    jvm = run["environment"]["jvm"]
    options = " ".join(jvm.get("args") or []) or "defaults"
    order = ", little-endian" if run["parameters"].get("byte_order") == "little" else ""
    return f"JDK {jvm['version'].split('+')[0]}, {options}, -t {run['parameters']['transfer_size'] >> 10}KiB{order}"


def lay_badly(run: dict, op: str) -> str:
    """'crawled of measured' phases of the in-place approaches, or '-' where the run did not record it."""
    rows = [row for row in run["summary"] if row["approach"] in IN_PLACE and row["op"] == op
            and row.get("array_copy_crawls") is not None]
    return f"{sum(row['array_copy_crawls'] for row in rows)}/{sum(row['reps'] for row in rows)}" if rows else "-"


def table(runs: list[dict]) -> list[str]:
    columns = "".join(f"{'÷ ' + approach:>13}" for approach in IN_PLACE)
    lines = []
    for op in ("read", "write"):
        lines += [f"{op}: c-swap's median MiB/s (c-swap is c-posix where the file is little-endian), and each"
                  " in-place approach's median ÷ c-swap's, in one run;",
                  "  slow place: of the in-place approaches' phases, those whose array lay 1 to 31 bytes past a page boundary",
                  f"  {'set-up':<62} {'heap':<18} {'humongous':<9} {'slow place':<10} {'c-swap':>8}{columns}"]
        for run in runs:
            median = medians(run)
            heap = run["environment"]["jvm"]["heap"]
            region = f", regions {heap['region_bytes'] >> 20}MiB" if heap.get("region_bytes") else ""
            humongous = {True: "yes", False: "no", None: "-"}[heap.get("transfer_array_humongous")]
            base = median[("c-swap", op)]
            ratios = "".join(f"{median[(a, op)] / base:>13.2f}" if (a, op) in median else f"{'-':>13}"
                             for a in IN_PLACE)
            lines.append(f"  {setup(run):<62} {heap['collector'] + region:<18} {humongous:<9} "
                         f"{lay_badly(run, op):<10} {readable(base):>8}{ratios}")
        lines.append("")
    return lines + [environment_line(runs)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run JSON files of bench/heap.sh")
    options = parser.parse_args(argv)
    print("\n".join(table(load_runs(options.runs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
