"""Prints what bench/modern.sh measured, from its run files: each run's medians with ratios to
c-posix and c-swap and its targets, then, for each target, at how many of the points it was met,
with the ratios where it was not.

    python bench/modern_summary.py [--summary-only] RUN.json...    (the runs of one or more bench/modern.sh)

A target holds for write and for read apart: the approach's median reaches the fraction of the
reference's median in the same run. Big-endian files need a conversion on x86, so there the
typed approaches are held to c-swap, C converting a typed array; little-endian files need none, so
there they are held to c-posix, the limit of pure I/O.
"""
from __future__ import annotations

import argparse
import sys

from ratios import environment_line, load_runs, readable_ratio, table, target_ratios, targets

TARGETS = {"big": ["bulk-jni=0.95*c-swap", "ffm-pread=0.95*c-swap", "ffm=0.95*c-swap", "nio-bulk=0.95*c-swap"],
           "little": ["nio-bulk=0.95*c-posix", "ffm=0.95*c-posix", "ffm-pread=0.95*c-posix"]}
REFERENCES = ["c-posix", "c-swap"]
# With a little-endian file on x86 c-swap converts nothing and runs c-posix's code: the two side by
# side show how far apart the same code lands in these runs, the spread every target is read against.
SAME_CODE = "c-swap=1*c-posix"


def byte_order(run: dict) -> str:
    return run["parameters"].get("byte_order") or "big"


def view(run: dict) -> str:
    """The storage view (fsync'd writes, dropped caches), where the disk decides, or the page cache's."""
    return "storage" if run["parameters"].get("fsync") else "page cache"


def tally(runs: list[dict]) -> list[tuple[str, dict[str, str]]]:
    """(target, byte order, JDK, view) → op → 'N of M' points met, and the ratios where it was not."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for run in runs:
        groups.setdefault((byte_order(run), run["environment"]["jvm"]["version"], view(run)), []).append(run)
    rows = []
    for (order, jvm, seen), measured in sorted(groups.items(), key=lambda group: group[0][2] != "page cache"):
        for target in TARGETS[order]:
            cells = {}
            for op in ("write", "read"):
                ratios = [(ratio, ratio >= fraction) for run in measured
                          for _, what, fraction, _, ratio in target_ratios(run, [target]) if what == op]
                if not ratios:
                    continue
                missed = sorted(ratio for ratio, met in ratios if not met)
                cells[op] = (f"{len(ratios) - len(missed)} of {len(ratios)}"
                             + (f" ({', '.join(readable_ratio(ratio) for ratio in missed)})" if missed else ""))
            if cells:
                approach, goal = target.split("=")
                rows.append((f"{approach} >= {goal.replace('*', ' x ')}, {order}-endian, JDK {jvm}, {seen}", cells))
    return rows


def placement_line(runs: list[dict]) -> str:
    """In how many measured phases of a heap array some rank's array lay where the kernel's copy crawls, as the runs recorded."""
    rows = [row for run in runs for row in run["summary"] if row.get("array_copy_crawls") is not None]
    crawled = sum(row["array_copy_crawls"] for row in rows)
    return (f"heap arrays 1 to 31 bytes past a page boundary, where the kernel's copy crawls: "
            f"in {crawled} of {sum(row['reps'] for row in rows)} measured phases (docs/jvm-heap.md)" if rows
            else "heap arrays' placement: not recorded")


def same_code_line(runs: list[dict]) -> list[str]:
    """c-swap ÷ c-posix in each little-endian run, by view: the same code measured twice."""
    by_view: dict[str, dict[str, list[float]]] = {}
    for run in runs:
        if byte_order(run) == "little":
            for _, op, _, _, ratio in target_ratios(run, [SAME_CODE]):
                by_view.setdefault(view(run), {}).setdefault(op, []).append(ratio)
    return [f"  the same code twice (c-swap ÷ c-posix, little-endian), {seen}: "
            + "; ".join(f"{op} {', '.join(readable_ratio(r) for r in ratios)}" for op, ratios in ops.items())
            for seen, ops in by_view.items()]


def summary(runs: list[dict]) -> list[str]:
    rows = tally(runs)
    if not rows:
        return ["No target's approach and reference were measured in one run."]
    width = max(len(label) for label, _ in rows)
    cell = max(len(text) for _, cells in rows for text in cells.values())
    return [f"Targets met, over {len(runs)} runs: at how many points (ratios where not met)",
            f"  {environment_line(runs)}",
            f"  {placement_line(runs)}",
            f"  {'target':<{width}}  {'write':<{cell}}  read"] + [
        f"  {label:<{width}}  {cells.get('write', '-'):<{cell}}  {cells.get('read', '-')}".rstrip() for label, cells in rows
    ] + same_code_line(runs)


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
