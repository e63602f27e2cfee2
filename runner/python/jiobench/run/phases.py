"""A run's phases as they end, on the rank that writes its run file: each reduced from every
rank's records by the one reduction (`jiobench.model.reduce`) and kept, the records not, so that
rank 0's memory does not grow with the ranks times the phases; and what -i auto decides from them
(`jiobench.model.repetitions`): whether an approach runs another repetition, which forks to add."""
from __future__ import annotations

import time
from collections import defaultdict
from typing import Any, Mapping, Optional, Sequence

from ..model import reduce, repetitions
from .launching import Fork


class Phases:
    """The phases of a run of these parameters, in the order they ended."""

    def __init__(self, parameters: Mapping[str, Any]):
        self.parameters = parameters
        self.kept: list[dict[str, Any]] = []
        self.rule = repetitions.Rule.of(parameters)
        self.stopped: dict[str, dict[str, Any]] = {}  # -i auto: why each approach ran no more repetitions
        # -i auto's budget: the wall time each approach's phases cost, each from the end of the one before.
        self.spent: defaultdict[str, float] = defaultdict(float)
        self.last_end: Optional[float] = None

    def start(self) -> None:
        """The run's first phase starts counting from now."""
        self.last_end = time.monotonic()

    def reduced(self, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """One phase's records from every rank, reduced."""
        return reduce.reduce_phase(records, self.parameters.get("deadline_s"))

    def add(self, phase: dict[str, Any]) -> None:
        """A phase that ended, charged to its approach's budget from the end of the one before."""
        now = time.monotonic()
        self.spent[phase["approach"]] += now - (self.last_end or now)
        self.last_end = now
        self.kept.append(phase)

    def another_repetition(self, fork: int, approaches: Sequence[str]) -> list[str]:
        """-i auto: which of the approaches a JVM still runs go on, from the phases so far."""
        going = []
        assert self.rule is not None  # asked under -i auto only
        for approach in approaches:
            reason = repetitions.why_stop(self.rule, self.kept, approach, fork, self.spent[approach])
            if reason is None:
                going.append(approach)
            elif reason != repetitions.FORK_PART:
                self.stopped[approach] = repetitions.stopped(self.kept, approach, reason, self.spent[approach])
        return going

    def forks_to_add(self) -> list[Fork]:
        """-i auto with forks: one more fork of each approach that its forks so far left short of a
        reason to stop."""
        if self.rule is None or self.rule.forks < 2 or not self.kept:
            return []
        number = 1 + max(phase["fork"] for phase in self.kept)
        return [Fork(number, index) for index, approach in enumerate(self.parameters["approaches"])
                if approach not in self.stopped]
