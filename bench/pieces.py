"""Prints a piece-size sweep from run files: for each rank count, each approach's median MiB/s
and its ratio to the c-posix of the same run, one column per piece size.

    python bench/pieces.py RUN.json...     (runs made by bench/pieces.sh)
"""
from __future__ import annotations

import sys
from collections import defaultdict

from ratios import environment_line, load_runs, medians, readable

# The option that sets each approach's piece, and the one that chooses bulk-jni's read path.
PIECE_OPTIONS = {"c-swap": "piece-size", "nio-bulk": "piece-size", "ffm": "piece-size", "ffm-pread": "piece-size",
                 "bulk-jni": "chunk-size"}


def size_label(size: int) -> str:
    return f"{size >> 20}MiB" if size >= 1 << 20 else f"{size >> 10}KiB"


def rows(runs: list[dict]) -> dict[int, dict[tuple[str, str], dict[int, str]]]:
    """ranks → (approach label, op) → piece size → 'MiB/s (ratio)'."""
    table: dict = defaultdict(lambda: defaultdict(dict))
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
            ratio = rate / median[("c-posix", op)]
            table[run["environment"]["ranks"]][(label, op)][size] = f"{readable(rate)} ({ratio:.2f})"
    return table


def main(argv: list[str]) -> int:
    runs = load_runs(argv)
    for ranks, by_row in sorted(rows(runs).items()):
        sizes = sorted({size for cells in by_row.values() for size in cells})
        print(f"{ranks} rank(s), -b 256MiB -t 4MiB, page-cache view, big-endian:"
              f" median MiB/s (÷ c-posix of the same run) by piece size")
        print(f"  {environment_line([run for run in runs if run['environment']['ranks'] == ranks])}")
        print(f"  {'approach':<26} {'op':<5}" + "".join(f"{size_label(s):>15}" for s in sizes))
        for (label, op), cells in sorted(by_row.items()):
            print(f"  {label:<26} {op:<5}" + "".join(f"{cells.get(s, '-'):>15}" for s in sizes))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
