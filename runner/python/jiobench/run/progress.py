"""What a run prints on standard output as it goes (jiobench.run.table's text): its header, a line
a phase as it ends, and the summary with the run file's path, the last line of a run's output. The
rank that writes the run file is handed a Printer; every other rank a Silent one, until it writes
in the stead of ranks lost."""
from __future__ import annotations

from typing import Any, Mapping, Optional, TextIO

from . import table


class Printer:
    """Prints the run's progress lines to `out`, each as soon as it is known (None: Silent's)."""

    def __init__(self, out: Optional[TextIO]):
        self.out = out

    def header(self, context: Mapping[str, Any]) -> None:
        print(table.run_header(context), file=self.out, flush=True)

    def phase(self, phase: Mapping[str, Any]) -> None:
        print(table.progress_line(phase), file=self.out, flush=True)

    def summary(self, run: Mapping[str, Any], path: Optional[str]) -> None:
        """The summary table and its notes, then the run file's path (an empty line where it was
        written nowhere)."""
        print(file=self.out)
        print(table.summary_table(run["summary"]), file=self.out)
        notes = table.summary_notes(run["summary"], run["auto"], run["noise"])
        if notes:
            print(notes, file=self.out)
        print(path or "", file=self.out, flush=True)


class Silent(Printer):
    """The printer of a rank that does not write the run file: it prints nothing."""

    def __init__(self) -> None:
        super().__init__(None)

    def header(self, context: Mapping[str, Any]) -> None:
        pass

    def phase(self, phase: Mapping[str, Any]) -> None:
        pass

    def summary(self, run: Mapping[str, Any], path: Optional[str]) -> None:
        pass
