"""Prints, from run files, each approach's median MiB/s over its repetitions and its ratios to
reference approaches measured in the same run: the figures a benchmark quotes.

    python bench/ratios.py --reference c-posix [--reference c-swap] [--target nio-bulk=0.95*c-swap] RUN.json...

A target says, for write and read, whether the approach's median reached that fraction of the
reference's median in the same run.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from jiobench.table import size_text


def load_runs(paths: Sequence[str]) -> list[dict]:
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    return runs


def medians(run: dict) -> dict[tuple[str, str], float]:
    """(approach, op) → the median the run file's summary holds over its measured repetitions."""
    return {(row["approach"], row["op"]): row["bw_mib_s"]["median"] for row in run["summary"]}


def readable(value: float) -> str:
    """Whole MiB/s for fast approaches, three significant digits for the kB/s ones."""
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def readable_ratio(value: float) -> str:
    return f"{value:.3f}" if value >= 0.01 else f"{value:.2e}"


def _distinct(values) -> str:
    """The values, each once, in the order they came; '-' for one a run file lacks."""
    seen = []
    for value in values:
        text = "-" if value is None else str(value)
        if text not in seen:
            seen.append(text)
    return " / ".join(seen)


def environment_line(runs: Sequence[dict]) -> str:
    """Where and when the runs were measured, as their run files say: the machine (host, CPU
    model, CPU count), the JDK, its collector and G1 region size, the date. Older run files lack
    some of these: '-' stands for what a file does not say."""
    envs = [run["environment"] for run in runs]
    cpus = [env.get("cpu") or {} for env in envs]
    heaps = [env["jvm"].get("heap") or {} for env in envs]
    days = sorted({run["started"][:10] for run in runs if run.get("started")}) or ["-"]
    regions = [size_text(heap["region_bytes"]) if heap.get("region_bytes") else None for heap in heaps]
    return (f"measured on {_distinct(', '.join(env['hosts']) for env in envs)}"
            f" ({_distinct(cpu.get('model') for cpu in cpus)}, {_distinct(cpu.get('count') for cpu in cpus)} CPUs),"
            f" JDK {_distinct(env['jvm']['version'] for env in envs)},"
            f" collector {_distinct(heap.get('collector') for heap in heaps)} (regions {_distinct(regions)}),"
            f" {days[0] if len(days) == 1 else days[0] + ' to ' + days[-1]}")


def view(parameters: dict) -> str:
    """Which of DESIGN.md's two views a run shows, and the file's byte order where it is not the default."""
    flags = [flag for flag, key in (("-e", "fsync"), ("--drop-cache", "drop_cache")) if parameters.get(key)]
    order = " --byte-order little" if parameters.get("byte_order") == "little" else ""
    return order + (" " + " ".join(flags) + " (storage view)" if flags else " (page-cache view)")


def table(run: dict, references: list[str]) -> list[str]:
    p = run["parameters"]
    median = medians(run)
    stonewalled = {(s["approach"], s["op"]) for s in run["summary"] if s["stonewalled"]}
    segments = f" -s {p['segments']}" if p.get("segments", 1) > 1 else ""
    lines = [f"{run['environment']['ranks']} rank(s), -b {p['block_size'] >> 20}MiB -t {p['transfer_size'] >> 20}MiB"
             f"{segments}{view(p)} on {run['environment']['filesystem']['type']}, {p['repetitions']} measured reps"
             f" x {p['forks']} fork(s) ({run['run_id']})",
             f"  {environment_line([run])}",
             f"  {'approach':<22} {'op':<5} {'median MiB/s':>13}" + "".join(f"{'÷ ' + r:>12}" for r in references)]
    for (approach, op), rate in median.items():
        ratios = ""
        for reference in references:
            base = median.get((reference, op))
            ratios += f"{readable_ratio(rate / base):>12}" if base else f"{'-':>12}"
        mark = "  stonewalled" if (approach, op) in stonewalled else ""
        lines.append(f"  {approach:<22} {op:<5} {readable(rate):>13}{ratios}{mark}")
    return lines


def target_ratios(run: dict, wanted: list[str]) -> list[tuple[str, str, float, str, float]]:
    """'APPROACH=FRACTION*REFERENCE' → (approach, op, fraction, reference, ratio of the medians) for
    each op the run measured both of."""
    median = medians(run)
    found = []
    for target in wanted:
        approach, goal = target.split("=")
        fraction, reference = goal.split("*")
        for op in ("write", "read"):
            if (approach, op) in median and (reference, op) in median:
                found.append((approach, op, float(fraction), reference, median[(approach, op)] / median[(reference, op)]))
    return found


def targets(run: dict, wanted: list[str]) -> list[str]:
    """One line per target and op: the ratio, and met or not."""
    return [f"  target {approach} {op} >= {fraction:g} x {reference}: {ratio:.3f} {'met' if ratio >= fraction else 'NOT met'}"
            for approach, op, fraction, reference, ratio in target_ratios(run, wanted)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", action="append",
                        help="approach the ratios divide by, once per column (default: c-posix)")
    parser.add_argument("--target", action="append", default=[],
                        help="APPROACH=FRACTION*REFERENCE, checked for write and read in each run")
    parser.add_argument("runs", nargs="+", help="run JSON files")
    options = parser.parse_args(argv)
    for run in load_runs(options.runs):
        print("\n".join(table(run, options.reference or ["c-posix"]) + targets(run, options.target)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
