"""Prints, from run files, each approach's median MiB/s over its repetitions and its ratios to
reference approaches measured in the same run: the figures a benchmark quotes.

    python bench/ratios.py --reference c-posix [--reference c-swap] [--target nio-bulk=0.95*c-swap] RUN.json...

A ratio is the ratio of the two medians with its 95% interval and verdict (jiobench.model.stats.ratio over
the measured phases: `0.96x [0.91, 1.02] same`); with fewer than 6 measured repetitions on a side
there is no interval and the verdict is unclear (`0.96x (n<6) unclear`). Calibrate, whose rate is
the one it is told, gets no ratio.

A target (APPROACH=FRACTION*REFERENCE) is judged, for write and read apart, by the ratio's
interval, not its median alone, since a median a little past the fraction says nothing where the
repetitions spread wider than that: `met` where the whole interval lies at or above the fraction,
`missed` where it lies below, `within noise` where it holds the fraction, and `unclear` without an
interval.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from jiobench.model import reduce, stats
from jiobench.model.text import ratio_text, size_text

MET, MISSED, WITHIN_NOISE = "met", "missed", "within noise"


def load_runs(paths: Sequence[str]) -> list[dict]:
    """The run files, or one line and exit 2 where one cannot be read."""
    runs = []
    for path in paths:
        try:
            with open(path) as f:
                runs.append(json.load(f))
        except (OSError, ValueError) as problem:
            print(f"{sys.argv[0]}: {path}: {getattr(problem, 'strerror', None) or problem}", file=sys.stderr)
            sys.exit(2)
    return runs


def medians(run: dict) -> dict[tuple[str, str], float]:
    """(approach, op) → the median the run file's summary holds over its measured repetitions."""
    return {(row["approach"], row["op"]): row["bw_mib_s"]["median"] for row in run["summary"]}


def readable(value: float) -> str:
    """Whole MiB/s for fast approaches, three significant digits for the kB/s ones."""
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def run_rates(run: dict) -> dict[tuple[str, str], list[float]]:
    """(approach, op) → the MiB/s of the run's measured phases (a run has one rank count)."""
    return {(approach, op): rates for (approach, op, _), rates in reduce.measured_rates(run["phases"]).items()}


def ratio(approach: str, rates, reference: str, reference_rates) -> Optional[dict]:
    """The ratio of the approach's measured rates to the reference's (stats.ratio: medians, 95%
    interval, verdict), as a run file holds a row's ratio; None where a side was not measured or is
    calibrate, whose rate is the one it is told."""
    if not rates or not reference_rates or {approach, reference} & reduce.PROGRAMMED:
        return None
    found = stats.ratio(rates, reference_rates)
    return found.as_json(reference) if found else None


def aligned(rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """The rows as columns as wide as their widest cell, each line indented by two spaces: column i
    flush left where align[i] is '<' (names, ratios), flush right where it is '>' (figures)."""
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(len(align))]
    return ["  " + "  ".join(cell.ljust(widths[i]) if align[i] == "<" else cell.rjust(widths[i])
                             for i, cell in enumerate(row)).rstrip() for row in rows]


def _distinct(values) -> str:
    """The values, each once, in the order they came; '-' for one a run file lacks."""
    seen = []
    for value in values:
        text = "-" if value is None else str(value)
        if text not in seen:
            seen.append(text)
    return " / ".join(seen)


def measured_reps(rows: Sequence[dict], automatic: bool) -> str:
    """How many measured repetitions summary rows hold, all forks together: `6 measured reps`, or
    under -i auto, which measures each approach until its interval is tight, `6 to 14`."""
    counts = sorted({row["reps"] for row in rows})
    return (f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}") + " measured reps" \
        + (" (-i auto)" if automatic else "")


def runs_reps(runs: Sequence[dict]) -> str:
    """measured_reps over every row of the runs."""
    return measured_reps([row for run in runs for row in run["summary"]],
                         any(run["parameters"]["repetitions"] == "auto" for run in runs))


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
    """Which of the two views (docs/approaches.md, Honest numbers) a run shows, and the file's byte
    order where it is not the default."""
    flags = [flag for flag, key in (("-e", "fsync"), ("--drop-cache", "drop_cache")) if parameters.get(key)]
    order = " --byte-order little" if parameters.get("byte_order") == "little" else ""
    return order + (" " + " ".join(flags) + " (storage view)" if flags else " (page-cache view)")


def table(run: dict, references: list[str]) -> list[str]:
    p = run["parameters"]
    median = medians(run)
    rates = run_rates(run)
    stonewalled = {(s["approach"], s["op"]) for s in run["summary"] if s["stonewalled"]}
    segments = f" -s {p['segments']}" if p.get("segments", 1) > 1 else ""
    rows = [["approach", "op", "median MiB/s", *(f"÷ {r}" for r in references)]]
    for (approach, op), rate in median.items():
        rows.append([approach, op, readable(rate),
                     *(ratio_text(None if approach == reference else
                                  ratio(approach, rates.get((approach, op)), reference, rates.get((reference, op))))
                       for reference in references),
                     "stonewalled" if (approach, op) in stonewalled else ""])
    return [f"{run['environment']['ranks']} rank(s), -b {p['block_size'] >> 20}MiB -t {p['transfer_size'] >> 20}MiB"
            f"{segments}{view(p)} on {run['environment']['filesystem']['type']}, {runs_reps([run])}"
            f" in {max(p['forks'], 1)} fork(s) ({run['run_id']})",
            f"  {environment_line([run])}"] + aligned(rows, "<<>" + "<" * len(references) + "<")


def target_verdict(found: dict, fraction: float) -> str:
    """Met, missed or within noise by where the ratio's 95% interval lies against the target's
    fraction (the rule this module's docstring gives); unclear without an interval."""
    if not found["ci95"]:
        return stats.UNCLEAR
    low, high = found["ci95"]
    if low >= fraction:
        return MET
    return MISSED if high < fraction else WITHIN_NOISE


def target_ratios(run: dict, wanted: list[str]) -> list[tuple[str, str, float, str, dict]]:
    """'APPROACH=FRACTION*REFERENCE' → (approach, op, fraction, reference, ratio) for each op the run
    measured both of."""
    rates = run_rates(run)
    found = []
    for target in wanted:
        approach, goal = target.split("=")
        fraction, reference = goal.split("*")
        for op in ("write", "read"):
            measured = ratio(approach, rates.get((approach, op)), reference, rates.get((reference, op)))
            if measured:
                found.append((approach, op, float(fraction), reference, measured))
    return found


def targets(run: dict, wanted: list[str]) -> list[str]:
    """One line per target and op: the ratio and what its interval says of the target."""
    return [f"  target {approach} {op} >= {fraction:g} x {reference}: {target_verdict(found, fraction)}"
            f" ({ratio_text(found)})"
            for approach, op, fraction, reference, found in target_ratios(run, wanted)]


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
