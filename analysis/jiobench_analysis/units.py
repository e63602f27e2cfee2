"""How sizes and rates are written for people (tables, figure labels, the terminal)."""
from __future__ import annotations

import math
from typing import Optional

from jiobench.model.text import bound_number, ratio_number

_SIZE_UNITS = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]


def _missing(value: Optional[float]) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def format_size(size: Optional[float]) -> str:
    """`1048576` -> `1 MiB`, `1536` -> `1.5 KiB`, `100` -> `100 B`; None -> `-`."""
    if _missing(size):
        return "-"
    for unit, scale in _SIZE_UNITS:
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size:.0f} B"


def format_rate(mib_s: Optional[float]) -> str:
    """MiB/s with the precision a reader needs across five orders of magnitude."""
    if _missing(mib_s):
        return "-"
    if math.isinf(mib_s):
        return "inf"
    if mib_s >= 1000:
        return f"{mib_s:,.0f}"
    if mib_s >= 10:
        return f"{mib_s:.1f}"
    if mib_s >= 1:
        return f"{mib_s:.2f}"
    return f"{mib_s:.3g}"


def format_ratio(ratio: Optional[float]) -> str:
    """A ratio of medians: `0.98x`, as the runner prints it."""
    return "-" if _missing(ratio) else f"{ratio_number(ratio)}x"


def format_ratio_interval(low: Optional[float], high: Optional[float]) -> str:
    """The 95% interval of a ratio: `[0.41, 1.02]`; `-` where there is none."""
    if _missing(low) or _missing(high):
        return "-"
    return f"[{bound_number(low)}, {bound_number(high)}]"


def format_rate_interval(low: Optional[float], high: Optional[float]) -> str:
    """The 95% interval of a median in MiB/s: `1,180–1,260` (a dash, as the numbers hold commas);
    `-` where there is none."""
    if _missing(low) or _missing(high):
        return "-"
    return f"{format_rate(low)}–{format_rate(high)}"


def format_verified(verified: Optional[bool]) -> str:
    return {True: "yes", False: "NO"}.get(verified, "not checked")


def plural(count: int, word: str, many: Optional[str] = None) -> str:
    """`1 run`, `2 runs`; `many` for words not made plural by an s."""
    return f"{count} {word if count == 1 else many or word + 's'}"
