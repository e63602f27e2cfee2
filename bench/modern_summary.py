"""Prints what bench/modern.sh measured, from its run files: each run's medians with ratios to
c-posix and c-swap and its targets, then, for each target, at how many of the points it was met,
within noise or missed, with the ratios where it was missed.

    python bench/modern_summary.py [--summary-only] RUN.json...    (the runs of one or more bench/modern.sh)

A target holds for write and for read apart, at each point (one run) on its own, and is judged by
the ratio's 95% interval as bench/ratios.py judges it: met where the whole interval lies at or above
the fraction, missed where it lies below, within noise where it holds it. Big-endian files need a
conversion on x86, so there the typed approaches are held to c-swap, C converting a typed array;
little-endian files need none, so there they are held to c-posix, the limit of pure I/O.
"""
from __future__ import annotations

import argparse
import sys

from jiobench.model import stats
from ratios import (MET, MISSED, WITHIN_NOISE, environment_line, load_runs, ratio_text, table, target_ratios,
                    target_verdict, targets)

TARGETS = {"big": ["bulk-jni=0.95*c-swap", "ffm-pread=0.95*c-swap", "ffm=0.95*c-swap", "nio-bulk=0.95*c-swap"],
           "little": ["nio-bulk=0.95*c-posix", "ffm=0.95*c-posix", "ffm-pread=0.95*c-posix"]}
REFERENCES = ["c-posix", "c-swap"]
# With a little-endian file on x86 c-swap converts nothing and runs c-posix's code: the two side by
# side show how far apart the same code lands in these runs, the spread every target is read against.
SAME_CODE = "c-swap=1*c-posix"
# A line of ratios holds this many, so that it fits a README's code block.
RATIOS_A_LINE = 3


def byte_order(run: dict) -> str:
    return run["parameters"].get("byte_order") or "big"


def view(run: dict) -> str:
    """The storage view (fsync'd writes, dropped caches), where the disk decides, or the page cache's."""
    return "storage" if run["parameters"].get("fsync") else "page cache"


def tally(runs: list[dict]) -> list[tuple[str, int, list[tuple[str, dict[str, str]]], list[tuple[str, list[dict]]]]]:
    """By byte order, JDK and view: how many points, each target's 'N met, N within noise, N missed'
    points per op, and the ratios of the points where it was missed."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for run in runs:
        groups.setdefault((byte_order(run), run["environment"]["jvm"]["version"], view(run)), []).append(run)
    found = []
    for (order, jvm, seen), measured in sorted(groups.items(), key=lambda group: group[0][2] != "page cache"):
        rows, missed = [], []
        for target in TARGETS[order]:
            approach, goal = target.split("=")
            label = f"{approach} >= {goal.replace('*', ' x ')}"
            cells = {}
            for op in ("write", "read"):
                judged = [(target_verdict(ratio, fraction), ratio) for run in measured
                          for _, what, fraction, _, ratio in target_ratios(run, [target]) if what == op]
                if judged:
                    verdicts = [verdict for verdict, _ in judged]
                    cells[op] = ", ".join(f"{verdicts.count(v)} {v}" for v in (MET, WITHIN_NOISE, MISSED, stats.UNCLEAR)
                                          if v in verdicts)
                    if MISSED in verdicts:
                        missed.append((f"{label}, {op}", [ratio for verdict, ratio in judged if verdict == MISSED]))
            if cells:
                rows.append((label, cells))
        if rows:
            found.append((f"{order}-endian, JDK {jvm}, {seen}", len(measured), rows, missed))
    return found


def ratio_lines(label: str, ratios: list[dict]) -> list[str]:
    """The label, then its ratios a few a line."""
    texts = [ratio_text(ratio) for ratio in ratios]
    return [f"    {label}:"] + [f"      {', '.join(texts[i:i + RATIOS_A_LINE])}" for i in range(0, len(texts), RATIOS_A_LINE)]


def placement_line(runs: list[dict]) -> str:
    """In how many measured phases of a heap array some rank's array lay where the kernel's copy crawls, as the runs recorded."""
    rows = [row for run in runs for row in run["summary"] if row.get("array_copy_crawls") is not None]
    crawled = sum(row["array_copy_crawls"] for row in rows)
    return (f"heap arrays 1 to 31 bytes past a page boundary, where the kernel's copy crawls: "
            f"in {crawled} of {sum(row['reps'] for row in rows)} measured phases (docs/jvm-heap.md)" if rows
            else "heap arrays' placement: not recorded")


def same_code_lines(runs: list[dict]) -> list[str]:
    """c-swap ÷ c-posix in each little-endian run, by view: the same code measured twice."""
    by_view: dict[str, dict[str, list[dict]]] = {}
    for run in runs:
        if byte_order(run) == "little":
            for _, op, _, _, ratio in target_ratios(run, [SAME_CODE]):
                by_view.setdefault(view(run), {}).setdefault(op, []).append(ratio)
    if not by_view:
        return []
    return ["  the same code twice: c-swap ÷ c-posix on little-endian files, at each point"] + [
        line for seen, ops in by_view.items() for op, ratios in ops.items() for line in ratio_lines(f"{seen}, {op}", ratios)]


def summary(runs: list[dict]) -> list[str]:
    groups = tally(runs)
    if not groups:
        return ["No target's approach and reference were measured in one run."]
    width = max(len(label) for _, _, rows, _ in groups for label, _ in rows)
    cell = max(len(text) for _, _, rows, _ in groups for _, cells in rows for text in cells.values())
    lines = [f"Targets over {len(runs)} runs, at each point by the ratio's 95% interval: met (all of it at or above",
             "the target), within noise (it holds the target), missed (all of it below)",
             f"  {environment_line(runs)}",
             f"  {placement_line(runs)}",
             f"  {'target':<{width + 2}}  {'write':<{cell}}  read"]
    for heading, points, rows, _ in groups:
        lines.append(f"  {heading}, {points} points")
        lines += [f"    {label:<{width}}  {cells.get('write', '-'):<{cell}}  {cells.get('read', '-')}".rstrip()
                  for label, cells in rows]
    missed = [line for heading, _, _, points in groups if points
              for line in [f"  missed, {heading}:"] + [text for label, ratios in points
                                                        for text in ratio_lines(label, ratios)]]
    return lines + missed + same_code_lines(runs)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summary-only", action="store_true", help="the targets' tally alone, not each run's table")
    parser.add_argument("runs", nargs="+", help="run JSON files of bench/modern.sh")
    options = parser.parse_args(argv)
    runs = load_runs(options.runs)
    if not options.summary_only:
        for run in runs:
            print("\n".join(table(run, REFERENCES) + targets(run, TARGETS[byte_order(run)])))
            print()
    print("\n".join(summary(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
