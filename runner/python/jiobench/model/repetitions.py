"""`-i auto`: whether an approach runs another measured repetition, decided from every rank's
phases (the slowest rank's time is each phase's), the same for all ranks.

An approach goes on until the 95% interval of its median (jiobench.model.stats) is within the target
for every op it measures, or it has `max_reps` measured repetitions, or its share of the time
budget is spent: the run's budget over its approaches, in the wall time its phases cost rank 0
from the end of the phase before (so its JVMs' start, its verification, its warm-up count too). Before any of that it runs `stats.MIN_REPS`, the fewest with an interval at all.
With `--forks N` > 1 the repetitions come in forks, as JMH's do, since JVMs differ from one another
as much as repetitions do: each fork runs its part of that minimum (MIN_REPS / N), and where the N
forks leave an approach short of its target, the launcher adds forks of it, a round at a time.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from . import stats

TARGET, BUDGET, MAX_REPS = "target", "budget", "max-reps"
# Not a reason to stop the approach: this fork's part is done, the next fork goes on.
FORK_PART = "fork-part"
REASONS = {TARGET: "its interval reached the target", BUDGET: "its share of the time budget was spent",
           MAX_REPS: "it reached --max-reps"}


@dataclass(frozen=True)
class Rule:
    ci_target: float
    time_budget_s: float
    max_reps: int
    forks: int  # the run's --forks; 0 counts as one
    approaches: int

    @staticmethod
    def of(parameters: Mapping[str, Any]) -> Optional["Rule"]:
        """The rule of a run's parameters, or None where it ran a count of repetitions."""
        if parameters.get("repetitions") != "auto":
            return None
        return Rule(parameters["ci_target"], parameters["time_budget_s"], parameters["max_reps"],
                    max(parameters["forks"], 1), len(parameters["approaches"]))

    @property
    def fork_part(self) -> int:
        """The repetitions each fork runs."""
        return math.ceil(stats.MIN_REPS / self.forks)

    @property
    def budget_share_s(self) -> float:
        return self.time_budget_s / self.approaches

    def noise_share(self) -> float:
        """What a row must reach not to be noisy: a row that stopped short of the target is noisy."""
        return min(stats.NOISY_SHARE, self.ci_target)


def can_have_intervals(parameters: Mapping[str, Any]) -> bool:
    """Whether a run of these parameters can measure an approach the stats.MIN_REPS times an
    interval needs: -i auto, or its repetitions times its forks."""
    return bool(parameters["repetitions"] == "auto"
                or parameters["repetitions"] * max(parameters["forks"], 1) >= stats.MIN_REPS)


def widest_share(measured: Sequence[Mapping[str, Any]]) -> float:
    """The largest half-width of an op's median interval, as a share of that median."""
    by_op: dict[str, list[float]] = {}
    for phase in measured:
        by_op.setdefault(phase["op"], []).append(phase["bw_mib_s"])
    return max(stats.half_width_share(statistics.median(rates), stats.median_interval(rates))
               for rates in by_op.values())


def repetitions_of(measured: Sequence[Mapping[str, Any]]) -> int:
    return len({(phase.get("fork", 0), phase["rep"]) for phase in measured})


def why_stop(rule: Rule, phases: Sequence[Mapping[str, Any]], approach: str, fork: int,
             spent_s: float) -> Optional[str]:
    """None when `approach` runs another repetition in `fork`, else why it does not; `spent_s` is
    the wall time the approach has cost so far."""
    measured = [phase for phase in phases if phase["approach"] == approach and not phase.get("warmup", False)]
    reps = repetitions_of(measured)
    in_fork = repetitions_of([phase for phase in measured if phase.get("fork", 0) == fork])
    if reps >= rule.max_reps:
        return MAX_REPS
    if in_fork < rule.fork_part:
        return None
    if reps < stats.MIN_REPS:
        return FORK_PART  # later forks bring the rest of the minimum
    if widest_share(measured) <= rule.ci_target:
        return TARGET
    if spent_s >= rule.budget_share_s:
        return BUDGET
    return FORK_PART if rule.forks > 1 else None


def stopped(phases: Sequence[Mapping[str, Any]], approach: str, reason: str, spent_s: float) -> dict[str, Any]:
    """What the run file says of an approach that stopped (docs/run-file.md, `auto`)."""
    measured = [phase for phase in phases if phase["approach"] == approach and not phase.get("warmup", False)]
    widest = widest_share(measured)
    return {"reason": reason, "reps": repetitions_of(measured), "seconds": spent_s,
            "widest_share": widest if math.isfinite(widest) else None}
