"""The one reduction of per-rank timings to aggregate figures.

Every number a table, a plot or a comparison shows comes from here: rank 0 applies
`reduce_phase` as phases finish and `summarize` at the end of a run; the analysis applies
`summarize` again only to pool phases of several runs, never a formula of its own.
"""
from __future__ import annotations

import math
import statistics
from typing import Any, Iterable, Mapping, Optional, Sequence

from . import stats

MIB = 1024 * 1024

# What every other approach is compared with: C's plain pread/pwrite where it was measured, else
# the paper's raw byte arrays.
REFERENCES = ("c-posix", "raw-bytes")
# Approaches that move no data at a rate they are told: a ratio of theirs to C means nothing.
PROGRAMMED = frozenset({"calibrate"})

# A phase whose slowest rank took less than this is too short to time well: a few scheduler
# ticks or one page fault are a large share of it.
SHORT_PHASE_S = 0.05

# A deadline (-D) bounds a phase: a rank stops at the first transfer boundary after it (within the
# transfer, for approaches that look at it element by element), then closes the file. What a rank
# may take past the deadline in a phase that ran normally is the largest of:
# - OVERRUN_FLOOR_S: a GC pause, a busy scheduler, a close on a network file system: none of them is
#   a fault, and where nothing is wrong they take well under a second;
# - OVERRUN_DEADLINE_SHARE of the deadline: the close (and with -e the fsync) after the deadline
#   flushes what the phase wrote before it, which grows with the deadline;
# - OVERRUN_TRANSFERS of the rank's own mean transfer time (transfer_s over its whole transfers, less
#   `stalled_s`): the transfer under way at the deadline, with room for one twice as slow as its mean.
# A rank that ended later than that was not running for a while: its JVM was stopped (SIGSTOP, a
# suspended job), starved or swapped out, or its file system hung. Its phase took longer than the
# deadline says, and its rate counts the pause. The pause lengthened the rank's own transfers too: in
# the first of a few it was most of their mean, and of the allowance with it. So the time in which the
# whole JVM stood still (`stalled_s`, seen by a thread of its own; absent in older files) is taken out
# of them first. A file system that hung stalls no JVM: hung in the first of a rank's few transfers,
# it cannot be told from slow transfers, and the rank is taken to have run slow ones.
OVERRUN_FLOOR_S = 1.0
OVERRUN_DEADLINE_SHARE = 0.25
OVERRUN_TRANSFERS = 2

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t975(degrees_of_freedom: int) -> float:
    """The 97.5% quantile of Student's t (a Cornish-Fisher expansion past the table, exact to 3 decimals)."""
    if degrees_of_freedom <= len(_T975):
        return _T975[degrees_of_freedom - 1]
    z, n = 1.959964, degrees_of_freedom
    return z + (z ** 3 + z) / (4 * n) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * n ** 2)


def bandwidth_mib_s(total_bytes: int, seconds: float) -> float:
    """Aggregate MiB/s: all ranks' bytes over the slowest rank's time since the barrier."""
    return total_bytes / MIB / seconds if seconds > 0 else math.inf


def _all_verified(flags: Iterable[Optional[bool]]) -> Optional[bool]:
    """True if every rank verified its data, False if any failed, None if nobody checked."""
    flags = list(flags)
    if any(flag is None for flag in flags):
        return None
    return all(flags)


def phase_key(record: Mapping[str, Any]) -> tuple[str, str, int, int]:
    """What identifies a phase among a run's records; runs before forks existed are fork 0."""
    return record["approach"], record["op"], record.get("fork", 0), record["rep"]


def overran_deadline_s(records: Sequence[Mapping[str, Any]], deadline_s: Optional[float]) -> Optional[float]:
    """How far past the deadline the latest rank that overran it ended (see OVERRUN_FLOOR_S), or None
    where none did or there was no deadline. With wear-out, where the ranks go on past the deadline
    on purpose, it is where each rank was when the deadline stopped it (`stonewall_s`) that counts."""
    if not deadline_s:
        return None
    late = []
    for record in records:
        ended = record["stonewall_s"] if record.get("stonewall_s") is not None else record["elapsed_s"]
        running_s = max(record["transfer_s"] - (record.get("stalled_s") or 0.0), 0.0)
        mean_transfer_s = running_s / max(record["transfers"], 1)
        allowed = max(OVERRUN_FLOOR_S, OVERRUN_DEADLINE_SHARE * deadline_s, OVERRUN_TRANSFERS * mean_transfer_s)
        if ended - deadline_s > allowed:
            late.append(ended - deadline_s)
    return max(late) if late else None


