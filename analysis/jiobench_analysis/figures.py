"""The paper-style figures: aggregate MiB/s on a log axis, one line per approach, write | read.

Approaches differ by orders of magnitude, hence the log axis. Each point is the median of its
repetitions; bars span the median's 95% interval, so that two approaches whose bars overlap are
not told apart by the figure. The reference approach (c-posix, else raw-bytes) is drawn thick,
dashed and black, the other C approaches dashed in colour; a stonewalled point (its phase hit the
deadline) has a hollow marker.
"""
from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator
import pandas as pd

from jiobench.model import stats

from .output import Output
from .points import OPS
from .units import format_size, plural

matplotlib.use("Agg")  # files only, never a display; figures are drawn without pyplot's state

MARKERS = "osD^v<>ph*P"
C_PREFIX = "c-"  # the C approaches (c-posix, c-swap, c-stdio): dashed, so Java and C lines part at a glance
DODGE = 0.025  # octaves between neighbouring approaches' markers on a log2 x-axis
ERROR_BARS = f"bars: the median's 95% interval (none under {stats.MIN_REPS} repetitions)"
STONEWALL_NOTE = "hollow: stonewalled"

# The x variables a figure can have: axis label and how its ticks are written.
X_AXES: dict[str, tuple[str, Callable]] = {
    "ranks": ("process count (MPI ranks)", lambda v: f"{v:g}"),
    "transfer_size": ("transfer size (bytes per call)", format_size),
    "buffer_size": ("buffer size", format_size),
    "jvm": ("JVM (java.runtime.version)", str),
    "filesystem": ("file system (as the mount table names it)", str),
    "launcher": ("launch path (MPI launcher)", str),
}
X_NAMES = {"ranks": "process count", "transfer_size": "transfer size", "buffer_size": "buffer size", "jvm": "JVM",
           "filesystem": "file system", "launcher": "launch path"}
# Axes whose values are names, not counts or sizes: evenly spaced, in sorted order.
NAMED_AXES = frozenset({"jvm", "filesystem", "launcher"})
NAMED_DODGE = 0.04  # positions between neighbouring approaches' markers on a named axis


@dataclass
class DrawnFigure:
    stem: str
    title: str
    caption: str
    png: Path
    svg: Path
    image: bytes  # the PNG as written: the page embeds these bytes, never the file read back


def approach_styles(approaches: Sequence[str], reference: Optional[str]) -> dict[str, dict]:
    """One fixed look per approach for every figure of a report."""
    colors = matplotlib.colormaps["tab10"].colors
    styles = {}
    others = [a for a in approaches if a != reference]
    for index, approach in enumerate(others):
        native = approach.startswith(C_PREFIX)
        styles[approach] = dict(color=colors[index % len(colors)], linestyle="--" if native else "-",
                                linewidth=2.6 if native else 1.8, marker=MARKERS[index % len(MARKERS)])
    if reference:
        styles[reference] = dict(color="black", linestyle="--", linewidth=3.0, marker="s")
    return styles


def figure_slice(points: pd.DataFrame, x: str, dimensions: Sequence[str]) -> tuple[pd.DataFrame, dict]:
    """The points of one figure: those sharing the values of every other dimension, choosing the
    values under which `x` takes the most distinct values (then the most points). Returns the
    rows and the fixed values."""
    others = [d for d in dimensions if d != x]
    usable = points[points[x].notna()]
    groups: dict[tuple, list[int]] = {}
    for index, row in usable.iterrows():
        groups.setdefault(tuple(row[d] for d in others), []).append(index)
    best = max(groups, key=lambda key: (usable.loc[groups[key], x].nunique(), len(groups[key])))
    return usable.loc[groups[best]], dict(zip(others, best))


def _rate_tick(value: float, _position=None) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def _set_rate_axis(ax, rows: pd.DataFrame) -> None:
    """Log y-axis spanning the data with some room, at least one decade so that a flat line
    (all approaches alike, or one approach) does not fill the panel with noise."""
    lows = rows["median_ci95_low"].fillna(rows["median"])
    low = lows[lows > 0].min()
    if not low > 0:
        low = rows["median"].min()
    high = rows["median_ci95_high"].fillna(rows["median"]).max()
    low, high = low / 1.6, high * 1.6
    if high / low < 10:
        centre = math.sqrt(low * high)
        low, high = centre / math.sqrt(10), centre * math.sqrt(10)
    ax.set_yscale("log")
    ax.set_ylim(low, high)
    subs = (1.0, 2.0, 5.0) if high / low <= 1000 else (1.0,)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(FuncFormatter(_rate_tick))
    ax.yaxis.set_minor_formatter(NullFormatter())


BANDWIDTH_LABEL = "aggregate bandwidth (MiB/s, log scale)"


