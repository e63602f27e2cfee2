"""Prints, from run files of bench/heap.sh, one row per run: its JVM and heap set-up, whether the
transfer array was humongous, and c-swap's median MiB/s beside each in-place approach's ratio to
it, for reads and for writes.

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
    return f"JDK {jvm['version'].split('+')[0]}, {options}, -t {run['parameters']['transfer_size'] >> 10}KiB"


def table(runs: list[dict]) -> list[str]:
    columns = "".join(f"{'÷ ' + approach:>13}" for approach in IN_PLACE)
    lines = []
    for op in ("read", "write"):
        lines += [f"{op}: c-swap's median MiB/s, and each in-place approach's median ÷ c-swap's, in one run",
                  f"  {'set-up':<46} {'heap':<24} {'humongous':<9} {'c-swap':>8}{columns}"]
        for run in runs:
            median = medians(run)
            heap = run["environment"]["jvm"]["heap"]
            region = f", regions {heap['region_bytes'] >> 20}MiB" if heap.get("region_bytes") else ""
            humongous = {True: "yes", False: "no", None: "-"}[heap.get("transfer_array_humongous")]
            base = median[("c-swap", op)]
            ratios = "".join(f"{median[(a, op)] / base:>13.2f}" if (a, op) in median else f"{'-':>13}"
                             for a in IN_PLACE)
            lines.append(f"  {setup(run):<46} {heap['collector'] + region:<24} {humongous:<9} "
                         f"{readable(base):>8}{ratios}")
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
