"""Prints a piece-size sweep from run files: for each rank count, each approach's median MiB/s at
each piece size and the ratio of each size to the default of 1 MiB, with its 95% interval and
verdict (bench/ratios.py). The repetitions of every run of one approach, size and rank count (one
run per round) are pooled. c-posix, which has no piece, ran in every run: its row, by the piece
size of the runs it ran beside, shows how far apart the runs land of their own accord.

    python bench/pieces.py RUN.json...     (runs made by bench/pieces.sh)
"""
from __future__ import annotations

import statistics
import sys
from collections import defaultdict

from jiobench.model.text import ratio_text
from ratios import aligned, load_runs, ratio, readable, run_rates

# The option that sets each approach's piece, and the one that chooses bulk-jni's read path.
PIECE_OPTIONS = {"c-swap": "piece-size", "nio-bulk": "piece-size", "ffm": "piece-size", "ffm-pread": "piece-size",
                 "bulk-jni": "chunk-size"}
# What every size is compared with: the approaches' default piece.
DEFAULT_PIECE = 1 << 20
CONTROL = "c-posix"


def size_label(size: int) -> str:
    return f"{size >> 20}MiB" if size >= 1 << 20 else f"{size >> 10}KiB"


def pooled(runs: list[dict]) -> dict[int, dict[tuple[str, str], dict[int, list[float]]]]:
    """ranks → (approach label, op) → piece size → the MiB/s of the measured phases of all its runs."""
    found: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for run in runs:
        options = run["parameters"]["approach_options"]
        # bench/pieces.sh gives every approach of a run the same piece: c-posix's row goes by it too.
        size = next(options[approach][option] for approach, option in PIECE_OPTIONS.items() if approach in options)
        for (approach, op), rates in run_rates(run).items():
            if approach == CONTROL:
                label = f"{CONTROL} (no piece)"
            elif approach == "bulk-jni":
                label = f"{approach} in-place={options[approach]['in-place']}"
            elif approach in PIECE_OPTIONS:
                label = approach
            else:
                continue
            found[run["environment"]["ranks"]][(label, op)][size] += rates
    return found


def table(ranks: int, by_row: dict[tuple[str, str], dict[int, list[float]]], runs: list[dict]) -> list[str]:
    sizes = sorted({size for cells in by_row.values() for size in cells})
    others = [size for size in sizes if size != DEFAULT_PIECE]
    rounds = len(runs) // max(1, len({(r["environment"]["ranks"], str(r["parameters"]["approach_options"]))
                                      for r in runs}))
    rows = [["approach", "op", *(size_label(s) for s in sizes),
             *(f"{size_label(s)} ÷ {size_label(DEFAULT_PIECE)}" for s in others)]]
    for (label, op), cells in sorted(by_row.items()):
        approach = label.split()[0]
        rows.append([label, op, *(readable(statistics.median(cells[s])) if s in cells else "-" for s in sizes),
                     *(ratio_text(ratio(approach, cells.get(s), approach, cells.get(DEFAULT_PIECE))) for s in others)])
    return [f"{ranks} rank(s), -b {runs[0]['parameters']['block_size'] >> 20}MiB -t 4MiB, page-cache view, big-endian, "
            f"JVM {runs[0]['environment']['jvm']['version']}:",
            f"  median MiB/s by piece size over the measured reps of {rounds} run(s) each, and ratios to "
            f"{size_label(DEFAULT_PIECE)}"] + aligned(rows, "<<" + ">" * len(sizes) + "<" * len(others))


def main(argv: list[str]) -> int:
    runs = load_runs(argv)
    print("\n\n".join("\n".join(table(ranks, by_row, runs)) for ranks, by_row in sorted(pooled(runs).items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