def reduce_phase(records: Sequence[Mapping[str, Any]], deadline_s: Optional[float] = None) -> dict[str, Any]:
    """One phase (approach x op x fork x repetition) from the records of all its ranks; the run's
    deadline (-D seconds, None for none) tells whether the phase overran it."""
    if not records:
        raise ValueError("a phase needs at least one rank's record")
    key = phase_key(records[0])
    if any(phase_key(record) != key for record in records):
        raise ValueError("records of different phases cannot be reduced together")
    first = records[0]
    total_bytes = sum(r["bytes"] for r in records)
    slowest = max(r["elapsed_s"] for r in records)
    phase = {
        "approach": first["approach"],
        "op": first["op"],
        "fork": first.get("fork", 0),
        "rep": first["rep"],
        "warmup": bool(first.get("warmup", False)),
        "ranks": len(records),
        "bytes": total_bytes,
        "transfers": sum(r["transfers"] for r in records),
        "seconds": slowest,
        "first_done_s": min(r["elapsed_s"] for r in records),
        "bw_mib_s": bandwidth_mib_s(total_bytes, slowest),
        "stonewalled": any(r["stonewalled"] for r in records),
        "overran_deadline_s": overran_deadline_s(records, deadline_s),
        "short": slowest < SHORT_PHASE_S,
        "verified": _all_verified(r["verified"] for r in records),
        "transfers_per_s": sum(r["transfers"] for r in records) / slowest if slowest > 0 else math.inf,
        "bookkeeping_share": bookkeeping_share(records),
        "array_copy_crawls": _count_true(r.get("array_copy_crawls") for r in records),
        "straggler": straggler(records),
        # When the ranks' launchers let the phase start (the first) and heard it end (the last), by
        # the wall clock; null where no launcher serves each rank (MPJ Express).
        "began_at": _least(r.get("began_at") for r in records),
        "ended_at": _most(r.get("ended_at") for r in records),
    }
    if any(r.get("stonewall_bytes") is not None for r in records):
        # Wear-out: what the ranks had moved when the deadline stopped them, as IOR reports it.
        stopped_bytes = sum(r["stonewall_bytes"] for r in records)
        stopped_s = max(r["stonewall_s"] for r in records)
        phase.update(stonewall_bytes=stopped_bytes, stonewall_s=stopped_s,
                     stonewall_bw_mib_s=bandwidth_mib_s(stopped_bytes, stopped_s),
                     stonewall_bytes_min=min(r["stonewall_bytes"] for r in records),
                     stonewall_bytes_max=max(r["stonewall_bytes"] for r in records))
    return phase


def straggler(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The phase's slowest rank (`rank`, `host`; of ranks equally slow, the first record's) and the
    spread of every rank's elapsed time since the barrier (`elapsed_s`: `min`, `median`, `max`):
    whether one rank held the phase up, or all ranks took about as long. The run file keeps this
    much of each phase whatever the rank count; the per-rank file keeps every rank's time."""
    slowest = max(records, key=lambda r: r["elapsed_s"])
    times = [r["elapsed_s"] for r in records]
    return {"rank": slowest["rank"], "host": slowest.get("host"),
            "elapsed_s": {"min": min(times), "median": statistics.median(times), "max": slowest["elapsed_s"]}}


def _least(values: Iterable[Optional[float]]) -> Optional[float]:
    known = [value for value in values if value is not None]
    return min(known) if known else None


def _most(values: Iterable[Optional[float]]) -> Optional[float]:
    known = [value for value in values if value is not None]
    return max(known) if known else None


def _count_true(values: Iterable[Optional[bool]]) -> Optional[int]:
    """How many of the values are true; None where none is recorded (a run file from before it was)."""
    recorded = [value for value in values if value is not None]
    return sum(1 for value in recorded if value) if recorded else None


def bookkeeping_share(records: Sequence[Mapping[str, Any]]) -> Optional[float]:
    """The largest share of a rank's transfer time that the runner's own loop took, as the runner
    measured it with transfers that move nothing; None for records from before it measured it."""
    shares = [r["bookkeeping_s"] / r["transfer_s"] for r in records
              if r.get("bookkeeping_s") is not None and r["transfer_s"] > 0]
    return max(shares) if shares else None


