"""The per-rank file as the rank that writes the run file makes it (`jiobench.model.perrank.Stream`):
each phase's records appended as the phase ends, under a temporary name in the results directory,
made whole at the end for the run file to publish beside it. Where it cannot be written the run
goes on without it; the records none of it reached, up to a row group's, go where the run file goes."""
from __future__ import annotations

import sys
from typing import Any, Mapping, Optional, Sequence

from ..model import perrank, runfile


class PerRankFile:
    """The per-rank file of run `run_id` in the `results` directory, from the first records on."""

    def __init__(self, run_id: str, results: str):
        self.run_id = run_id
        self.results = results
        self.stream: Optional[perrank.Stream] = None
        # Why there is none where it could not be written.
        self.lost: Optional[str] = None
        # Where it could not be written before a row of it reached the file: its records, up to a
        # row group's, to go where the run file goes; None once more were lost.
        self.unwritten: Optional[list[Mapping[str, Any]]] = []
        self.took_records = False  # this is the rank that writes the per-rank file

    @property
    def rows(self) -> int:
        assert self.stream is not None  # asked only of the file that close() made whole
        return self.stream.rows

    def append(self, records: Sequence[Mapping[str, Any]]) -> None:
        """Appends the records, made under a temporary name in the results directory with the first
        of them. Where it cannot be written, the run goes on without it: its phases are in the
        JSON, which finds a place of its own at the end."""
        self.took_records = True
        if self.lost is not None:
            self.keep_unwritten(records)
            return
        try:
            if self.stream is None:
                self.stream = perrank.Stream(runfile.per_rank_temporary(self.run_id, self.results))
            self.stream.append(records)
        except OSError as problem:
            self.lose(problem, records)

    def lose(self, problem: OSError, records: Sequence[Mapping[str, Any]] = ()) -> None:
        """The file could not be written (`records` the phase's that found it so): what it held is
        kept where none of it reached the file, and the user is told."""
        why = f"cannot write the per-rank file in {self.results} ({problem.strerror or problem})"
        self.lost = why
        if self.stream is None:
            self.keep_unwritten(records)  # the file was never made
        else:
            if self.stream.written_rows:
                self.unwritten = None  # some are in a file that cannot be made whole
            else:
                self.keep_unwritten(self.stream.pending())
            self.stream.discard()
            self.stream = None
        try:
            print(f"jiobench: error: {why}; " + ("the ranks' records go where the run file goes" if self.unwritten
                  is not None else "the run file will hold the phases without the ranks' records"),
                  file=sys.stderr, flush=True)
        except OSError:
            pass  # the output is gone; the run file's warnings say it

    def keep_unwritten(self, records: Sequence[Mapping[str, Any]]) -> None:
        """Keeps records no file holds yet, up to a row group's: rank 0 never holds more of them."""
        if self.unwritten is not None and len(self.unwritten) + len(records) <= perrank.ROW_GROUP_ROWS:
            self.unwritten += records
        else:
            self.unwritten = None

    def close(self) -> Optional[str]:
        """The file made whole under its temporary name: its path, or None where the run has none."""
        if self.stream is None:
            return None
        try:
            self.stream.close()
        except OSError as problem:
            self.lose(problem)
            return None
        return self.stream.path

    def discard(self) -> None:
        """The temporary file goes, once the run file published it by a link or a copy, or was lost
        with it."""
        if self.stream is not None:
            self.stream.discard()
            self.stream = None

    def why_none(self, phases_kept: bool) -> Optional[str]:
        """The warning a run file without a per-rank file carries where records were lost."""
        if self.lost is not None:
            return f"no per-rank file: {self.lost}"
        if not self.took_records and phases_kept:
            return ("no per-rank file: the ranks' records went to rank 0, which was lost; another rank wrote "
                    "this run file from the phases rank 0 had passed on")
        return None

    def made_in(self, directory: str) -> Optional[str]:
        """The file of the records the results directory could not take, made whole in `directory`:
        its path, or None where none were kept or it cannot be made there either."""
        if not self.unwritten:
            return None
        stream = None
        try:
            stream = perrank.Stream(runfile.per_rank_temporary(self.run_id, directory))
            stream.append(self.unwritten)
            stream.close()
        except OSError:
            if stream is not None:
                stream.discard()
            return None
        self.stream, self.lost = stream, None
        return stream.path
