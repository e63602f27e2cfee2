"""Prints, from run files of one experiment through several launch paths, each approach's median
MiB/s over its measured repetitions per launch path, and its ratio to the first run's.

    python bench/launchers.py REFERENCE-RUN.json OTHER-RUN.json...
"""
from __future__ import annotations

import argparse
import json
import sys

from ratios import medians, readable, readable_ratio


def table(runs: list[dict]) -> list[str]:
    launchers = [run["environment"]["launcher"] for run in runs]
    reference = medians(runs[0])
    others = [medians(run) for run in runs[1:]]
    p = runs[0]["parameters"]
    flags = (" -e" if p["fsync"] else "") + (f" -D {p['deadline_s']:g}" if p["deadline_s"] else "")
    stonewalled = {(s["approach"], s["op"]) for run in runs for s in run["summary"] if s["stonewalled"]}
    lines = [f"{runs[0]['environment']['ranks']} ranks, -b {p['block_size'] >> 20}MiB -t {p['transfer_size'] >> 20}MiB"
             f"{flags}, {p['repetitions']} measured reps: median MiB/s per launch path, and ratios to {launchers[0]}",
             f"  {'approach':<22} {'op':<5}" + "".join(f" {name:>14}" for name in launchers)
             + "".join(f" {name + ' ÷':>16}" for name in launchers[1:])]
    for key, rate in reference.items():
        row = f"  {key[0]:<22} {key[1]:<5} {readable(rate):>14}"
        row += "".join(f" {readable(m[key]) if key in m else '-':>14}" for m in others)
        row += "".join(f" {readable_ratio(m[key] / rate) if key in m and rate else '-':>16}" for m in others)
        lines.append(row + ("  stonewalled" if key in stonewalled else ""))
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run JSON files, the reference first")
    options = parser.parse_args(argv)
    runs = []
    for path in options.runs:
        with open(path) as f:
            runs.append(json.load(f))
    print("\n".join(table(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