def _population_stddev(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def confidence_interval(values: Sequence[float]) -> Optional[list[float]]:
    """The 95% confidence interval of the mean (Student's t, sample standard deviation), or None
    for fewer than two values."""
    if len(values) < 2 or any(math.isinf(v) for v in values):
        return None
    mean = sum(values) / len(values)
    half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return [mean - half, mean + half]


def reference_approach(approaches: Iterable[str]) -> Optional[str]:
    """`c-posix` when measured, else `raw-bytes`, else none."""
    approaches = set(approaches)
    return next((r for r in REFERENCES if r in approaches), None)


def measured_rates(phases: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, int], list[float]]:
    """(approach, op, ranks) → the aggregate MiB/s of its measured phases, in order."""
    rates: dict[tuple[str, str, int], list[float]] = {}
    for phase in phases:
        if not phase.get("warmup", False):
            rates.setdefault((phase["approach"], phase["op"], phase["ranks"]), []).append(phase["bw_mib_s"])
    return rates


def ratio_to(approach: str, reference: Optional[str], rates: Sequence[float],
             reference_rates: Optional[Sequence[float]]) -> Optional[dict[str, Any]]:
    """A row's `ratio` (stats.ratio: medians, bootstrap interval, verdict) to the reference, or
    None: for the reference itself, for a programmed approach, where the reference was not measured."""
    if reference is None or approach in (reference, *PROGRAMMED) or not reference_rates:
        return None
    found = stats.ratio(rates, reference_rates)
    return found.as_json(reference) if found else None


def summarize(phases: Iterable[Mapping[str, Any]], noise_share: float = stats.NOISY_SHARE) -> list[dict[str, Any]]:
    """Statistics over the measured repetitions of every fork, one row per (approach, op, ranks),
    in order of appearance.

    Warm-up phases never enter a statistic. The figure is the median, with its 95% interval
    (`median_ci95`, jiobench.model.stats) and `noisy` where that interval is wider than ±noise_share of
    it; max, min, mean, the population standard deviation and the 95% confidence interval of the
    mean stay as IOR prints them. Each row but the reference's has its `ratio` to the reference
    (c-posix, else raw-bytes) at the same op and ranks. A row is stonewalled (or short) if any of
    its measured phases was; `overran_deadline` counts its measured phases that overran their deadline.
    """
    phases = list(phases)
    groups: dict[tuple[str, str, int], list[Mapping[str, Any]]] = {}
    for phase in phases:
        group = groups.setdefault((phase["approach"], phase["op"], phase["ranks"]), [])
        if not phase.get("warmup", False):
            group.append(phase)
    rows = []
    for (approach, op, ranks), members in groups.items():
        if not members:
            continue
        rates = [p["bw_mib_s"] for p in members]
        median = statistics.median(rates)
        interval = stats.median_interval(rates)
        rows.append({
            "approach": approach,
            "op": op,
            "ranks": ranks,
            "reps": len(members),
            "forks": len({p.get("fork", 0) for p in members}),
            "bw_mib_s": {
                "max": max(rates),
                "min": min(rates),
                "mean": sum(rates) / len(rates),
                "stddev": _population_stddev(rates),
                "median": median,
                "ci95": confidence_interval(rates),
            },
            "median_ci95": list(interval) if interval else None,
            "noisy": stats.is_noisy(median, interval, noise_share),
            "seconds_mean": sum(p["seconds"] for p in members) / len(members),
            "bytes_mean": sum(p["bytes"] for p in members) / len(members),
            "stonewalled": any(p["stonewalled"] for p in members),
            "overran_deadline": sum(1 for p in members if p.get("overran_deadline_s") is not None),
            "short": any(p.get("short", False) for p in members),
            "verified": _all_verified(p["verified"] for p in members),
            "bookkeeping_share": max((p["bookkeeping_share"] for p in members
                                      if p.get("bookkeeping_share") is not None), default=None),
            # Phases in which some rank's heap array lay where a page-aligned read's copy crawls.
            "array_copy_crawls": _count_true(None if p.get("array_copy_crawls") is None else p["array_copy_crawls"] > 0
                                             for p in members),
        })
    rates_by_row = measured_rates(phases)
    reference = reference_approach(row["approach"] for row in rows)
    for row in rows:
        reference_rates = None if reference is None else rates_by_row.get((reference, row["op"], row["ranks"]))
        found = ratio_to(row["approach"], reference, rates_by_row[(row["approach"], row["op"], row["ranks"])],
                         reference_rates)
        if found:
            row["ratio"] = found
    return rows
