"""Prints, from run files of bench/heap.sh, for each run: its JVM and heap set-up, whether the
transfer array was humongous, then for reads and for writes in how many of the in-place approaches'
measured phases it lay where the kernel's copy crawls (as the runs recorded it), and c-swap's
median MiB/s beside each in-place approach's ratio to it, with its 95% interval and verdict
(bench/ratios.py).

    python bench/heap.py RUN.json...
"""
from __future__ import annotations

import argparse
import sys

from jiobench.model.text import ratio_text
from ratios import aligned, environment_line, load_runs, medians, ratio, readable, run_rates

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
    lines = ["c-swap's median MiB/s in each run (c-posix where the file is little-endian: nothing to swap) and each",
             "in-place approach's ratio to it in the same run; slow place: of the in-place approaches' measured",
             "phases, those whose array lay 1 to 31 bytes past a page boundary"]
    for run in runs:
        median, rates = medians(run), run_rates(run)
        heap = run["environment"]["jvm"]["heap"]
        region = f", regions {heap['region_bytes'] >> 20}MiB" if heap.get("region_bytes") else ""
        humongous = {True: "yes", False: "no", None: "-"}[heap.get("transfer_array_humongous")]
        rows = [["op", "slow place", "c-swap", *(f"{approach} ÷ c-swap" for approach in IN_PLACE)]]
        for op in ("read", "write"):
            rows.append([op, lay_badly(run, op), readable(median[("c-swap", op)]),
                         *(ratio_text(ratio(approach, rates.get((approach, op)), "c-swap", rates[("c-swap", op)]))
                           for approach in IN_PLACE)])
        lines += ["", f"  {setup(run)}; {heap['collector'] + region}; humongous: {humongous}"]
        lines += ["  " + line for line in aligned(rows, "<>>" + "<" * len(IN_PLACE))]
    return lines + ["", environment_line(runs)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run JSON files of bench/heap.sh")
    options = parser.parse_args(argv)
    print("\n".join(table(load_runs(options.runs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
