"""Two sets of runs side by side (before/after a JDK upgrade, two filesystems, ...): the ratio
B/A of mean MiB/s at each point both measured, and whether the change exceeds the run-to-run
spread."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Optional, Sequence

import pandas as pd

from .points import bandwidth_points, records_frame, varied_parameters
from .tables import Cells, format_parameter, markdown
from .units import format_rate, format_ratio

SIGNIFICANCE = ("the 95% confidence intervals of the means of A and B do not overlap (runs older than "
                "confidence intervals: their min..max ranges; judged only with at least 2 repetitions on "
                "each side, otherwise '?')")
KEY = ("approach", "op", "ranks")
SIDE_STATS = ("reps", "mean", "min", "max", "stddev", "ci95_low", "ci95_high", "stonewalled")


def compare_parameters(runs_a: Sequence[dict], runs_b: Sequence[dict]) -> list[str]:
    """A point is (approach, op, ranks, transfer size) plus whatever varies inside A or inside
    B; what differs only between A and B is what is being compared."""
    names = ["transfer_size"]
    for runs in (runs_a, runs_b):
        names.extend(n for n in varied_parameters(runs) if n not in names)
    return names


def _spread(side: pd.Series) -> tuple[float, float]:
    """The confidence interval of the mean where the run files hold one, else min..max."""
    if side["ci95_low"] is not None and not pd.isna(side["ci95_low"]):
        return side["ci95_low"], side["ci95_high"]
    return side["min"], side["max"]


def significant(a: pd.Series, b: pd.Series) -> Optional[bool]:
    if a["reps"] < 2 or b["reps"] < 2:
        return None
    (a_low, a_high), (b_low, b_high) = _spread(a), _spread(b)
    return bool(a_high < b_low or b_high < a_low)


def compare(runs_a: Sequence[dict], runs_b: Sequence[dict]) -> tuple[pd.DataFrame, list[str]]:
    """One row per point of A or B: the statistics of both sides, `ratio` (B/A of the means)
    and `significant` (True, False, or None when it cannot be judged)."""
    parameters = compare_parameters(runs_a, runs_b)
    columns = [*KEY, *parameters]
    sides = [bandwidth_points(runs, parameters) for runs in (runs_a, runs_b)]
    indexed = [{tuple(row[c] for c in columns): row for _, row in side.iterrows()} for side in sides]
    keys = list(indexed[0]) + [k for k in indexed[1] if k not in indexed[0]]
    records = []
    for key in keys:
        a, b = indexed[0].get(key), indexed[1].get(key)
        record = dict(zip(columns, key))
        for name, side in (("a", a), ("b", b)):
            for stat in SIDE_STATS:
                record[f"{name}_{stat}"] = side[stat] if side is not None else None
        both = a is not None and b is not None
        record["ratio"] = b["mean"] / a["mean"] if both and a["mean"] else math.nan
        record["significant"] = significant(a, b) if both else None
        records.append(record)
    stats = [f"{side}_{stat}" for side in "ab" for stat in SIDE_STATS]
    kept = (*parameters, "a_reps", "a_stonewalled", "b_reps", "b_stonewalled", "significant")
    return records_frame(records, [*columns, *stats, "ratio", "significant"], keep_as_is=kept), parameters


def _verdict(row) -> str:
    if pd.isna(row["a_mean"]):
        return "only in B"
    if pd.isna(row["b_mean"]):
        return "only in A"
    return {True: "yes", False: "no"}.get(row["significant"], "?")


def matched(table: pd.DataFrame) -> pd.DataFrame:
    """The points both sides measured."""
    return table[table["a_mean"].notna() & table["b_mean"].notna()]


def compare_cells(table: pd.DataFrame, parameters: Sequence[str]) -> Cells:
    shown = [p for p in parameters if p == "transfer_size" or table[p].map(str).nunique() > 1]
    headers = [*KEY, *(p.replace("_size", "") for p in shown), "A MiB/s", "B MiB/s", "B/A", "sig."]
    rows = [[row["approach"], row["op"], str(row["ranks"]), *(format_parameter(p, row[p]) for p in shown),
             format_rate(row["a_mean"]) + (" †" if row["a_stonewalled"] else ""),
             format_rate(row["b_mean"]) + (" †" if row["b_stonewalled"] else ""),
             format_ratio(row["ratio"]), _verdict(row)] for _, row in table.iterrows()]
    return Cells(headers, rows, frozenset(range(2, len(headers) - 1)))


def write_compare(table: pd.DataFrame, parameters: Sequence[str], names: tuple[str, str], out_dir: Path) -> list[Path]:
    """compare.csv (exact numbers) and compare.md in `out_dir`."""
    csv, md = out_dir / "compare.csv", out_dir / "compare.md"
    table.to_csv(csv, index=False)
    md.write_text(f"# jiobench: B compared with A\n\nA: `{names[0]}`  \nB: `{names[1]}`\n\n"
                  f"B/A: ratio of mean MiB/s at the same point; sig.: yes when {SIGNIFICANCE}. † stonewalled.\n\n"
                  + markdown(compare_cells(table, parameters)), encoding="utf-8")
    return [csv, md]
