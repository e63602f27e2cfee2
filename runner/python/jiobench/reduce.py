"""The one reduction of per-rank timings to aggregate figures.

Every number a table, a plot or a comparison shows comes from here: the launcher applies
`reduce_phase` as phases finish and `summarize` at the end of a run; the analysis applies
`summarize` again only to pool phases of several runs, never a formula of its own.
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping, Optional, Sequence

MIB = 1024 * 1024


def bandwidth_mib_s(total_bytes: int, seconds: float) -> float:
    """Aggregate MiB/s: all ranks' bytes over the slowest rank's time since the barrier."""
    return total_bytes / MIB / seconds if seconds > 0 else math.inf


def _all_verified(flags: Iterable[Optional[bool]]) -> Optional[bool]:
    """True if every rank verified its data, False if any failed, None if nobody checked."""
    flags = list(flags)
    if any(flag is None for flag in flags):
        return None
    return all(flags)


def reduce_phase(records: Sequence[Mapping]) -> dict:
    """One phase (approach x op x repetition) from the records of all its ranks."""
    if not records:
        raise ValueError("a phase needs at least one rank's record")
    first = records[0]
    for record in records:
        if (record["approach"], record["op"], record["rep"]) != (first["approach"], first["op"], first["rep"]):
            raise ValueError("records of different phases cannot be reduced together")
    total_bytes = sum(r["bytes"] for r in records)
    slowest = max(r["elapsed_s"] for r in records)
    return {
        "approach": first["approach"],
        "op": first["op"],
        "rep": first["rep"],
        "ranks": len(records),
        "bytes": total_bytes,
        "transfers": sum(r["transfers"] for r in records),
        "seconds": slowest,
        "first_done_s": min(r["elapsed_s"] for r in records),
        "bw_mib_s": bandwidth_mib_s(total_bytes, slowest),
        "stonewalled": any(r["stonewalled"] for r in records),
        "verified": _all_verified(r["verified"] for r in records),
    }


def _population_stddev(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def summarize(phases: Iterable[Mapping]) -> list[dict]:
    """Statistics over repetitions, one row per (approach, op, ranks), in order of appearance.

    Max, min, mean and the population standard deviation of the aggregate bandwidth, as IOR
    prints them; a row is stonewalled if any of its phases was.
    """
    groups: dict[tuple, list[Mapping]] = {}
    for phase in phases:
        groups.setdefault((phase["approach"], phase["op"], phase["ranks"]), []).append(phase)
    rows = []
    for (approach, op, ranks), members in groups.items():
        rates = [p["bw_mib_s"] for p in members]
        rows.append({
            "approach": approach,
            "op": op,
            "ranks": ranks,
            "reps": len(members),
            "bw_mib_s": {
                "max": max(rates),
                "min": min(rates),
                "mean": sum(rates) / len(rates),
                "stddev": _population_stddev(rates),
            },
            "seconds_mean": sum(p["seconds"] for p in members) / len(members),
            "bytes_mean": sum(p["bytes"] for p in members) / len(members),
            "stonewalled": any(p["stonewalled"] for p in members),
            "verified": _all_verified(p["verified"] for p in members),
        })
    return rows