def bandwidth_figure(rows: pd.DataFrame, x: str, approaches: Sequence[str], styles: dict[str, dict],
                     reference: Optional[str], title: str, setting: str = "", y_label: str = BANDWIDTH_LABEL,
                     split: Optional[str] = None) -> Figure:
    """Write and read panels side by side, a row of them per value of `split` where given (in the
    rows' order); x on a
    log2 axis (evenly spaced names for a named axis such as the JVM), or, when the rows hold one
    value of x only, one column per approach (the reference also as a horizontal line). The rows'
    medians must be positive and finite: a log axis has no place for others."""
    ops = [op for op in OPS if (rows["op"] == op).any()]
    present = [a for a in approaches if (rows["approach"] == a).any()]
    named = x in NAMED_AXES
    values = sorted({str(v) for v in rows[x]}) if named else sorted({float(v) for v in rows[x]})
    categorical = len(values) == 1
    parts = list(dict.fromkeys(rows[split])) if split else [None]
    width = max(5.2, 0.55 * len(present) + 2.2) if categorical else 5.2
    figure = Figure(figsize=(width * len(ops) + 0.4, 4.9 + 3.6 * (len(parts) - 1)), layout="constrained")
    axes = figure.subplots(len(parts), len(ops), sharey=True, squeeze=False)
    for row_axes, part in zip(axes, parts):
        mine = rows if split is None else rows[rows[split] == part]
        for ax, op in zip(row_axes, ops):
            _draw_panel(ax, mine[mine["op"] == op], x, values, present, styles, reference)
            ax.set_title(op if split is None else f"{op}, {split.replace('_', ' ')} {part}",
                         fontsize=12, fontweight="bold")
        row_axes[0].set_ylabel(y_label)
    _set_rate_axis(axes[0][0], rows)

    handles = [Line2D([], [], color=styles[a]["color"], linestyle=styles[a]["linestyle"],
                      linewidth=styles[a]["linewidth"], marker=styles[a]["marker"],
                      label=f"{a} (reference)" if a == reference else a) for a in present]
    handles.append(Line2D([], [], color="0.35", marker="|", markersize=14, linestyle="none",
                          label=ERROR_BARS))
    if rows["stonewalled"].any():
        handles.append(Line2D([], [], color="0.35", marker="o", markerfacecolor="white",
                              markeredgewidth=1.5, linestyle="none", label=STONEWALL_NOTE))
    figure.legend(handles=handles, loc="outside lower center", ncol=min(4, len(handles)),
                  frameon=False, fontsize=9)
    figure.suptitle(f"{title}\n{setting}" if setting else title, fontsize=12)
    return figure


def _draw_panel(ax, rows: pd.DataFrame, x: str, values: list, present: Sequence[str], styles: dict[str, dict],
                reference: Optional[str]) -> None:
    """One op's lines, markers and the bars of the medians' intervals, and the panel's x axis."""
    named = x in NAMED_AXES
    categorical = len(values) == 1
    label, tick = X_AXES[x]
    for position, approach in enumerate(present):
        series = rows[rows["approach"] == approach]
        if series.empty:
            continue
        series = series.assign(_x=series[x].map(lambda v: values.index(str(v))) if named
                               else series[x].astype(float)).sort_values("_x")
        style = styles[approach]
        offset = position - (len(present) - 1) / 2
        if categorical:
            xs = pd.Series([position] * len(series), index=series.index)
        elif named:  # approaches a little apart, so that their bars do not hide one another
            xs = series["_x"] + NAMED_DODGE * offset
        else:
            xs = series["_x"] * 2 ** (DODGE * offset)
        if categorical and approach == reference:
            ax.axhline(series["median"].iloc[0], color=style["color"], linestyle=style["linestyle"],
                       linewidth=style["linewidth"], zorder=1)
        if not categorical:
            ax.plot(xs, series["median"], color=style["color"], linestyle=style["linestyle"],
                    linewidth=style["linewidth"], zorder=2)
        for hollow in (False, True):
            part = series["stonewalled"] == hollow
            if not part.any():
                continue
            median = series["median"][part]
            # A point without an interval (too few repetitions) gets its marker and no bar.
            below = (median - series["median_ci95_low"][part]).fillna(0)
            above = (series["median_ci95_high"][part] - median).fillna(0)
            ax.errorbar(xs[part], median, yerr=[below, above],
                        fmt=style["marker"], linestyle="none", color=style["color"], markersize=7,
                        markerfacecolor="white" if hollow else style["color"],
                        markeredgewidth=1.5, capsize=4, elinewidth=1.2, zorder=3)
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", axis="y", alpha=0.12)
    if categorical:
        ax.set_xticks(range(len(present)), present, rotation=25, ha="right")
        ax.set_xlim(-0.6, len(present) - 0.4)
        ax.set_xlabel(f"approach  ({X_NAMES[x]} {tick(values[0])})")
    elif named:
        ax.set_xticks(range(len(values)), values)
        ax.set_xlim(-0.5, len(values) - 0.5)
        ax.set_xlabel(label)
    else:
        ax.set_xscale("log", base=2)
        span = values[-1] / values[0]
        closest = min(b / a for a, b in zip(values, values[1:]))
        # Neighbours a small part of the axis apart (512 B, 1 KiB on 128 B..10 MiB): slanted labels.
        slanted = math.log(closest) < 0.1 * math.log(span)
        ax.set_xticks(values, [tick(v) for v in values], rotation=30 if slanted else 0,
                      ha="right" if slanted else "center")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(values[0] / span ** 0.08, values[-1] * span ** 0.08)
        ax.set_xlabel(label)


