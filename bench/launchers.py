"""Prints, from run files of one experiment through several launch paths (or on several JVMs, or
file systems), each approach's median MiB/s per launch path, over the measured phases of all that
path's runs (pooled by `jiobench.reduce.summarize`, as the report pools runs), and its ratio to
the first path's; one table per rank count and view.

    python bench/launchers.py [--by launcher|jvm|filesystem] RUN.json...   (the first run's is the reference)
"""
from __future__ import annotations

import argparse
import sys

from jiobench import reduce
from ratios import environment_line, load_runs, readable, readable_ratio, view

# What tells the runs of one experiment apart: the launch path, or the JVM's version.
GROUPS = {"launcher": lambda run: run["environment"]["launcher"],
          "jvm": lambda run: run["environment"]["jvm"]["version"],
          "filesystem": lambda run: run["environment"]["filesystem"]["type"]}


def pooled_medians(runs: list[dict], group) -> dict[str, dict[tuple[str, str], float]]:
    """group (launch path or JVM) → (approach, op) → median MiB/s over the measured phases of all its runs."""
    phases: dict[str, list[dict]] = {}
    for run in runs:
        phases.setdefault(group(run), []).extend(run["phases"])
    return {name: {(row["approach"], row["op"]): row["bw_mib_s"]["median"] for row in reduce.summarize(rows)}
            for name, rows in phases.items()}


def table(runs: list[dict], group=GROUPS["launcher"]) -> list[str]:
    medians = pooled_medians(runs, group)
    names = list(medians)
    reference, others = medians[names[0]], [medians[name] for name in names[1:]]
    width = max(14, *(len(name) for name in names))
    p = runs[0]["parameters"]
    deadline = f" -D {p['deadline_s']:g}" if p["deadline_s"] else ""
    reps = {name: sum(1 for run in runs if group(run) == name) * p["repetitions"] * max(p["forks"], 1)
            for name in names}
    stonewalled = {(s["approach"], s["op"]) for run in runs for s in run["summary"] if s["stonewalled"]}
    lines = [f"{runs[0]['environment']['ranks']} ranks, -b {p['block_size'] >> 20}MiB -t {p['transfer_size'] >> 20}MiB"
             f"{deadline}{view(p)}; median MiB/s over " + ", ".join(f"{reps[name]} measured reps of {name}" for name in names),
             f"  {environment_line(runs)}",
             f"  {'approach':<22} {'op':<5}" + "".join(f" {name:>{width}}" for name in names)
             + "".join(f" {name + ' ÷':>{width + 2}}" for name in names[1:])]
    for key, rate in reference.items():
        row = f"  {key[0]:<22} {key[1]:<5} {readable(rate):>{width}}"
        row += "".join(f" {readable(m[key]) if key in m else '-':>{width}}" for m in others)
        row += "".join(f" {readable_ratio(m[key] / rate) if key in m and rate else '-':>{width + 2}}" for m in others)
        lines.append(row + ("  stonewalled" if key in stonewalled else ""))
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--by", choices=sorted(GROUPS), default="launcher",
                        help="what the columns compare (default: launcher)")
    parser.add_argument("runs", nargs="+", help="run JSON files")
    options = parser.parse_args(argv)
    points: dict[tuple, list[dict]] = {}
    for run in load_runs(options.runs):
        points.setdefault((run["environment"]["ranks"], view(run["parameters"])), []).append(run)
    print("\n\n".join("\n".join(table(runs, GROUPS[options.by])) for runs in points.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
