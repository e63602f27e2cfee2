"""The uncertainty of every figure jiobench prints (docs/run-file.md, "How the intervals are made").

- The figure of a row is the median of its measured repetitions. Its 95% interval is the
  order-statistic (distribution-free) interval of the median: the j-th smallest and the j-th
  largest repetition, j as large as the binomial distribution allows for 95% coverage. It needs
  no assumption on the shape of the timings, which are skewed (a slow spell drags a few phases
  far down), and it exists from 6 repetitions on; with fewer there is no 95% interval at all.
- A ratio is the ratio of two medians. Its 95% interval comes from the bootstrap (BCa), each side's
  repetitions resampled on their own, with a fixed seed so that a run file and a report made again
  from it say the same.
- A verdict reads the ratio's interval: `same` when all of it lies within ±5% of 1 (a difference
  that small, however sure, is what two runs of one command differ by: their files lie in other
  pages, the machine's load moves), else `faster` or `slower` when it excludes 1, `same` when it
  holds 1 and spans at most a factor of 2, `unclear` otherwise, or without an interval.
"""
from __future__ import annotations

import math
import statistics
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

if TYPE_CHECKING:
    from numpy.typing import NDArray

CONFIDENCE = 0.95


def fewest_with_interval(confidence: float) -> int:
    """The fewest values whose widest order-statistic interval, smallest to largest, covers the
    median with `confidence`: it misses when all values fall on one side, 2 / 2**n of the time."""
    count = 1
    while 1 - 2 / 2 ** count < confidence:
        count += 1
    return count


# 6: with 5 the widest interval covers the median 93.75% of the time only. The runner's -i auto
# runs at least as many (its --describe says how many; a test holds the two together).
MIN_REPS = fewest_with_interval(CONFIDENCE)
# A row whose interval's half-width is more than this share of its median is `noisy`.
NOISY_SHARE = 0.10
# A ratio whose interval lies within this share of 1 is the same, as criterion.rs's noise threshold
# says: two runs of one c-posix command, side by side, came out 3 to 5% apart in earnest.
SAME_WITHIN = 0.05
# A ratio whose interval holds 1 but spans more than this factor says nothing either way.
UNCLEAR_SPAN = 2.0
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 17

FASTER, SLOWER, SAME, UNCLEAR = "faster", "slower", "same", "unclear"


def _finite(values: Sequence[float]) -> list[float]:
    return [float(v) for v in values if math.isfinite(v)]


def load_libraries() -> None:
    """Loads numpy and scipy now, for a process that must not stop for them later."""
    import numpy  # noqa: F401
    from scipy import stats  # noqa: F401


def median_interval(values: Sequence[float]) -> Optional[tuple[float, float]]:
    """The 95% order-statistic interval of the median, or None for fewer than MIN_REPS values."""
    values = _finite(values)
    if len(values) < MIN_REPS:
        return None
    # Imported here, as numpy and scipy are everywhere in this module: they take most of a second,
    # which every rank's launcher would pay at its start, and only rank 0 computes intervals.
    from scipy import stats as scipy_stats

    test = scipy_stats.quantile_test(values, q=statistics.median(values), p=0.5)
    low, high = test.confidence_interval(confidence_level=CONFIDENCE)
    return float(low), float(high)


def half_width_share(median: float, interval: Optional[Sequence[float]]) -> float:
    """Half the interval's width over the median; infinite where there is no interval."""
    if interval is None or not median or not math.isfinite(median):
        return math.inf
    return (interval[1] - interval[0]) / 2 / median


def is_noisy(median: float, interval: Optional[Sequence[float]], share: float = NOISY_SHARE) -> bool:
    """Whether the row's interval is wider than ±share of its median, or missing."""
    return half_width_share(median, interval) > share


def verdict(interval: Optional[Sequence[float]]) -> str:
    if interval is None:
        return UNCLEAR
    low, high = interval
    if 1 / (1 + SAME_WITHIN) <= low and high <= 1 + SAME_WITHIN:
        return SAME
    if low > 1:
        return FASTER
    if high < 1:
        return SLOWER
    if low <= 0 or high / low > UNCLEAR_SPAN:
        return UNCLEAR
    return SAME


@dataclass(frozen=True)
class Ratio:
    """Median of `values` over median of `reference`, its 95% interval and what it says."""
    value: float
    ci95: Optional[tuple[float, float]]
    verdict: str

    def as_json(self, to: str) -> dict[str, Any]:
        return {"to": to, "value": self.value, "ci95": list(self.ci95) if self.ci95 else None,
                "verdict": self.verdict}


def _ratio_of_medians(values: NDArray[Any], reference: NDArray[Any], axis: int = -1) -> NDArray[Any]:
    import numpy as np

    ratios: NDArray[Any] = np.median(values, axis=axis) / np.median(reference, axis=axis)
    return ratios


def ratio(values: Sequence[float], reference: Sequence[float]) -> Optional[Ratio]:
    """The ratio of the medians with its bootstrap interval; None where a median is not a positive
    finite number. Without MIN_REPS repetitions on each side there is no interval: `unclear`."""
    values, reference = _finite(values), _finite(reference)
    if not values or not reference:
        return None
    base = statistics.median(reference)
    if base <= 0:
        return None
    value = statistics.median(values) / base
    if min(len(values), len(reference)) < MIN_REPS:
        return Ratio(value, None, UNCLEAR)
    interval = ratio_interval(values, reference)
    return Ratio(value, interval, verdict(interval))


def ratio_interval(values: Sequence[float], reference: Sequence[float]) -> tuple[float, float]:
    """The 95% BCa bootstrap interval of the ratio of medians; the percentile interval where BCa
    has no answer (repetitions that all measured the same give one ratio in every resample)."""
    import numpy as np
    from scipy import stats as scipy_stats  # as in median_interval

    samples = (np.asarray(values, dtype=float), np.asarray(reference, dtype=float))
    with warnings.catch_warnings():
        # A degenerate bootstrap distribution is answered below, not warned of.
        warnings.simplefilter("ignore")
        result = scipy_stats.bootstrap(samples, _ratio_of_medians, vectorized=True, paired=False,
                                       confidence_level=CONFIDENCE, n_resamples=BOOTSTRAP_RESAMPLES,
                                       method="BCa", random_state=np.random.default_rng(BOOTSTRAP_SEED))
    low, high = result.confidence_interval
    if not (math.isfinite(low) and math.isfinite(high)):
        tail = (1 - CONFIDENCE) / 2 * 100
        low, high = np.percentile(result.bootstrap_distribution, [tail, 100 - tail])
    return float(low), float(high)
