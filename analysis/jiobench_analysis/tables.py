"""The report's tables: bandwidth per point and every phase, as CSV (exact numbers) and Markdown
(numbers for reading). The HTML page shows the same cells as the Markdown."""
from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

import pandas as pd

from jiobench.reduce import SHORT_PHASE_S

from .units import format_rate, format_ratio, format_size, format_verified

STONEWALL_MARK = "†"
STONEWALL_NOTE = (f"{STONEWALL_MARK} stonewalled: the phase stopped at its deadline; "
                  "the rate covers the data moved until then.")
SHORT_MARK = "‡"
SHORT_NOTE = (f"{SHORT_MARK} short: the slowest rank of some phases took under {SHORT_PHASE_S * 1000:.0f} ms, "
              "too short to time well; a larger block size (-b) or more segments (-s) make each phase longer.")
STATISTICS_NOTE = ("Statistics over the measured repetitions of every fork (warm-up repetitions never count): "
                   "mean, min, max, population stddev as IOR prints them, the median, and ± the half width "
                   "of the 95% confidence interval of the mean (Student's t).")


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
    return f"Ratio: mean MiB/s over the mean of {reference}{fallback} at the same {same}."


class Cells(NamedTuple):
    """A table as text: what Markdown, HTML and the terminal show."""
    headers: list[str]
    rows: list[list[str]]
    numeric: frozenset[int]  # the columns holding numbers (right-aligned)


def _numeric_columns(headers: Sequence[str], text: Sequence[str]) -> frozenset[int]:
    return frozenset(i for i, h in enumerate(headers) if h not in text)


def marks(point) -> str:
    """The marks a rate carries: stonewalled, short."""
    return "".join(f" {mark}" for mark, flag in ((STONEWALL_MARK, "stonewalled"), (SHORT_MARK, "short"))
                   if point.get(flag))


def _half_width(point) -> str:
    low, high = point["ci95_low"], point["ci95_high"]
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return "-"
    return "± " + format_rate((high - low) / 2)


def bandwidth_cells(points: pd.DataFrame, parameters: Sequence[str], reference: Optional[str]) -> Cells:
    """Headers and text cells of the bandwidth table (MiB/s, as a reader wants them)."""
    headers = ["approach", "op", "ranks", *(p.replace("_", " ") for p in parameters), "reps",
               "mean MiB/s", "95% CI", "median", "min", "max", "stddev", ratio_header(reference), "verified"]
    rows = []
    for _, point in points.iterrows():
        rows.append([point["approach"], point["op"], str(point["ranks"]),
                     *(format_parameter(p, point[p]) for p in parameters), str(point["reps"]),
                     format_rate(point["mean"]) + marks(point), _half_width(point), format_rate(point["median"]),
                     format_rate(point["min"]), format_rate(point["max"]), format_rate(point["stddev"]),
                     format_ratio(point["ratio"]), format_verified(point["verified"])])
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
    for stat in ("mean", "min", "max", "stddev", "median", "ci95_low", "ci95_high"):
        table[f"{stat}_mib_s"] = points[stat]
    table[f"ratio_to_{reference}" if reference else "ratio"] = points["ratio"]
    for column in ("stonewalled", "short", "verified", "runs", "run_ids"):
        table[column] = points[column]
    return table


def write_tables(points: pd.DataFrame, phases: pd.DataFrame, parameters: Sequence[str],
                 reference: Optional[str], out_dir: Path) -> list[Path]:
    """bandwidth.csv/.md and phases.csv/.md in `out_dir`."""
    written = []
    path = out_dir / "bandwidth.csv"
    bandwidth_csv(points, parameters, reference).to_csv(path, index=False)
    written.append(path)
    path = out_dir / "bandwidth.md"
    path.write_text("# Aggregate bandwidth (MiB/s)\n\n" + STATISTICS_NOTE + " "
                    + ratio_explanation(reference, parameters)
                    + (f" {STONEWALL_NOTE}" if points["stonewalled"].any() else "")
                    + (f" {SHORT_NOTE}" if points["short"].any() else "") + "\n\n"
                    + markdown(bandwidth_cells(points, parameters, reference)), encoding="utf-8")
    written.append(path)
    path = out_dir / "phases.csv"
    phases.to_csv(path, index=False)
    written.append(path)
    path = out_dir / "phases.md"
    path.write_text("# Phases and verification\n\nOne row per approach × op × fork × repetition of each run, "
                    "warm-up repetitions included and marked; verified: every rank checked its data (yes), "
                    "a rank found wrong data (NO), or nobody checked.\n\n"
                    + markdown(phase_cells(phases, parameters)), encoding="utf-8")
    written.append(path)
    return written
