"""What rank 0 makes of a round of the mpi4py ranks (jiobench.run.rank): how the JVMs' start went,
what ends the run when some rank cannot go on, and the byte count each JVM is told of a phase.

Plain functions over what every rank handed in: no MPI here.
"""
from __future__ import annotations

import contextlib
import os
from enum import IntEnum
from typing import Any, Mapping, Optional, Union

from ..exitcode import ExitCode
from . import incomplete
from .endings import complaints
from .jvm_diagnosis import error_reports, start_limit_line
from .placement import Placement, ranks_on
from .transport import NotStarted, StartLate



class RankState(IntEnum):
    """A rank's state in a round, the worse the greater: one reduction to the greatest tells every
    rank whether all go on."""
    GO = 0
    STOPPED = 1
    FAILED = 2


# A rank's state in a round and what it says of it: why it failed or stopped, None where it goes on.
RankStatus = tuple[RankState, Optional[dict[str, Any]]]


def start_failure(outcomes: list[tuple[int, str]], hosts: Placement) -> Union[NotStarted, StartLate]:
    """The event of JVMs that did not start: the same complaint from several ranks is one line;
    ranks not ready in time are named, with their hosts and what their JVMs printed."""
    late = [rank for rank, (code, _) in enumerate(outcomes) if code == ExitCode.LATE]
    if late:
        printed = next((text for code, text in outcomes if code == ExitCode.LATE and text), "")
        return StartLate(ranks_on(late, hosts), "not ready", printed, rank=late[0] if len(late) == 1 else None)
    failed = [(rank, code, message) for rank, (code, message) in enumerate(outcomes) if code != 0]
    texts = [message for _, _, message in failed]
    limit = start_limit_line(texts)
    if limit is not None:
        # A limit said once, not a dump a rank; the crash reports it left say nothing more.
        for report in error_reports(texts):
            with contextlib.suppress(OSError):
                os.unlink(report)
        return NotStarted(exit=ExitCode.FAILED, messages=[limit])
    messages, alone = complaints([(rank, message or f"exited with code {code}") for rank, code, message in failed])
    return NotStarted(exit=max(code for _, code, _ in failed), messages=messages, rank=alone)


class RunEnds(Exception):
    """A round found a rank that failed or was stopped: every rank ends the run in that round."""

    def __init__(self, ending: dict[str, Any]):
        super().__init__(ending["message"])
        self.ending = ending


def worst_ending(states: list[RankStatus]) -> dict[str, Any]:
    """What ends the run, from every rank's (state, detail): a failure says more than the stop it
    may have caused, so the first failed rank, else the first stopped one."""
    rank, (state, detail) = max(enumerate(states), key=lambda item: (item[1][0], -item[0]))
    assert detail is not None  # asked only where some rank cannot go on, and such a rank says why
    return describe_ending(rank, state, detail)


def answers_of(payloads: list[tuple[Mapping[str, Any], int]]) -> tuple[Optional[int], Optional[list[int]]]:
    """From every rank's (record, block read next) of a phase: the bytes each rank's JVM is told,
    as (one count for all, None) where every block holds the same, else (None, each rank's)."""
    moved = [record["bytes"] for record, _ in payloads]
    answers = [moved[block] for _, block in payloads]
    return (answers[0], None) if len(set(answers)) == 1 else (None, answers)


def describe_ending(rank: int, state: RankState, detail: dict[str, Any]) -> dict[str, Any]:
    if state == RankState.FAILED:
        # The runner names the phase itself where it knows it: said once.
        message = detail["message"]
        if message.startswith(detail["phase"]):
            message = message[len(detail["phase"]):].lstrip(" :").removeprefix("on ")
        return incomplete.failure(message, rank, detail["phase"], detail["when"])
    during = f" during {detail['phase']}" if detail.get("phase") else ""
    return incomplete.stop(detail["signal"], f"stopped by {detail['signal']}{during}", rank, detail.get("phase"))
