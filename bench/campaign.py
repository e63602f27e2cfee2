"""Prints how long each campaign of kept runs took on its machine, from its run files alone: for
each directory, its runs, the time from the first one's start to the last one's run file (the
bench script's own time, less what it did before its first run and after its last), and the
total of all of them: what taking every kept table again costs.

    python bench/campaign.py DIR...      (each DIR a campaign: its run files, in it or below it)
"""
from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

from ratios import aligned
from run_summary import duration


class Unreadable(Exception):
    """A JSON file of a campaign that cannot be read."""


def run_files(directory: Path) -> list[dict]:
    """The run files under the directory: JSON with a start and an end (not a sweep's manifest)."""
    runs = []
    for path in sorted(directory.rglob("*.json")):
        try:
            document = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as problem:
            raise Unreadable(f"bench/campaign.py: {path}: cannot be read as JSON ({problem})") from problem
        if isinstance(document, dict) and document.get("started") and document.get("finished"):
            runs.append(document)
    return runs


def span_seconds(runs: list[dict]) -> float:
    started = min(datetime.datetime.fromisoformat(run["started"]) for run in runs)
    finished = max(datetime.datetime.fromisoformat(run["finished"]) for run in runs)
    return (finished - started).total_seconds()


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python bench/campaign.py DIR...", file=sys.stderr)
        return 2
    rows = [["campaign", "runs", "first start to last end", "measured on"]]
    total = 0.0
    for directory in map(Path, argv):
        try:
            runs = run_files(directory)
        except Unreadable as problem:
            print(problem, file=sys.stderr)
            return 2
        if not runs:
            print(f"bench/campaign.py: {directory}: no run file", file=sys.stderr)
            return 2
        seconds = span_seconds(runs)
        total += seconds
        days = sorted({run["started"][:10] for run in runs})
        rows.append([str(directory), str(len(runs)), duration(seconds),
                     " to ".join(dict.fromkeys([days[0], days[-1]]))])
    rows.append(["all of them", str(sum(int(row[1]) for row in rows[1:])), duration(total), ""])
    print("\n".join(aligned(rows, "<><<")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
