"""Prints, from run files of one experiment through several launch paths (or on several JVMs, file
systems, stripe counts or builds), each approach's median MiB/s per launch path, over the measured phases of all that
path's runs (pooled by `jiobench.model.reduce.summarize`, as the report pools runs), and its ratio to
the first path's with the ratio's 95% interval and verdict over the same pooled phases
(bench/ratios.py); one table per rank count and view. Calibrate gets no ratio: its medians are the
rate it was told, which is the check.

    python bench/launchers.py [--by launcher|jvm|filesystem|stripes|results] RUN.json...
                                                                  (the first run's is the reference)
"""
from __future__ import annotations

import argparse
import os
import sys

from jiobench.model import reduce
from jiobench.model.text import ratio_text
from ratios import aligned, environment_line, load_runs, measured_reps, ratio, readable, view

# What tells the runs of one experiment apart: the launch path, the JVM's version, the file
# system, how many objects a stripe of the file spans (CephFS's layout, as the run read it back),
# or the directory the run file went to (bench/builds.sh gives each build's runs their own).
GROUPS = {"launcher": lambda run: run["environment"]["launcher"],
          "jvm": lambda run: run["environment"]["jvm"]["version"],
          "filesystem": lambda run: run["environment"]["filesystem"]["type"],
          "stripes": lambda run: f"{stripe_count(run)} stripes",
          "results": lambda run: os.path.basename(os.path.normpath(run["parameters"]["results"]))}


def stripe_count(run: dict) -> int:
    layout = run["environment"]["filesystem"].get("layout") or {}
    if "stripe_count" not in layout:
        print(f"bench/launchers.py: {run['run_id']}: its file system records no stripes (--by stripes "
              "compares runs on CephFS)", file=sys.stderr)
        sys.exit(2)
    return layout["stripe_count"]


def pooled(runs: list[dict], group) -> dict[str, list[dict]]:
    """group (launch path or JVM) → the phases of all its runs."""
    phases: dict[str, list[dict]] = {}
    for run in runs:
        phases.setdefault(group(run), []).extend(run["phases"])
    return phases


def table(runs: list[dict], group=GROUPS["launcher"]) -> list[str]:
    phases = pooled(runs, group)
    rows_of = {name: reduce.summarize(members) for name, members in phases.items()}
    medians = {name: {(row["approach"], row["op"]): row["bw_mib_s"]["median"] for row in rows}
               for name, rows in rows_of.items()}
    rates = {name: {(approach, op): values for (approach, op, _), values in reduce.measured_rates(members).items()}
             for name, members in phases.items()}
    names = list(medians)
    first, others = names[0], names[1:]
    p = runs[0]["parameters"]
    deadline = f" -D {p['deadline_s']:g}" if p["deadline_s"] else ""
    automatic = {name: any(run["parameters"]["repetitions"] == "auto" for run in runs if group(run) == name)
                 for name in names}
    stonewalled = {(s["approach"], s["op"]) for run in runs for s in run["summary"] if s["stonewalled"]}
    rows = [["approach", "op", *names, *(f"{name} ÷" for name in others)]]
    for key, rate in medians[first].items():
        rows.append([*key, readable(rate), *(readable(medians[name][key]) if key in medians[name] else "-"
                                             for name in others),
                     *(ratio_text(ratio(key[0], rates[name].get(key), key[0], rates[first][key])) for name in others),
                     "stonewalled" if key in stonewalled else ""])
    return [f"{runs[0]['environment']['ranks']} ranks, -b {p['block_size'] >> 20}MiB -t {p['transfer_size'] >> 20}MiB"
            f"{deadline}{view(p)}; median MiB/s, and ratios to {first}",
            "  over " + ", ".join(f"{measured_reps(rows_of[name], automatic[name])} of {name}" for name in names),
            f"  {environment_line(runs)}"] + aligned(rows, "<<" + ">" * len(names) + "<" * len(others) + "<")


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
