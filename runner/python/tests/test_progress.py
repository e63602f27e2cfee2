"""What a run prints as it goes (jiobench.run.progress): on the rank that writes the run file, a
line a phase as it ends and the summary, ending in the run file's path; on every other rank
nothing, the phases kept all the same."""
from __future__ import annotations

import io
import sys

from testing import HOME
from jiobench.run import collect, table
from jiobench.run.progress import Printer, Silent

sys.path.insert(0, str(HOME / "bench"))
try:
    from scale_collector import context, synthetic_phases
finally:
    sys.path.remove(str(HOME / "bench"))

RANKS, PHASES = 3, 4


def test_the_writer_prints_a_line_a_phase_then_the_summary_and_last_the_run_file_s_path(tmp_path):
    printed = io.StringIO()
    collector = collect.Collector(context(RANKS, str(tmp_path)), Printer(printed))
    phases = [collector.phase(records) for records in synthetic_phases(RANKS, PHASES)]
    path = collector.finish()
    lines = printed.getvalue().splitlines()
    assert lines[:PHASES] == [table.progress_line(phase) for phase in phases]
    assert lines[PHASES] == "" and lines[PHASES + 1].startswith("Summary of measured phases")
    assert lines[-1] == path


def test_a_rank_that_does_not_write_prints_nothing_and_keeps_the_phases(tmp_path, capsys):
    collector = collect.Collector(context(RANKS, str(tmp_path)), Silent())
    for records in synthetic_phases(RANKS, PHASES):
        collector.phase(records)
    assert collector.finish() is not None
    assert capsys.readouterr().out == "" and len(collector.phases.kept) == PHASES
