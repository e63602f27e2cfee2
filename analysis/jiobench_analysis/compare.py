"""Two sets of runs side by side (before/after a JDK upgrade, two filesystems, ...): at each point
both measured, B/A, the ratio of the median MiB/s, with its 95% interval and its verdict
(`jiobench.model.stats.ratio` over the two sides' measured repetitions)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import pandas as pd

from jiobench.model import stats

from .output import Output
from .points import RATIO_COLUMNS, STAT_COLUMNS, bandwidth_points, records_frame, varied_parameters
from .tables import NOISY, NOISY_NOTE, STONEWALL_MARK, VERDICT_RULE, Cells, format_parameter, markdown, ratio_cell
from .units import format_rate

KEY = ("approach", "op", "ranks")
SIDE_STATS = ("reps", *STAT_COLUMNS, "noisy", "stonewalled")
EXPLANATION = (f"B/A: ratio of the median MiB/s at the same point, its 95% interval (BCa bootstrap) and verdict: "
               f"{VERDICT_RULE}.")


def compare_parameters(runs_a: Sequence[dict], runs_b: Sequence[dict]) -> list[str]:
    """A point is (approach, op, ranks, transfer size) plus whatever varies inside A or inside
    B; what differs only between A and B is what is being compared."""
    names = ["transfer_size"]
    for runs in (runs_a, runs_b):
        names.extend(n for n in varied_parameters(runs) if n not in names)
    return names


def compare(runs_a: Sequence[dict], runs_b: Sequence[dict]) -> tuple[pd.DataFrame, list[str]]:
    """One row per point of A or B: the statistics of both sides (`a_...`, `b_...`) and B/A
    (RATIO_COLUMNS: NaN and None where one side did not measure the point)."""
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
        found = stats.ratio(b["rates"], a["rates"]) if a is not None and b is not None else None
        low, high = found.ci95 if found and found.ci95 else (math.nan, math.nan)
        record.update(ratio=found.value if found else math.nan, ratio_ci95_low=low, ratio_ci95_high=high,
                      ratio_verdict=found.verdict if found else None)
        records.append(record)
    sided = [f"{side}_{stat}" for side in "ab" for stat in SIDE_STATS]
    kept = (*parameters, "a_reps", "a_noisy", "a_stonewalled", "b_reps", "b_noisy", "b_stonewalled", "ratio_verdict")
    return records_frame(records, [*columns, *sided, *RATIO_COLUMNS], keep_as_is=kept), parameters


def matched(table: pd.DataFrame) -> pd.DataFrame:
    """The points both sides measured."""
    return table[table["a_median"].notna() & table["b_median"].notna()]


def _shown(table: pd.DataFrame, parameters: Sequence[str]) -> list[str]:
    """The parameters that differ between the table's points: a column each."""
    return [p for p in parameters if table[p].map(str).nunique() > 1]


def shared_parameters(table: pd.DataFrame, parameters: Sequence[str]) -> str:
    """What every point of the table shares, in words (`transfer size 1 MiB`), said once above it."""
    shown = _shown(table, parameters)
    return ", ".join(f"{p.replace('_', ' ')} {format_parameter(p, table[p].iloc[0])}"
                     for p in parameters if p not in shown)


def _ratio(row) -> str:
    if pd.isna(row["a_median"]):
        return "only in B"
    if pd.isna(row["b_median"]):
        return "only in A"
    return ratio_cell(row)


def _rate(row, side: str) -> str:
    mark = f" {STONEWALL_MARK}" if row[f"{side}_stonewalled"] else ""
    return format_rate(row[f"{side}_median"]) + mark


def _either(table: pd.DataFrame, flag: str) -> bool:
    return bool(table[f"a_{flag}"].eq(True).any() or table[f"b_{flag}"].eq(True).any())


def compare_cells(table: pd.DataFrame, parameters: Sequence[str]) -> Cells:
    """A MiB/s and B MiB/s (medians), B/A with its interval and verdict, and which side is noisy
    (a column only where one is: the row needs the room)."""
    shown = _shown(table, parameters)
    noisy = [NOISY] if _either(table, "noisy") else []
    headers = [*KEY, *(p.replace("_size", "") for p in shown), "A MiB/s", "B MiB/s", "B/A", *noisy]
    rows = [[row["approach"], row["op"], str(row["ranks"]), *(format_parameter(p, row[p]) for p in shown),
             _rate(row, "a"), _rate(row, "b"), _ratio(row),
             *([", ".join(side.upper() for side in "ab" if row[f"{side}_noisy"])] if noisy else [])]
            for _, row in table.iterrows()]
    return Cells(headers, rows, frozenset(range(2, len(headers) - 1 - len(noisy))))


def notes(table: pd.DataFrame) -> str:
    """What the columns mean, and what to do about noisy sides."""
    return (EXPLANATION
            + (f" {STONEWALL_MARK} stonewalled: the phase stopped at its deadline." if _either(table, "stonewalled")
               else "")
            + (f" {NOISY_NOTE}" if _either(table, "noisy") else ""))


def write_compare(table: pd.DataFrame, parameters: Sequence[str], names: tuple[str, str], out: Output) -> list[Path]:
    """compare.csv (exact numbers) and compare.md in `out`."""
    shared = shared_parameters(table, parameters)
    return [out.write("compare.csv", table.to_csv(index=False)),
            out.write("compare.md", f"# jiobench: B compared with A\n\nA: `{names[0]}`  \nB: `{names[1]}`"
                      + (f"  \nAt every point: {shared}" if shared else "") + f"\n\n{notes(table)}\n\n"
                      + markdown(compare_cells(table, parameters)))]
