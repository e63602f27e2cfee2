"""Aggregate bandwidth at each measured point, straight from the run files.

A point is (approach, op, ranks) plus the value of every parameter that differs between the
runs read together (transfer size, buffer size, ..., and the JVM). One run at a point: its
`summary` row as written, with what an older schema lacks (the median's interval, `noisy`)
computed from its phases. Several runs at a point: `jiobench.model.reduce.summarize` over their phases.
Ratios to the reference: `jiobench.model.reduce.ratio_to` over the points' measured repetitions. The
same reduction the runner applied, never a formula of our own.
"""
from __future__ import annotations

import json
import math
from typing import Sequence

import pandas as pd

from jiobench.model.reduce import measured_rates, ratio_to, reference_approach, summarize

OPS = ("write", "read")

# Parameters that do not change what a phase measures, or that follow from others and the ranks'
# placement (read_block_of, from -C, -Q and the hosts); runs differing only in them pool together.
NOT_MEASURED = frozenset({"approaches", "file", "results", "write", "read", "repetitions", "ci_target",
                          "time_budget_s", "max_reps", "warmup", "verify", "seed", "keep", "overwrite",
                          "read_block_of"})

# The median and its 95% interval are the figure; the others are as IOR prints them, with the 95%
# confidence interval of the mean (ci95).
STAT_COLUMNS = ("median", "median_ci95_low", "median_ci95_high", "mean", "ci95_low", "ci95_high", "min", "max",
                "stddev")
RATIO_COLUMNS = ("ratio", "ratio_ci95_low", "ratio_ci95_high", "ratio_verdict")


# What the run files' environment says of the JVM and the file system: runs on two JDKs
# (jiobench sweep --vary java=...), or on ext4 and GlusterFS, with the same parameters measured two
# different things.
ENVIRONMENT_DIMENSIONS = {
    "jvm": lambda environment: (environment.get("jvm") or {}).get("version"),
    "jvm_args": lambda environment: " ".join((environment.get("jvm") or {}).get("args") or []) or None,
    "filesystem": lambda environment: (environment.get("filesystem") or {}).get("type"),
    "launcher": lambda environment: environment.get("launcher"),
}


def parameter_value(run: dict, name: str):
    """A parameter (or a dimension of the environment) as a hashable value (lists and objects as
    their JSON text)."""
    if name in ENVIRONMENT_DIMENSIONS:
        return ENVIRONMENT_DIMENSIONS[name](run["environment"])
    value = run["parameters"].get(name)
    return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value


def varied_parameters(runs: Sequence[dict]) -> list[str]:
    """The measurement parameters, and the JVM, whose value is not the same in all runs, in the
    runs' order."""
    names: list[str] = []
    for run in runs:
        names.extend(n for n in run["parameters"] if n not in NOT_MEASURED and n not in names)
    names.extend(ENVIRONMENT_DIMENSIONS)
    return [n for n in names if len({parameter_value(run, n) for run in runs}) > 1]


def approach_order(runs: Sequence[dict]) -> list[str]:
    """Approaches in the order the runs name them, the reference (if any) first."""
    seen: list[str] = []
    for run in runs:
        seen.extend(r["approach"] for r in run["summary"] if r["approach"] not in seen)
    reference = reference_approach(seen)
    return ([reference] if reference else []) + [a for a in seen if a != reference]


def value_order(value):
    """Sorts numbers, strings and None (last) in one column without comparing across types."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (2, 0, "")
    if isinstance(value, (int, float)):
        return (0, value, "")
    return (1, 0, str(value))


def records_frame(records: list[dict], columns: Sequence[str], keep_as_is: Sequence[str]) -> pd.DataFrame:
    """A DataFrame whose `keep_as_is` columns hold the values unchanged (None stays None,
    integers stay integers, True/False/None stay themselves) so that they compare exactly."""
    return pd.DataFrame({
        column: pd.Series([r[column] for r in records], dtype=object if column in keep_as_is else None)
        for column in columns
    })


def _interval(pair) -> tuple[float, float]:
    """[low, high] from a run file; NaN for none (too few repetitions)."""
    return (pair[0], pair[1]) if pair else (math.nan, math.nan)


def point_statistics(members: Sequence[tuple[dict, dict]]) -> dict:
    """The statistics of a point from its (run, summary row) pairs: the one run's row as written,
    completed from its phases where its schema lacks a key; several runs' phases pooled."""
    approach, op, ranks = (members[0][1][key] for key in ("approach", "op", "ranks"))
    pooled = summarize(phase for run, _ in members for phase in run["phases"]
                       if (phase["approach"], phase["op"], phase["ranks"]) == (approach, op, ranks))[0]
    if len(members) > 1:
        return pooled
    row = members[0][1]
    return {**pooled, **row, "bw_mib_s": {**pooled["bw_mib_s"], **row["bw_mib_s"]}}


