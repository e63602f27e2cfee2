"""Rank 0's duties over the per-rank records of a run, whichever way its ranks were launched.

The mpi4py launcher feeds the records it gathers; the MPJ Express path feeds the JSON lines its
rank 0 prints. Either way this prints the header and a progress line per phase, applies the one
reduction (`jiobench.reduce`), and writes the run file and the summary at the end.
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from typing import Mapping, Optional, Sequence, TextIO

from ..model import reduce, repetitions, runfile
from . import table


def failure(message: str, rank: Optional[int] = None, phase: Optional[str] = None, when: str = "during") -> dict:
    """What ended a run early when a rank failed, as the run file's `incomplete` holds it."""
    return {"reason": "failed", "signal": None, "rank": rank, "phase": phase, "when": when if phase else None,
            "message": message}


def stop(signal: Optional[str], message: str, rank: Optional[int] = None, phase: Optional[str] = None) -> dict:
    """What ended a run early when it was stopped (a signal, its MPI launcher gone)."""
    return {"reason": "stopped", "signal": signal, "rank": rank, "phase": phase, "when": "during" if phase else None,
            "message": message}


def ending_line(incomplete: dict, completed: int) -> str:
    """The one line that says why a run ended early and what it kept."""
    if incomplete["reason"] == "failed" and incomplete["rank"] is not None:
        what = f"rank {incomplete['rank']} failed {incomplete['when']} {incomplete['phase']}: {incomplete['message']}"
    else:
        what = incomplete["message"]
    return f"jiobench: {what}; the run file keeps the {completed} phase{'' if completed == 1 else 's'} completed before"


class Collector:
    """Collects a run's phases as they end and writes its run file once."""

    def __init__(self, context: dict, out: TextIO = sys.stdout):
        self.context = context
        self.out = out
        self.records: list[dict] = []
        self.phases: list[dict] = []
        # Why the run file is not where it was asked for, when it is not.
        self.misplaced: Optional[str] = None
        self.rule = repetitions.Rule.of(context["parameters"])
        self.stopped: dict[str, dict] = {}  # -i auto: why each approach ran no more repetitions
        # -i auto's budget: the wall time each approach's phases cost, each from the end of the one before.
        self.spent: Counter = Counter()
        self.last_phase_end: Optional[float] = None

    def another_repetition(self, fork: int, approaches: Sequence[str]) -> list[str]:
        """-i auto: which of the approaches a JVM still runs go on, from the phases so far."""
        going = []
        for approach in approaches:
            reason = repetitions.why_stop(self.rule, self.phases, approach, fork, self.spent[approach])
            if reason is None:
                going.append(approach)
            elif reason != repetitions.FORK_PART:
                self.stopped[approach] = repetitions.stopped(self.phases, approach, reason, self.spent[approach])
        return going

    def forks_to_add(self) -> list[str]:
        """-i auto with forks: one more fork ("FORK:APPROACH-INDEX") of each approach that its forks
        so far left short of a reason to stop."""
        if self.rule is None or self.rule.forks < 2 or not self.phases:
            return []
        fork = 1 + max(phase["fork"] for phase in self.phases)
        return [f"{fork}:{index}" for index, approach in enumerate(self.context["parameters"]["approaches"])
                if approach not in self.stopped]

    def start(self) -> None:
        print(table.run_header(self.context), file=self.out, flush=True)
        self.last_phase_end = time.monotonic()

    def phase(self, records: Sequence[Mapping]) -> dict:
        """One phase's records from every rank: reduced, printed, kept."""
        phase = reduce.reduce_phase(records, self.context["parameters"].get("deadline_s"))
        now = time.monotonic()
        self.spent[phase["approach"]] += now - (self.last_phase_end or now)
        self.last_phase_end = now
        self.records.extend(dict(record) for record in records)
        self.phases.append(phase)
        print(table.progress_line(phase), file=self.out, flush=True)
        return phase

    def finish(self, incomplete: Optional[dict] = None) -> str:
        """Writes the run file (marked incomplete, with what stopped it, when given) and prints the
        summary and the run file's path, the last line of a run's output. The file is written
        before anything is printed: the output may be gone (a killed mpirun took it)."""
        run = runfile.build(self.context, self.records, incomplete, self.stopped)
        path = self.write(run)
        try:
            if incomplete is not None:
                print(ending_line(incomplete, len(self.phases)), file=sys.stderr, flush=True)
            if self.misplaced:
                print(f"jiobench: error: {self.misplaced}", file=sys.stderr, flush=True)
            if path is None:
                json.dump(run, sys.stderr)
                print(file=sys.stderr, flush=True)
            print(file=self.out)
            print(table.summary_table(run["summary"]), file=self.out)
            notes = table.summary_notes(run["summary"], run["auto"], run["noise"])
            if notes:
                print(notes, file=self.out)
            print(path or "", file=self.out, flush=True)
        except OSError:
            pass  # the output is gone; the run file is where self.misplaced says
        return path

    def write(self, run: dict) -> Optional[str]:
        """Writes the run file where it was asked for; where it cannot (the file system full or gone
        since the run was checked), in a new directory of the temporary directory; where neither
        can hold it, nowhere, and self.misplaced says the JSON follows on standard error. A run's
        measurements go somewhere, and the user is told where."""
        results = self.context["parameters"]["results"]
        try:
            return runfile.write(run, results)
        except OSError as problem:
            first = f"cannot write the run file in {results} ({problem.strerror or problem})"
        try:
            refuge = tempfile.mkdtemp(prefix="jiobench-run-file-")
            try:
                path = runfile.write(run, refuge)
            except OSError:
                shutil.rmtree(refuge, ignore_errors=True)
                raise
        except OSError as problem:
            self.misplaced = (f"{first}, nor in {tempfile.gettempdir()} ({problem.strerror or problem}): "
                              "its JSON follows on standard error")
            return None
        self.misplaced = f"{first}: written to {path}"
        return path
