"""Prints, from run files of one experiment through several launch paths, each approach's median
MiB/s per launch path, over the measured phases of all that path's runs (pooled by
`jiobench.reduce.summarize`, as the report pools runs), and its ratio to the first path's.

    python bench/launchers.py RUN.json...      (the launch path of the first run is the reference)
"""
from __future__ import annotations

import argparse
import json
import sys

from jiobench import reduce
from ratios import readable, readable_ratio


def pooled_medians(runs: list[dict]) -> dict[str, dict[tuple[str, str], float]]:
    """launch path → (approach, op) → median MiB/s over the measured phases of all its runs."""
    phases: dict[str, list[dict]] = {}
    for run in runs:
        phases.setdefault(run["environment"]["launcher"], []).extend(run["phases"])
    return {launcher: {(row["approach"], row["op"]): row["bw_mib_s"]["median"] for row in reduce.summarize(rows)}
            for launcher, rows in phases.items()}


def table(runs: list[dict]) -> list[str]:
    medians = pooled_medians(runs)
    launchers = list(medians)
    reference, others = medians[launchers[0]], [medians[name] for name in launchers[1:]]
    p = runs[0]["parameters"]
    flags = (" -e" if p["fsync"] else "") + (f" -D {p['deadline_s']:g}" if p["deadline_s"] else "")
    reps = {name: sum(1 for run in runs if run["environment"]["launcher"] == name) * p["repetitions"]
            for name in launchers}
    stonewalled = {(s["approach"], s["op"]) for run in runs for s in run["summary"] if s["stonewalled"]}
    lines = [f"{runs[0]['environment']['ranks']} ranks, -b {p['block_size'] >> 20}MiB -t {p['transfer_size'] >> 20}MiB"
             f"{flags}; median MiB/s over " + ", ".join(f"{reps[name]} measured reps of {name}" for name in launchers),
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
    parser.add_argument("runs", nargs="+", help="run JSON files")
    options = parser.parse_args(argv)
    runs = []
    for path in options.runs:
        with open(path) as f:
            runs.append(json.load(f))
    print("\n".join(table(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
