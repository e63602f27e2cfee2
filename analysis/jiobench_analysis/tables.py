"""The report's tables: bandwidth per point and every phase, as CSV (exact numbers) and Markdown
(numbers for reading). The HTML page shows the same cells as the Markdown."""
from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

import pandas as pd

from jiobench.model import stats
from jiobench.model.reduce import (OVERRUN_DEADLINE_SHARE, OVERRUN_FLOOR_S, OVERRUN_TRANSFERS, PROGRAMMED,
                                   SHORT_PHASE_S)
from jiobench.model.text import ratio_text

from .output import Output
from .points import RATIO_COLUMNS, STAT_COLUMNS
from .units import format_rate, format_rate_interval, format_size, format_verified

STONEWALL_MARK = "†"
STONEWALL_NOTE = (f"{STONEWALL_MARK} stonewalled: the phase stopped at its deadline; "
                  "the rate covers the data moved until then.")
SHORT_MARK = "‡"
SHORT_NOTE = (f"{SHORT_MARK} short: the slowest rank of some phases took under {SHORT_PHASE_S * 1000:.0f} ms, "
              "too short to time well; a larger block size (-b) or more segments (-s) make each phase longer.")
OVERRUN_MARK = "§"
OVERRUN_NOTE = (f"{OVERRUN_MARK} overran its deadline: the slowest rank of some phases ended more than "
                f"max({OVERRUN_FLOOR_S:g} s, {OVERRUN_DEADLINE_SHARE:.0%} of the deadline, {OVERRUN_TRANSFERS} of its own "
                "mean transfer times) past the deadline (its JVM stopped, starved or swapped out, or the file system "
                "hung; with fsync, a long flush): the deadline did not bound those phases, and the rate counts the pause.")
STATISTICS_NOTE = ("Statistics over the measured repetitions of every fork (warm-up repetitions never count). "
                   "The figure is the median, with its 95% interval from order statistics (distribution-free; "
                   f"none under {stats.MIN_REPS} repetitions); then the mean and ± the half width of its 95% "
                   "confidence interval (Student's t), min, max and population stddev as IOR prints them.")
# How a ratio's interval is read (jiobench.model.stats.verdict).
VERDICT_RULE = (f"same when the interval lies within ±{stats.SAME_WITHIN:.0%} of 1, else faster or slower when it "
                f"excludes 1, same when it holds 1 and spans at most {stats.UNCLEAR_SPAN:g}x, unclear otherwise or "
                f"with fewer than {stats.MIN_REPS} repetitions a side")
NOISY = "noisy"
NOISY_NOTE = (f"{NOISY}: the 95% interval of the median is wider than ±{stats.NOISY_SHARE:.0%} of it (or there "
              f"are fewer than {stats.MIN_REPS} repetitions): run more repetitions (-i, or -i auto), longer "
              "phases (-b), or on a quieter node.")


