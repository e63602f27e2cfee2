"""Rank 0's duties over the per-rank records of a run, whichever way its ranks were launched.

The mpi4py launcher feeds the records it gathers; the MPJ Express path feeds the JSON lines its
rank 0 prints. Either way this prints the header and a progress line per phase, applies the one
reduction (`jiobench.model.reduce`), appends the records to the per-rank file as each phase ends, and
writes the run file and the summary at the end. Rank 0 keeps the phases, not the records: its
memory does not grow with the ranks times the phases.
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import Mapping, Optional, Sequence, TextIO

from ..model import perrank, reduce, repetitions, runfile
from . import table
from .incomplete import ending_line


class Collector:
    """Collects a run's phases as they end and writes its run file once.

    The rank that writes the run file gets every phase's records (`phase`); every other rank gets
    the phase as that rank reduced it (`add_phase`), so that a rank that survives lost rank 0 can
    write the run file, without a per-rank file: the records were on rank 0."""

    def __init__(self, context: dict, out: TextIO = sys.stdout):
        # The run id names the per-rank file from the first phase on.
        self.context = context if context.get("run_id") else dict(context, run_id=runfile.new_run_id())
        self.out = out
        self.phases: list[dict] = []
        # The per-rank file while the run goes, from the first records on; why there is none where
        # it could not be written.
        self.per_rank: Optional[perrank.Stream] = None
        self.per_rank_lost: Optional[str] = None
        # Where the per-rank file could not be written before a row of it reached the file: its
        # records, up to a row group's, to go where the run file goes; None once more were lost.
        self.unwritten: Optional[list[Mapping]] = []
        self.took_records = False  # this is the rank that writes the per-rank file
        self.written = False
        # A launcher gone from under the ranks has the run file written from another thread
        # (rank.watch_parent): a phase is in both files or in neither.
        self.lock = threading.RLock()
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
        """One phase's records from every rank: reduced, appended to the per-rank file, printed;
        the phase is returned and kept, the records are not."""
        phase = reduce.reduce_phase(records, self.context["parameters"].get("deadline_s"))
        with self.lock:
            if not self.written:
                self.append_records(records)
                self.add_phase(phase)
        return phase

    def add_phase(self, phase: dict) -> None:
        """One phase as the writing rank reduced it (`phase` calls this there): kept for -i auto and
        the run file, and printed."""
        with self.lock:
            if self.written:
                return  # ended after the run file was written: in neither of its files
            now = time.monotonic()
            self.spent[phase["approach"]] += now - (self.last_phase_end or now)
            self.last_phase_end = now
            self.phases.append(phase)
        print(table.progress_line(phase), file=self.out, flush=True)

    def append_records(self, records: Sequence[Mapping]) -> None:
        """Appends the records to the per-rank file, made under a temporary name in the results
        directory with the first of them. Where it cannot be written, the run goes on without it:
        its phases are in the JSON, which finds a place of its own at the end."""
        self.took_records = True
        if self.per_rank_lost is not None:
            self.keep_unwritten(records)
            return
        try:
            if self.per_rank is None:
                self.per_rank = perrank.Stream(runfile.per_rank_temporary(self.context["run_id"],
                                                                          self.context["parameters"]["results"]))
            self.per_rank.append(records)
        except OSError as problem:
            self.lose_per_rank(problem, records)

    def lose_per_rank(self, problem: OSError, records: Sequence[Mapping] = ()) -> None:
        """The per-rank file could not be written (`records` the phase's that found it so): what it
        held is kept where none of it reached the file, and the user is told."""
        why = f"cannot write the per-rank file in {self.context['parameters']['results']} ({problem.strerror or problem})"
        self.per_rank_lost = why
        if self.per_rank is None:
            self.keep_unwritten(records)  # the file was never made
        else:
            if self.per_rank.written_rows:
                self.unwritten = None  # some are in a file that cannot be made whole
            else:
                self.keep_unwritten(self.per_rank.pending())
            self.per_rank.discard()
            self.per_rank = None
        try:
            print(f"jiobench: error: {why}; " + ("the ranks' records go where the run file goes" if self.unwritten
                  is not None else "the run file will hold the phases without the ranks' records"),
                  file=sys.stderr, flush=True)
        except OSError:
            pass  # the output is gone; the run file's warnings say it

    def keep_unwritten(self, records: Sequence[Mapping]) -> None:
        """Keeps records no file holds yet, up to a row group's: rank 0 never holds more of them."""
        if self.unwritten is not None and len(self.unwritten) + len(records) <= perrank.ROW_GROUP_ROWS:
            self.unwritten += records
        else:
            self.unwritten = None

    def finish(self, incomplete: Optional[dict] = None) -> str:
        """Writes the run file (marked incomplete, with what stopped it, when given) beside the
        per-rank file, and prints the summary and the run file's path, the last line of a run's
        output. The files are written before anything is printed: the output may be gone (a killed
        mpirun took it)."""
        with self.lock:
            self.written = True
            whole = self.close_per_rank()
            try:
                path, run = self.write(incomplete, whole)
            finally:
                if self.per_rank is not None:
                    self.per_rank.discard()  # published by a link or a copy, or lost with the JSON
                    self.per_rank = None
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

    def close_per_rank(self) -> Optional[str]:
        """The per-rank file made whole under its temporary name: its path, or None where the run
        has none."""
        if self.per_rank is None:
            return None
        try:
            self.per_rank.close()
        except OSError as problem:
            self.lose_per_rank(problem)
            return None
        return self.per_rank.path

    def why_no_per_rank(self) -> Optional[str]:
        """The warning a run file without a per-rank file carries where records were lost."""
        if self.per_rank_lost is not None:
            return f"no per-rank file: {self.per_rank_lost}"
        if not self.took_records and self.phases:
            return ("no per-rank file: the ranks' records went to rank 0, which was lost; another rank wrote "
                    "this run file from the phases rank 0 had passed on")
        return None

    def build(self, incomplete: Optional[dict], per_rank: Optional[str]) -> dict:
        rows = self.per_rank.rows if per_rank else None
        return runfile.build(self.context, self.phases, incomplete, self.stopped, rows, self.why_no_per_rank())

    def write(self, incomplete: Optional[dict], per_rank: Optional[str]) -> tuple[Optional[str], dict]:
        """Writes the run file, and the per-rank file made whole at `per_rank`, where it was asked
        for; where it cannot (the file system full or gone since the run was checked), in a new
        directory of the temporary directory, with the ranks' records that the results directory
        could not take; where neither can hold it, nowhere, and self.misplaced says the JSON
        follows on standard error. A run's measurements go somewhere, and the user is told where.
        The run file's path, and the run."""
        results = self.context["parameters"]["results"]
        run = self.build(incomplete, per_rank)
        if per_rank is None and self.unwritten:
            first = f"{self.per_rank_lost}, which the run file goes with"
        else:
            try:
                return runfile.write(run, results, per_rank), run
            except OSError as problem:
                first = f"cannot write the run file in {results} ({problem.strerror or problem})"
        try:
            refuge = tempfile.mkdtemp(prefix="jiobench-run-file-")
            try:
                if per_rank is None:
                    per_rank = self.per_rank_in(refuge)
                    run = self.build(incomplete, per_rank)
                path = runfile.write(run, refuge, per_rank)
            except OSError:
                shutil.rmtree(refuge, ignore_errors=True)
                raise
        except OSError as problem:
            self.misplaced = (f"{first}, nor in {tempfile.gettempdir()} ({problem.strerror or problem}): "
                              "its JSON follows on standard error")
            return None, run
        self.misplaced = f"{first}: written to {path}"
        return path, run

    def per_rank_in(self, directory: str) -> Optional[str]:
        """The per-rank file of the records the results directory could not take, made whole in
        `directory`: its path, or None where none were kept or it cannot be made there either."""
        if not self.unwritten:
            return None
        stream = None
        try:
            stream = perrank.Stream(runfile.per_rank_temporary(self.context["run_id"], directory))
            stream.append(self.unwritten)
            stream.close()
        except OSError:
            if stream is not None:
                stream.discard()
            return None
        self.per_rank, self.per_rank_lost = stream, None
        return stream.path
