"""Prints, from run files, each approach's median MiB/s over its repetitions and its ratio to a
reference approach measured in the same run: the figures a benchmark quotes.

    python bench/ratios.py --reference c-posix RUN.json...
"""
from __future__ import annotations

import argparse
import json
import sys


def medians(run: dict) -> dict[tuple[str, str], float]:
    """(approach, op) → the median the run file's summary holds over its measured repetitions."""
    return {(row["approach"], row["op"]): row["bw_mib_s"]["median"] for row in run["summary"]}


def readable(value: float) -> str:
    """Whole MiB/s for fast approaches, three significant digits for the kB/s ones."""
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def readable_ratio(value: float) -> str:
    return f"{value:.3f}" if value >= 0.01 else f"{value:.2e}"


def view(parameters: dict) -> str:
    """Which of DESIGN.md's two views a run shows."""
    flags = [flag for flag, key in (("-e", "fsync"), ("--drop-cache", "drop_cache")) if parameters.get(key)]
    return " " + " ".join(flags) + " (storage view)" if flags else " (page-cache view)"


def table(run: dict, reference: str) -> list[str]:
    p = run["parameters"]
    median = medians(run)
    stonewalled = {(s["approach"], s["op"]) for s in run["summary"] if s["stonewalled"]}
    lines = [f"{run['environment']['ranks']} rank(s), -b {p['block_size'] >> 20}MiB -t {p['transfer_size'] >> 20}MiB"
             f"{view(p)}, {p['repetitions']} measured reps x {p['forks']} fork(s) ({run['run_id']})",
             f"  {'approach':<22} {'op':<5} {'median MiB/s':>13} {'÷ ' + reference:>12}"]
    for (approach, op), rate in median.items():
        base = median.get((reference, op))
        ratio = f"{readable_ratio(rate / base):>12}" if base else f"{'-':>12}"
        mark = "  stonewalled" if (approach, op) in stonewalled else ""
        lines.append(f"  {approach:<22} {op:<5} {readable(rate):>13} {ratio}{mark}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default="c-posix", help="approach the ratios divide by (default: c-posix)")
    parser.add_argument("runs", nargs="+", help="run JSON files")
    options = parser.parse_args(argv)
    for path in options.runs:
        with open(path) as f:
            print("\n".join(table(json.load(f), options.reference)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
