"""How sizes and rates are written for people (tables, figure labels, the terminal)."""
from __future__ import annotations

import math
from typing import Optional

_SIZE_UNITS = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]


def format_size(size: Optional[float]) -> str:
    """`1048576` -> `1 MiB`, `1536` -> `1.5 KiB`, `100` -> `100 B`; None -> `-`."""
    if size is None or (isinstance(size, float) and math.isnan(size)):
        return "-"
    for unit, scale in _SIZE_UNITS:
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size:.0f} B"


def format_rate(mib_s: Optional[float]) -> str:
    """MiB/s with the precision a reader needs across five orders of magnitude."""
    if mib_s is None or (isinstance(mib_s, float) and math.isnan(mib_s)):
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
    """A ratio of means: `0.98x`; tiny ratios keep three significant digits."""
    if ratio is None or (isinstance(ratio, float) and math.isnan(ratio)):
        return "-"
    if ratio >= 0.1:
        return f"{ratio:.2f}x"
    return f"{ratio:.3g}x"


def format_verified(verified: Optional[bool]) -> str:
    return {True: "yes", False: "NO"}.get(verified, "not checked")


def plural(count: int, word: str, many: Optional[str] = None) -> str:
    """`1 run`, `2 runs`; `many` for words not made plural by an s."""
    return f"{count} {word if count == 1 else many or word + 's'}"