def bandwidth_points(runs: Sequence[dict], parameters: Sequence[str]) -> pd.DataFrame:
    """One row per point: approach, op, ranks, the given parameters, the statistics in MiB/s
    (STAT_COLUMNS: the median and its 95% interval, then mean and its confidence interval, min,
    max, stddev), reps, forks, `noisy`, seconds_mean, bytes_mean, stonewalled, `overran_deadline` (how
    many of its measured phases overran their deadline; 0 from run files before it was), short, verified,
    the runs that contributed (`runs`, `run_ids`), `rates` (the measured repetitions' MiB/s), and
    the ratio to the reference approach at the same op, ranks and parameters (RATIO_COLUMNS: the
    ratio of the medians, its 95% interval and verdict; NaN and None for the reference itself, a
    programmed approach, or where the reference was not measured)."""
    groups: dict[tuple, list[tuple[dict, dict]]] = {}
    rates: dict[tuple, list[float]] = {}
    for run in runs:
        values = tuple(parameter_value(run, name) for name in parameters)
        measured = measured_rates(run["phases"])
        for row in run["summary"]:
            key = (row["approach"], row["op"], row["ranks"]) + values
            groups.setdefault(key, []).append((run, row))
            rates.setdefault(key, []).extend(measured.get(key[:3], []))
    order = approach_order(runs)
    reference = reference_approach(order)
    records = []
    for key, members in groups.items():
        stats = point_statistics(members)
        ratio = ratio_to(key[0], reference, rates[key], rates.get((reference, *key[1:]))) or {}
        median_low, median_high = _interval(stats["median_ci95"])
        mean_low, mean_high = _interval(stats["bw_mib_s"].get("ci95"))
        ratio_low, ratio_high = _interval(ratio.get("ci95"))
        records.append({
            **dict(zip(("approach", "op", "ranks", *parameters), key)),
            "reps": stats["reps"],
            "forks": stats.get("forks", 1),
            **{name: stats["bw_mib_s"][name] for name in ("median", "mean", "min", "max", "stddev")},
            "median_ci95_low": median_low,
            "median_ci95_high": median_high,
            "ci95_low": mean_low,
            "ci95_high": mean_high,
            "noisy": bool(stats["noisy"]),
            "ratio": ratio.get("value", math.nan),
            "ratio_ci95_low": ratio_low,
            "ratio_ci95_high": ratio_high,
            "ratio_verdict": ratio.get("verdict"),
            "seconds_mean": stats.get("seconds_mean"),
            "bytes_mean": stats.get("bytes_mean"),
            "stonewalled": bool(stats["stonewalled"]),
            "overran_deadline": stats.get("overran_deadline", 0),
            "short": bool(stats.get("short", False)),
            "verified": stats["verified"],
            "runs": len(members),
            "run_ids": " ".join(run["run_id"] for run, _ in members),
            "rates": tuple(rates[key]),
            "key": key,
        })

    def sort_key(record):
        approach, op, ranks, *values = record["key"]
        return (order.index(approach), OPS.index(op), ranks, *(value_order(v) for v in values))
    records.sort(key=sort_key)
    columns = ["approach", "op", "ranks", *parameters, "reps", "forks", *STAT_COLUMNS, "noisy", *RATIO_COLUMNS,
               "seconds_mean", "bytes_mean", "stonewalled", "overran_deadline", "short", "verified", "runs", "run_ids",
               "rates"]
    return records_frame(records, columns, keep_as_is=(*parameters, "verified", "ratio_verdict", "rates"))


def phase_rows(runs: Sequence[dict], parameters: Sequence[str]) -> pd.DataFrame:
    """Every phase of every run as written (warm-up ones too, marked), with the run id and the
    given parameters."""
    records = []
    for run in runs:
        values = {name: parameter_value(run, name) for name in parameters}
        for phase in run["phases"]:
            records.append({
                "run_id": run["run_id"],
                "approach": phase["approach"],
                "op": phase["op"],
                "ranks": phase["ranks"],
                **values,
                "fork": phase.get("fork", 0),
                "rep": phase["rep"],
                "warmup": bool(phase.get("warmup", False)),
                "bw_mib_s": phase["bw_mib_s"],
                "seconds": phase["seconds"],
                "first_done_s": phase.get("first_done_s"),
                "bytes": phase["bytes"],
                "stonewalled": bool(phase["stonewalled"]),
                "overran_deadline_s": phase.get("overran_deadline_s"),
                "short": bool(phase.get("short", False)),
                "verified": phase["verified"],
            })
    columns = ["run_id", "approach", "op", "ranks", *parameters, "fork", "rep", "warmup", "bw_mib_s", "seconds",
               "first_done_s", "bytes", "stonewalled", "overran_deadline_s", "short", "verified"]
    return records_frame(records, columns, keep_as_is=(*parameters, "overran_deadline_s", "verified"))
