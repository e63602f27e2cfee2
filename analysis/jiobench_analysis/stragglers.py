"""The straggler figure: how far apart the ranks' times lay in each measured phase of the run with
the most ranks, from its per-rank records (jiobench.model.perrank reads them from any run file).

A phase's time, and so its rate, is its slowest rank's: a bar that reaches 2 had a rank take twice
as long as the phase's median rank. Write | read, the approaches side by side, a bar per phase in
the order they ran: thin from its fastest to its slowest rank, thick over the middle 80% of its
ranks, every time over its phase's median. A run whose file has no per-rank records (written by a
rank that survived rank 0, which held them) draws none.
"""
from __future__ import annotations

from typing import Optional, Sequence

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
import pandas as pd

from jiobench.model import perrank

from .figures import DrawnFigure, approach_styles, save_figure
from .output import Output
from .points import OPS
from .runs import warn
from .units import plural

STEM = "rank-times"
PHASE = ["approach", "op", "fork", "rep"]
MIDDLE = (0.1, 0.9)  # the quantiles the thick bar spans
SLOT = 0.8  # of each approach's unit of the x axis, what its phases' bars spread over


def drawn_run(runs: Sequence[dict]) -> Optional[dict]:
    """The run of the most ranks (the first of them) among those with per-rank records: the one
    whose stragglers cost the most."""
    spread = [run for run in runs if run["environment"]["ranks"] > 1
              and ("per_rank" in run or run.get("per_rank_file") is not None)]
    return max(spread, key=lambda run: run["environment"]["ranks"], default=None)


def rank_spread(records: pd.DataFrame) -> pd.DataFrame:
    """A row per measured phase, in the order the phases ran: the least, the MIDDLE quantiles and
    the greatest of its ranks' elapsed times, each over the phase's median."""
    measured = records[~records["warmup"].fillna(False).astype(bool)]
    ratio = measured["elapsed_s"] / measured.groupby(PHASE, observed=True, sort=False)["elapsed_s"].transform("median")
    grouped = ratio.groupby([measured[key] for key in PHASE], observed=True, sort=False)
    spread = pd.DataFrame({"low": grouped.min(), "middle_low": grouped.quantile(MIDDLE[0]),
                           "middle_high": grouped.quantile(MIDDLE[1]), "high": grouped.max()})
    return spread.reset_index().dropna()


def draw_straggler_figure(runs: Sequence[dict], approaches: Sequence[str], reference: Optional[str],
                          out: Output) -> Optional[DrawnFigure]:
    """The figure, as PNG and SVG in `out`, or None where no run has per-rank records of several
    ranks; a per-rank file that is missing, broken or at odds with its run file (no figure is drawn
    from a file that contradicts the JSON the tables come from) is said in one warning, and the
    report goes on."""
    run = drawn_run(runs)
    if run is None:
        return None
    try:
        records = perrank.frame(run["path"], run, columns=[*PHASE, "warmup", "elapsed_s"], checked=True)
    except perrank.Unreadable as problem:
        warn(f"{problem}: no figure of the ranks' times")
        return None
    spread = rank_spread(records)
    if spread.empty:
        return None
    styles = approach_styles(approaches, reference)
    present = [approach for approach in approaches if (spread["approach"] == approach).any()]
    ops = [op for op in OPS if (spread["op"] == op).any()]
    figure = Figure(figsize=(max(5.2, 0.7 * len(present) + 2.2) * len(ops) + 0.4, 4.9), layout="constrained")
    axes = figure.subplots(1, len(ops), sharey=True, squeeze=False)[0]
    for ax, op in zip(axes, ops):
        for position, approach in enumerate(present):
            phases = spread[(spread["approach"] == approach) & (spread["op"] == op)]
            xs = [position - SLOT / 2 + SLOT * (index + 0.5) / len(phases) for index in range(len(phases))]
            color = styles[approach]["color"]
            ax.vlines(xs, phases["low"], phases["high"], color=color, linewidth=0.8)
            ax.vlines(xs, phases["middle_low"], phases["middle_high"], color=color, linewidth=3)
        ax.axhline(1, color="0.35", linewidth=0.8, zorder=0)
        ax.set_xticks(range(len(present)), present, rotation=25, ha="right")
        ax.set_xlim(-0.6, len(present) - 0.4)
        ax.set_title(op, fontsize=12, fontweight="bold")
        ax.grid(True, which="major", axis="y", alpha=0.35)
    low, high = min(spread["low"].min(), 0.9), max(spread["high"].max(), 1.1)
    axes[0].set_yscale("log")
    axes[0].set_ylim(low / 1.05, high * 1.05)
    axes[0].yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.2, 1.5, 2.0, 3.0, 5.0, 8.0)))
    axes[0].yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))
    axes[0].yaxis.set_minor_formatter(NullFormatter())
    axes[0].set_ylabel("rank's time over its phase's median (log scale)")
    ranks, hosts = run["environment"]["ranks"], len(run["environment"]["hosts"])
    title = f"The ranks' times in each phase: run {run['run_id']}, {plural(ranks, 'rank')} on {plural(hosts, 'host')}"
    figure.suptitle(title, fontsize=12)
    png, svg, image = save_figure(figure, out, STEM)
    worst = spread.loc[spread["high"].idxmax()]
    caption = (f"A bar per measured phase, in the order they ran: thin from the fastest to the slowest rank, thick over "
               f"the middle {MIDDLE[1] - MIDDLE[0]:.0%} of the ranks, each rank's elapsed time over its phase's median. "
               "A phase's time, and so its rate, is its slowest rank's; the run file names each phase's slowest rank "
               f"and host (phases[].straggler). Slowest of all: {worst['approach']} {worst['op']} fork {worst['fork']} "
               f"rep {worst['rep']}, {worst['high']:.2f}× its median."
               + (" Other runs' ranks are in their own per-rank files." if len(runs) > 1 else ""))
    return DrawnFigure(STEM, title, caption, png, svg, image)