def save_figure(figure: Figure, out: Output, stem: str) -> tuple[Path, Path, bytes]:
    """The figure as `stem`.png and `stem`.svg in `out`; returns their paths and the PNG's bytes."""
    png, svg = io.BytesIO(), io.BytesIO()
    figure.savefig(png, format="png", dpi=150)
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text stays text: searchable, editable
        figure.savefig(svg, format="svg", metadata={"Date": None})
    return out.write(f"{stem}.png", png.getvalue()), out.write(f"{stem}.svg", svg.getvalue()), png.getvalue()


def _fixed_text(fixed: dict) -> str:
    parts = []
    for name, value in fixed.items():
        if name == "ranks":
            parts.append(plural(value, "rank"))
        elif name in X_AXES:
            parts.append(f"{X_NAMES[name]} {X_AXES[name][1](value)}")
        else:
            parts.append(f"{name} {value}")
    return ", ".join(parts)


SETTING = ("block_size", "transfer_size", "segments", "type", "order", "fsync", "reorder", "file_per_process")


def setting_line(runs: Sequence[dict], parameters: Sequence[str]) -> str:
    """What all runs share, in a few words, so that a figure can stand alone:
    `block 16 MiB, transfer 256 KiB, int, sequential, no fsync`."""
    shared = {name: runs[0]["parameters"].get(name) for name in SETTING if name not in parameters}
    words = []
    for name, value in shared.items():
        if value is None or (name == "segments" and value == 1):
            continue
        if name in ("block_size", "transfer_size"):
            words.append(f"{name.split('_')[0]} {format_size(value)}")
        elif name == "segments":
            words.append(plural(value, "segment"))
        elif name in ("type", "order"):
            words.append(str(value))
        elif name == "fsync":
            words.append("fsync on write" if value else "no fsync")
        elif value:  # reorder, file_per_process: said only when in force
            words.append(name.replace("_", " "))
    return ", ".join(words)


def draw_figures(points: pd.DataFrame, parameters: Sequence[str], approaches: Sequence[str],
                 reference: Optional[str], out: Output, setting: str = "") -> list[DrawnFigure]:
    """Bandwidth vs process count always; vs transfer size, buffer size, JVM and file system where
    the runs hold more than one value of them. Each as PNG and SVG in `out`; `setting` (what all
    runs share) goes under each title."""
    styles = approach_styles(approaches, reference)
    dimensions = ["ranks", *parameters]
    plottable = points[(points["median"] > 0) & points["median"].map(math.isfinite)]
    drawn = []
    for x in X_AXES:
        if x not in dimensions or plottable[x].isna().all():
            continue
        rows, fixed = figure_slice(plottable, x, dimensions)
        distinct = rows[x].nunique()
        if x != "ranks" and distinct < 2:
            continue
        title = f"Aggregate bandwidth vs {X_NAMES[x]}"
        if distinct == 1:
            title = f"Aggregate bandwidth at {X_AXES[x][1](float(rows[x].iloc[0]))} ranks"
        if fixed:
            title += f" ({_fixed_text(fixed)})"
        stem = f"bandwidth-vs-{x.replace('_', '-')}"
        figure = bandwidth_figure(rows, x, approaches, styles, reference, title, setting)
        png, svg, image = save_figure(figure, out, stem)
        omitted = len(points) - len(rows)  # other settings, or no rate to plot
        caption = (f"Median MiB/s per approach; {ERROR_BARS}."
                   + (" Hollow markers: stonewalled (the phase stopped at its deadline)."
                      if rows["stonewalled"].any() else "")
                   + (f" Reference: {reference} (thick dashed black)." if reference else "")
                   + (f" {omitted} points at other settings are in the tables." if omitted else ""))
        drawn.append(DrawnFigure(stem, title, caption, png, svg, image))
    return drawn
