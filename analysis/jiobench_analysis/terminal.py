"""What the command prints: short tables that fit 80 columns."""
from __future__ import annotations

import textwrap
from typing import Optional, Sequence

import pandas as pd

from .points import OPS, value_order
from .tables import NOISY, format_parameter, marks, overran, ratio_cell
from .units import format_rate

WIDTH = 80


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: frozenset[int]) -> str:
    """Columns two spaces apart, numbers right-aligned; the first column is shortened (with
    a trailing `~`) when the table would not fit in 80 columns."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    excess = sum(widths) + 2 * (len(widths) - 1) - WIDTH
    if excess > 0:
        widths[0] = max(len(headers[0]), widths[0] - excess)

    def cell(text: str, i: int) -> str:
        if len(text) > widths[i]:
            text = text[:widths[i] - 1] + "~"
        return text.rjust(widths[i]) if i in numeric else text.ljust(widths[i])

    lines = ["  ".join(cell(h, i) for i, h in enumerate(headers)).rstrip()]
    lines += ["  ".join(cell(c, i) for i, c in enumerate(row)).rstrip() for row in rows]
    return "\n".join(lines)


def _note(point) -> str:
    """What a reader must not miss beside the rate's marks (stonewalled, overran, short): an
    overrun deadline is named, as the rarest of them."""
    notes = []
    if point["noisy"]:
        notes.append(NOISY)
    if overran(point):
        notes.append("overran deadline")
    if point["verified"] is False:
        notes.append("VERIFY FAILED")
    return ", ".join(notes)


SHORT_NAMES = {"transfer_size": "xfer", "buffer_size": "buffer", "block_size": "block"}


def summary_table(points: pd.DataFrame, parameters: Sequence[str], reference: Optional[str]) -> str:
    """Approach, op, ranks (where the points hold more than one count: a ratio with its interval
    needs the room), the varied parameters, median MiB/s (with the marks of the tables), the ratio
    to the reference with its interval and verdict, and notes; writes then reads, approaches side
    by side at each process count."""
    ranks = ["ranks"] if points["ranks"].nunique() > 1 else []
    headers = ["approach", "op", *ranks, *(SHORT_NAMES.get(p, p) for p in parameters), "MiB/s",
               f"/{reference}" if reference else "ratio", "note"]
    ordered = sorted(points.index, key=lambda i: (OPS.index(points.at[i, "op"]), points.at[i, "ranks"],
                                                  *(value_order(points.at[i, p]) for p in parameters)))
    rows, previous = [], None
    for index in ordered:
        point = points.loc[index]
        if previous is not None and point["op"] != previous:
            rows.append([""] * len(headers))
        previous = point["op"]
        rows.append([point["approach"], point["op"], *([str(point["ranks"])] if ranks else []),
                     *(format_parameter(p, point[p]) for p in parameters), format_rate(point["median"]) + marks(point),
                     ratio_cell(point), _note(point)])
    return text_table(headers, rows, frozenset(range(2, len(headers) - 1)))


def wrap(text: str) -> str:
    return textwrap.fill(text, WIDTH)
