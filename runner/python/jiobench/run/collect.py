"""Rank 0's duties over the per-rank records of a run, whichever way its ranks were launched.

The mpi4py launcher feeds the records it gathers; the MPJ Express path feeds the JSON lines its
rank 0 prints. Either way the collector keeps each phase as the one reduction makes it
(`jiobench.run.phases`), appends its records to the per-rank file (`jiobench.run.per_rank_file`)
and prints its line (`jiobench.run.progress`), and writes the run file at the end
(`jiobench.run.run_file_writing`), a phase in both files or in neither.
"""
from __future__ import annotations

import json
import sys
import threading
from typing import Any, Mapping, Optional, Sequence

from ..model import runfile
from . import run_file_writing
from .incomplete import ending_line
from .per_rank_file import PerRankFile
from .phases import Phases
from .progress import Printer


class Collector:
    """Collects a run's phases as they end and writes its run file once.

    The rank that writes the run file gets every phase's records (`phase`); every other rank gets
    the phase as that rank reduced it (`add_phase`), so that a rank that survives lost rank 0 can
    write the run file, without a per-rank file: the records were on rank 0. Only the rank that
    writes prints (`printer`); one that writes in the stead of ranks lost is handed a printer that
    does before its end."""

    def __init__(self, context: dict[str, Any], printer: Printer):
        # The run id names the per-rank file from the first phase on.
        self.context = context if context.get("run_id") else dict(context, run_id=runfile.new_run_id())
        self.printer = printer
        self.phases = Phases(context["parameters"])
        self.per_rank = PerRankFile(self.context["run_id"], context["parameters"]["results"])
        self.written = False
        # A launcher gone from under the ranks has the run file written from another thread
        # (rank.watch_parent): a phase is in both files or in neither.
        self.lock = threading.RLock()
        # Why the run file is not where it was asked for, when it is not.
        self.misplaced: Optional[str] = None

    def start(self) -> None:
        self.printer.header(self.context)
        self.phases.start()

    def phase(self, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """One phase's records from every rank: reduced, appended to the per-rank file, printed;
        the phase is returned and kept, the records are not."""
        phase = self.phases.reduced(records)
        with self.lock:
            if not self.written:
                self.per_rank.append(records)
                self.add_phase(phase)
        return phase

    def add_phase(self, phase: dict[str, Any]) -> None:
        """One phase as the writing rank reduced it (`phase` calls this there): kept for -i auto and
        the run file, and printed."""
        with self.lock:
            if self.written:
                return  # ended after the run file was written: in neither of its files
            self.phases.add(phase)
        self.printer.phase(phase)

    def finish(self, incomplete: Optional[dict[str, Any]] = None) -> Optional[str]:
        """Writes the run file (marked incomplete, with what stopped it, when given) beside the
        per-rank file, and prints the summary and the run file's path, the last line of a run's
        output. The files are written before anything is printed: the output may be gone (a killed
        mpirun took it)."""
        with self.lock:
            self.written = True
            written = run_file_writing.write(self.context["parameters"]["results"], self.per_rank,
                                             lambda per_rank: self.build(incomplete, per_rank))
            self.misplaced = written.misplaced
        try:
            if incomplete is not None:
                print(ending_line(incomplete, len(self.phases.kept)), file=sys.stderr, flush=True)
            if self.misplaced:
                print(f"jiobench: error: {self.misplaced}", file=sys.stderr, flush=True)
            if written.path is None:
                json.dump(written.run, sys.stderr)
                print(file=sys.stderr, flush=True)
            self.printer.summary(written.run, written.path)
        except OSError:
            pass  # the output is gone; the run file is where self.misplaced says
        return written.path

    def build(self, incomplete: Optional[dict[str, Any]], per_rank: Optional[str]) -> dict[str, Any]:
        """The run, with the per-rank file at `per_rank` where it has one."""
        rows = self.per_rank.rows if per_rank else None
        return runfile.build(self.context, self.phases.kept, incomplete, self.phases.stopped, rows,
                             self.per_rank.why_none(bool(self.phases.kept)))
