"""Prints what `jiobench run` printed of a run, from its run file alone: the header, where and
when it was measured and how long it took, and the summary table of the measured phases
(jiobench's own renderers).

    python bench/run_summary.py RUN.json...
"""
from __future__ import annotations

import datetime
import sys

from jiobench.model import reduce, runfile
from jiobench.run import table
from ratios import environment_line, load_runs


def wall_seconds(run: dict) -> float:
    """The run's wall time, from its start to its run file."""
    started, finished = (datetime.datetime.fromisoformat(run[key]) for key in ("started", "finished"))
    return (finished - started).total_seconds()


def duration(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


def took(run: dict) -> str:
    return f"the run took {duration(wall_seconds(run))}"


def summary_rows(run: dict) -> list[dict]:
    """The run file's summary; for a file older than the intervals, the same reduction of its phases."""
    return run["summary"] if runfile.version_of(run["schema"]) >= 3 else reduce.summarize(run["phases"])


def run_output(run: dict) -> str:
    env = run["environment"]
    rows = summary_rows(run)
    context = {"parameters": run["parameters"], "environment": env, "ranks": env["ranks"],
               "launcher": env["launcher"], "ranks_per_host": env["ranks_per_host"], "warnings": run["warnings"]}
    notes = table.summary_notes(rows, run.get("auto"), run.get("noise"))
    return "\n".join([table.run_header(context).rstrip("\n"), f"  {environment_line([run])}; {took(run)}", "",
                      table.summary_table(rows), *([notes] if notes else [])])


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python bench/run_summary.py RUN.json...", file=sys.stderr)
        return 2
    print("\n\n".join(run_output(run) for run in load_runs(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
