"""Prints a piece-size sweep from run files: for each rank count, each approach's median MiB/s
and its ratio to the c-posix of the same run, one column per piece size.

    python bench/pieces.py RUN.json...     (runs made by bench/pieces.sh)
"""
from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict

from ratios import medians, readable

# The option that sets each approach's piece, and the one that chooses bulk-jni's read path.
PIECE_OPTIONS = {"c-swap": "piece-size", "nio-bulk": "piece-size", "ffm": "piece-size", "ffm-pread": "piece-size",
                 "bulk-jni": "chunk-size"}


def size_label(size: int) -> str:
    return f"{size >> 20}MiB" if size >= 1 << 20 else f"{size >> 10}KiB"


def rows(runs: list[dict]) -> dict[int, dict[tuple[str, str], dict[int, str]]]:
    """ranks → (approach label, op) → piece size → 'MiB/s (ratio)': the median over the runs of
    that piece size (one per round) of each run's median, and of its ratio to that run's c-posix."""
    found: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for run in runs:
        options = run["parameters"]["approach_options"]
        median = medians(run)
        for (approach, op), rate in median.items():
            if approach not in PIECE_OPTIONS:
                continue
            label = approach
            if approach == "bulk-jni":
                label += " in-place=" + options[approach]["in-place"]
            size = options[approach][PIECE_OPTIONS[approach]]
            found[run["environment"]["ranks"]][(label, op)][size].append((rate, rate / median[("c-posix", op)]))
    return {ranks: {row: {size: f"{readable(statistics.median(r for r, _ in pairs))} "
                                f"({statistics.median(q for _, q in pairs):.2f})"
                          for size, pairs in cells.items()}
                    for row, cells in by_row.items()}
            for ranks, by_row in found.items()}


def main(argv: list[str]) -> int:
    runs = []
    for path in argv:
        with open(path) as f:
            runs.append(json.load(f))
    for ranks, by_row in sorted(rows(runs).items()):
        sizes = sorted({size for cells in by_row.values() for size in cells})
        jvm = runs[0]["environment"]["jvm"]["version"]
        rounds = len(runs) // max(1, len({(r["environment"]["ranks"], str(r["parameters"]["approach_options"]))
                                          for r in runs}))
        print(f"{ranks} rank(s), -b {runs[0]['parameters']['block_size'] >> 20}MiB -t 4MiB, page-cache view, "
              f"big-endian, JVM {jvm}: median MiB/s (÷ c-posix of the same run) by piece size, median of "
              f"{rounds} run(s) each")
        print(f"  {'approach':<26} {'op':<5}" + "".join(f"{size_label(s):>15}" for s in sizes))
        for (label, op), cells in sorted(by_row.items()):
            print(f"  {label:<26} {op:<5}" + "".join(f"{cells.get(s, '-'):>15}" for s in sizes))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