def format_parameter(name: str, value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name.endswith("_size") and isinstance(value, (int, float)):
        return format_size(value)
    if name == "calibrate_rate" and isinstance(value, (int, float)):
        return f"{format_size(value)}/s"
    return str(value)


def ratio_header(reference: Optional[str]) -> str:
    return f"ratio to {reference}" if reference else "ratio (no c-posix or raw-bytes run)"


def ratio_explanation(reference: Optional[str], parameters: Sequence[str]) -> str:
    if not reference:
        return "No ratio: the runs measured neither c-posix nor raw-bytes."
    same = ", ".join(["op", "ranks", *(p.replace("_", " ") for p in parameters)])
    fallback = "" if reference == "c-posix" else " (no c-posix in these runs)"
    programmed = " and ".join(sorted(PROGRAMMED))
    return (f"Ratio: median MiB/s over the median of {reference}{fallback} at the same {same}, its 95% interval "
            f"(BCa bootstrap) and verdict: {VERDICT_RULE}. {programmed.capitalize()}, which runs at a rate it is "
            "told, has none.")


class Cells(NamedTuple):
    """A table as text: what Markdown, HTML and the terminal show."""
    headers: list[str]
    rows: list[list[str]]
    numeric: frozenset[int]  # the columns holding numbers (right-aligned)


def _numeric_columns(headers: Sequence[str], text: Sequence[str]) -> frozenset[int]:
    return frozenset(i for i, h in enumerate(headers) if h not in text)


def overran(point) -> bool:
    """Whether a point (some of its measured phases) or a phase overran its deadline."""
    return bool(point.get("overran_deadline")) or point.get("overran_deadline_s") is not None


def marks(point) -> str:
    """The marks a rate carries: stonewalled, overran its deadline, short."""
    return "".join(f" {mark}" for mark, flag in ((STONEWALL_MARK, point.get("stonewalled")),
                                                 (OVERRUN_MARK, overran(point)), (SHORT_MARK, point.get("short")))
                   if flag)


def _half_width(point) -> str:
    low, high = point["ci95_low"], point["ci95_high"]
    if pd.isna(low) or pd.isna(high):
        return "-"
    return "± " + format_rate((high - low) / 2)


def median_interval_cell(point) -> str:
    """The median's 95% interval, and `noisy` where it is too wide or missing."""
    interval = format_rate_interval(point["median_ci95_low"], point["median_ci95_high"])
    return f"{interval} {NOISY}" if point["noisy"] else interval


def ratio_cell(row) -> str:
    """`0.77x [0.41, 1.02] same` (as the runner words it) from a row's RATIO_COLUMNS; `-` where
    the row has no ratio."""
    if pd.isna(row["ratio"]):
        return "-"
    low, high = row["ratio_ci95_low"], row["ratio_ci95_high"]
    return ratio_text({"value": row["ratio"], "ci95": None if pd.isna(low) else (low, high),
                       "verdict": row["ratio_verdict"]})


def bandwidth_cells(points: pd.DataFrame, parameters: Sequence[str], reference: Optional[str]) -> Cells:
    """Headers and text cells of the bandwidth table (MiB/s, as a reader wants them)."""
    headers = ["approach", "op", "ranks", *(p.replace("_", " ") for p in parameters), "reps",
               "median MiB/s", "95% interval", ratio_header(reference), "mean", "95% CI of mean", "min", "max",
               "stddev", "verified"]
    rows = []
    for _, point in points.iterrows():
        rows.append([point["approach"], point["op"], str(point["ranks"]),
                     *(format_parameter(p, point[p]) for p in parameters), str(point["reps"]),
                     format_rate(point["median"]) + marks(point), median_interval_cell(point), ratio_cell(point),
                     format_rate(point["mean"]), _half_width(point), format_rate(point["min"]),
                     format_rate(point["max"]), format_rate(point["stddev"]), format_verified(point["verified"])])
    return Cells(headers, rows, _numeric_columns(headers, ("approach", "op", "verified")))


def phase_cells(phases: pd.DataFrame, parameters: Sequence[str]) -> Cells:
    headers = ["run", "approach", "op", "ranks", *(p.replace("_", " ") for p in parameters), "fork", "rep",
               "MiB/s", "seconds", "bytes", "stonewalled", "verified"]
    rows = [[phase["run_id"], phase["approach"], phase["op"], str(phase["ranks"]),
             *(format_parameter(p, phase[p]) for p in parameters), str(phase["fork"]),
             f"{phase['rep']} warm-up" if phase["warmup"] else str(phase["rep"]),
             format_rate(phase["bw_mib_s"]) + marks(phase), f"{phase['seconds']:.4g}", format_size(phase["bytes"]),
             "yes" if phase["stonewalled"] else "no", format_verified(phase["verified"])]
            for _, phase in phases.iterrows()]
    return Cells(headers, rows, _numeric_columns(headers, ("run", "approach", "op", "rep", "stonewalled",
                                                           "verified")))


def markdown(cells: Cells) -> str:
    """A GitHub-flavoured Markdown table, numbers right-aligned."""
    def escape(cell: str) -> str:
        return cell.replace("|", "\\|")

    lines = ["| " + " | ".join(escape(h) for h in cells.headers) + " |",
             "|" + "|".join("---:" if i in cells.numeric else "---" for i in range(len(cells.headers))) + "|"]
    lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in cells.rows]
    return "\n".join(lines) + "\n"


def bandwidth_csv(points: pd.DataFrame, parameters: Sequence[str], reference: Optional[str]) -> pd.DataFrame:
    """The bandwidth table with exact numbers from the run files (MiB/s)."""
    table = points[["approach", "op", "ranks", *parameters, "reps", "forks"]].copy()
    for stat in STAT_COLUMNS:
        table[f"{stat}_mib_s"] = points[stat]
    table["noisy"] = points["noisy"]
    ratio = f"ratio_to_{reference}" if reference else "ratio"
    for column in RATIO_COLUMNS:
        table[column.replace("ratio", ratio, 1)] = points[column]
    for column in ("stonewalled", "overran_deadline", "short", "verified", "runs", "run_ids"):
        table[column] = points[column]
    return table


def write_tables(points: pd.DataFrame, phases: pd.DataFrame, parameters: Sequence[str],
                 reference: Optional[str], out: Output) -> list[Path]:
    """bandwidth.csv/.md and phases.csv/.md in `out`."""
    return [
        out.write("bandwidth.csv", bandwidth_csv(points, parameters, reference).to_csv(index=False)),
        out.write("bandwidth.md", "# Aggregate bandwidth (MiB/s)\n\n" + STATISTICS_NOTE + " "
                  + ratio_explanation(reference, parameters)
                  + (f" {STONEWALL_NOTE}" if points["stonewalled"].any() else "")
                  + (f" {OVERRUN_NOTE}" if points["overran_deadline"].any() else "")
                  + (f" {SHORT_NOTE}" if points["short"].any() else "") + "\n\n"
                  + markdown(bandwidth_cells(points, parameters, reference))
                  + (f"\n{NOISY_NOTE}\n" if points["noisy"].any() else "")),
        out.write("phases.csv", phases.to_csv(index=False)),
        out.write("phases.md", "# Phases and verification\n\nOne row per approach × op × fork × repetition of "
                  "each run, warm-up repetitions included and marked; verified: every rank checked its data (yes), "
                  "a rank found wrong data (NO), or nobody checked."
                  + (f" {OVERRUN_NOTE}" if phases["overran_deadline_s"].notna().any() else "") + "\n\n"
                  + markdown(phase_cells(phases, parameters))),
    ]
