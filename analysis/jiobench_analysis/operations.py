"""The figure a preset sweep (`jiobench sweep --preset`, docs/sweep.md) redraws from its paper:
operations per second against operation size or buffer size.

Xu and Guo count operations (read and write calls), and so does the run file: each phase's
`transfers`. A point's rate in operations per second is its MiB/s times 2^20 times the transfers
per byte of its measured phases (1 / the operation size, short of a transfer a deadline cut):
a change of unit of what the runner measured, not a measurement of the report's own.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import pandas as pd

from .figures import (ERROR_BARS, X_NAMES, DrawnFigure, _fixed_text, approach_styles, bandwidth_figure,
                      figure_slice, save_figure)
from .output import Output
from .points import parameter_value

MIB = 1 << 20
RATES = ("median", "median_ci95_low", "median_ci95_high", "mean", "min", "max")
Y_LABEL = "operations per second (log scale)"


def transfers_per_byte(runs: Sequence[dict], point: pd.Series) -> float:
    """What the point's measured phases counted: all their transfers over all their bytes; the
    runs' transfer size where a phase has no count (run files before `transfers`) or moved nothing."""
    ids = set(point["run_ids"].split())
    mine = [run for run in runs if run["run_id"] in ids]
    phases = [phase for run in mine for phase in run["phases"] if not phase.get("warmup")
              and (phase["approach"], phase["op"], phase["ranks"]) == (point["approach"], point["op"], point["ranks"])]
    moved = sum(phase["bytes"] for phase in phases)
    if moved and all("transfers" in phase for phase in phases):
        return sum(phase["transfers"] for phase in phases) / moved
    return 1 / mine[0]["parameters"]["transfer_size"]


def operation_rates(points: pd.DataFrame, runs: Sequence[dict]) -> pd.DataFrame:
    """The points with their rates (RATES: the median and its interval, mean, min, max) in operations
    per second."""
    factors = pd.Series([MIB * transfers_per_byte(runs, point) for _, point in points.iterrows()],
                        index=points.index, dtype=float)
    return points.assign(**{name: points[name].astype(float) * factors for name in RATES})


def draw_preset_figure(points: pd.DataFrame, runs: Sequence[dict], parameters: Sequence[str],
                       approaches: Sequence[str], reference: Optional[str], out: Output, setting: str,
                       preset: dict) -> Optional[DrawnFigure]:
    """The preset's figure (its `x`, a row of panels per value of its `split`), or None where the
    runs do not vary its x (a sweep cut down to one operation size, say)."""
    x, split = preset["x"], preset.get("split")
    if x not in parameters:
        return None
    split = split if split in parameters else None
    rates = operation_rates(points, runs)
    plottable = rates[(rates["median"] > 0) & rates["median"].map(math.isfinite)]
    if plottable.empty:
        return None
    rows, fixed = figure_slice(plottable, x, [name for name in ["ranks", *parameters] if name != split])
    if rows[x].nunique() < 2:
        return None
    if split:  # its rows of panels in the order the runs took its values (sequential before random)
        taken = list(dict.fromkeys(parameter_value(run, split) for run in runs))
        rows = rows.sort_values(split, key=lambda column: column.map(taken.index), kind="stable")
    title = f"Operations per second vs {X_NAMES[x]}" + (f" ({_fixed_text(fixed)})" if fixed else "")
    figure = bandwidth_figure(rows, x, approaches, approach_styles(approaches, reference), reference, title,
                              setting, y_label=Y_LABEL, split=split)
    stem = f"operations-vs-{x.replace('_', '-')}"
    png, svg, image = save_figure(figure, out, stem)
    caption = (f"Redraws {preset['paper']} (jiobench sweep --preset {preset['name']}): operations per second, "
               "each point's MiB/s × 2^20 × the transfers per byte its phases counted. Median per approach; "
               f"{ERROR_BARS}. C approaches dashed"
               + (f", {reference} thick and black" if reference else "") + "."
               + (" Hollow markers: stonewalled (the phase stopped at its deadline)." if rows["stonewalled"].any()
                  else "")
               + " Where the paper plots the elapsed time of a fixed file, a phase here ends at its deadline: its "
                 "rate compares, its time does not.")
    return DrawnFigure(stem, title, caption, png, svg, image)
