"""How the result model's numbers read as text, alike in the runner's summary and the report."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from . import stats


def size_text(n: int) -> str:
    """The shortest exact binary form: 1048576 → 1MiB."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or n % 1024:
            return f"{n}{unit}"
        n //= 1024
    return f"{n}PiB"


def ratio_number(value: float) -> str:
    """Two decimals, or three significant digits for the tiny ratios of per-element approaches."""
    return f"{value:.2f}" if value >= 0.1 else f"{value:.3g}"


def bound_number(value: float) -> str:
    return f"{value:.3f}" if value >= 0.1 else f"{value:.3g}"


def ratio_text(ratio: Optional[Mapping[str, Any]]) -> str:
    """`0.77x [0.41, 1.02] same`: a row's ratio as the run file holds it."""
    if not ratio:
        return "-"
    # The bounds with a digit more than the value: an interval that ends just short of 1, printed
    # to two decimals, would read 1.00 beside `slower`.
    interval = (f" [{bound_number(ratio['ci95'][0])}, {bound_number(ratio['ci95'][1])}]" if ratio["ci95"]
                else f" (n<{stats.MIN_REPS})")
    return f"{ratio_number(ratio['value'])}x{interval} {ratio['verdict']}"
