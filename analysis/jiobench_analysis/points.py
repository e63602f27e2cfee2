"""Aggregate bandwidth at each measured point, straight from the run files.

A point is (approach, op, ranks) plus the value of every parameter that differs between the
runs read together (transfer size, buffer size, ..., and the JVM). One run at a point: its
`summary` row as written. Several runs at a point: `jiobench.reduce.summarize` over their phases, the same
reduction the runner applied, never a formula of our own.
"""
from __future__ import annotations

import json
import math
from typing import Iterable, Optional, Sequence

import pandas as pd

from jiobench.reduce import summarize

REFERENCES = ("c-posix", "raw-bytes")
OPS = ("write", "read")

# Parameters that do not change what a phase measures; runs differing only in them pool together.
NOT_MEASURED = frozenset({"approaches", "file", "results", "write", "read", "repetitions", "warmup",
                          "verify", "seed", "keep", "overwrite"})

STAT_COLUMNS = ("mean", "min", "max", "stddev")
# Run files before schema 2 have no median or confidence interval: those points show none.
LATER_STAT_COLUMNS = ("median", "ci95_low", "ci95_high")


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


def reference_approach(approaches: Iterable[str]) -> Optional[str]:
    """`c-posix` when measured, else `raw-bytes`, else none."""
    approaches = set(approaches)
    return next((r for r in REFERENCES if r in approaches), None)


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


def bandwidth_points(runs: Sequence[dict], parameters: Sequence[str]) -> pd.DataFrame:
    """One row per point: approach, op, ranks, the given parameters, the statistics (reps, forks,
    mean, min, max, stddev, median, ci95_low, ci95_high in MiB/s, seconds_mean, bytes_mean,
    stonewalled, short, verified), the runs that
    contributed (`runs`, `run_ids`), and `ratio`: mean over the reference approach's mean at the
    same op, ranks and parameters (NaN where the reference was not measured; see
    `reference_approach`)."""
    groups: dict[tuple, list[tuple[dict, dict]]] = {}
    for run in runs:
        values = tuple(parameter_value(run, name) for name in parameters)
        for row in run["summary"]:
            key = (row["approach"], row["op"], row["ranks"]) + values
            groups.setdefault(key, []).append((run, row))
    order = approach_order(runs)
    reference = reference_approach(order)
    base: dict[tuple, float] = {}  # the reference's mean at (op, ranks, *values)
    records = []
    for key, members in groups.items():
        if len(members) == 1:
            stats = members[0][1]
        else:
            phases = [phase for run, row in members for phase in run["phases"]
                      if (phase["approach"], phase["op"], phase["ranks"]) == key[:3]]
            stats = summarize(phases)[0]
        if key[0] == reference:
            base[key[1:]] = stats["bw_mib_s"]["mean"]
        interval = stats["bw_mib_s"].get("ci95") or (None, None)
        records.append({
            **dict(zip(("approach", "op", "ranks", *parameters), key)),
            "reps": stats["reps"],
            "forks": stats.get("forks", 1),
            **{name: stats["bw_mib_s"][name] for name in STAT_COLUMNS},
            "median": stats["bw_mib_s"].get("median"),
            "ci95_low": interval[0],
            "ci95_high": interval[1],
            "seconds_mean": stats.get("seconds_mean"),
            "bytes_mean": stats.get("bytes_mean"),
            "stonewalled": bool(stats["stonewalled"]),
            "short": bool(stats.get("short", False)),
            "verified": stats["verified"],
            "runs": len(members),
            "run_ids": " ".join(run["run_id"] for run, _ in members),
            "key": key,
        })
    for record in records:
        reference_mean = base.get(record["key"][1:])
        record["ratio"] = record["mean"] / reference_mean if reference_mean else math.nan

    def sort_key(record):
        approach, op, ranks, *values = record["key"]
        return (order.index(approach), OPS.index(op), ranks, *(value_order(v) for v in values))
    records.sort(key=sort_key)
    columns = ["approach", "op", "ranks", *parameters, "reps", "forks", *STAT_COLUMNS, *LATER_STAT_COLUMNS, "ratio",
               "seconds_mean", "bytes_mean", "stonewalled", "short", "verified", "runs", "run_ids"]
    return records_frame(records, columns, keep_as_is=(*parameters, "verified"))


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
                "short": bool(phase.get("short", False)),
                "verified": phase["verified"],
            })
    columns = ["run_id", "approach", "op", "ranks", *parameters, "fork", "rep", "warmup", "bw_mib_s", "seconds",
               "first_done_s", "bytes", "stonewalled", "short", "verified"]
    return records_frame(records, columns, keep_as_is=(*parameters, "verified"))
