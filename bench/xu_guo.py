"""Prints the headline comparisons of Xu and Guo's section 4 from the four preset sweeps that
bench/xu-guo.sh ran (DIR/opsize, DIR/buffer, DIR/random, DIR/jni), or from what it kept of them
(KEEP=docs/runs/xu-guo: each sweep's manifest and run files): each a ratio of medians of the
measured repetitions, with its 95% interval and verdict (bench/ratios.py), under it the paper's figure.

    python bench/xu_guo.py DIR

A ratio of two approaches comes from one point, that is one run, where every approach ran in turn;
a ratio of two operation or buffer sizes comes from two points of one sweep, run one after the
other. At one operation size a ratio of MiB/s is the ratio of operations per second.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from jiobench.model.text import ratio_text
from ratios import aligned, environment_line, ratio, run_rates

# (sweep, its point's --vary values, approach): one side of a ratio.
Side = tuple[str, dict, str]

T1 = {"-t": "1"}
BUFFER_1K = {"--buffer-size": "1KiB"}

# Heading, then (what is compared, numerator, denominator, the paper's figure).
COMPARISONS: list[tuple[str, list[tuple[str, Side, Side, str]]]] = [
    ("Java raw I/O vs C at 1-byte operations (xu-guo-random)", [
        ("sequential: raw-stream / c-posix", ("random", {"--order": "sequential", **T1}, "raw-stream"),
         ("random", {"--order": "sequential", **T1}, "c-posix"), "0.5: Java 2x slower (Fig. 4.1)"),
        ("sequential: raw-bytes / c-posix", ("random", {"--order": "sequential", **T1}, "raw-bytes"),
         ("random", {"--order": "sequential", **T1}, "c-posix"), "-"),
        ("random: raw-bytes / c-posix", ("random", {"--order": "random", **T1}, "raw-bytes"),
         ("random", {"--order": "random", **T1}, "c-posix"), "0.25: Java 4x slower (Fig. 4.3)"),
    ]),
    ("Buffering at 1-byte operations, 1 KiB buffers (xu-guo-buffer)", [
        ("buffered-stream / none (raw-stream)", ("buffer", BUFFER_1K, "buffered-stream"),
         ("buffer", BUFFER_1K, "raw-stream"), "1.33: 25% less time (Fig. 4.5)"),
        ("direct-buffering / buffered-stream", ("buffer", BUFFER_1K, "direct-buffering"),
         ("buffer", BUFFER_1K, "buffered-stream"), "1.67: 40% less again (Fig. 4.5)"),
        ("direct-buffering / none (raw-stream)", ("buffer", BUFFER_1K, "direct-buffering"),
         ("buffer", BUFFER_1K, "raw-stream"), "2.2: both together"),
        ("direct-buffering / c-stdio", ("buffer", BUFFER_1K, "direct-buffering"),
         ("buffer", BUFFER_1K, "c-stdio"), "0.33: Java 3x slower (4.4.1)"),
    ]),
    ("Larger buffers, 1-byte operations (xu-guo-buffer)", [
        ("direct-buffering 10 MiB / 1 KiB", ("buffer", {"--buffer-size": "10MiB"}, "direct-buffering"),
         ("buffer", BUFFER_1K, "direct-buffering"), "1.01-1.05 (Fig. 4.7)"),
        ("buffered-stream 10 MiB / 1 KiB", ("buffer", {"--buffer-size": "10MiB"}, "buffered-stream"),
         ("buffer", BUFFER_1K, "buffered-stream"), "-"),
        ("c-stdio 10 MiB / 1 KiB", ("buffer", {"--buffer-size": "10MiB"}, "c-stdio"),
         ("buffer", BUFFER_1K, "c-stdio"), "like Java's (Fig. 4.9)"),
    ]),
    ("Operation size, no buffer (xu-guo-opsize; MiB/s)", [
        ("raw-stream 4 KiB / 1 B", ("opsize", {"-t": "4KiB"}, "raw-stream"), ("opsize", T1, "raw-stream"),
         "6.7: 85% less time (Fig. 4.13)"),
        ("raw-stream 1 MiB / 1 B", ("opsize", {"-t": "1MiB"}, "raw-stream"), ("opsize", T1, "raw-stream"), "-"),
        ("raw-stream / c-posix at 4 KiB", ("opsize", {"-t": "4KiB"}, "raw-stream"),
         ("opsize", {"-t": "4KiB"}, "c-posix"), "about 1: C's level (4.5)"),
        ("raw-stream / c-posix at 1 MiB", ("opsize", {"-t": "1MiB"}, "raw-stream"),
         ("opsize", {"-t": "1MiB"}, "c-posix"), "-"),
    ]),
    ("One JNI call per operation vs C (xu-guo-jni)", [
        ("bulk-jni / c-posix at 1 B", ("jni", T1, "bulk-jni"), ("jni", T1, "c-posix"),
         "below C: Java's level under 4 B (Fig. 4.15)"),
        ("bulk-jni / c-posix at 64 B", ("jni", {"-t": "64"}, "bulk-jni"), ("jni", {"-t": "64"}, "c-posix"),
         "about 1: C's level past 64 B (Fig. 4.15)"),
        ("bulk-jni / c-posix at 64 KiB", ("jni", {"-t": "64KiB"}, "bulk-jni"), ("jni", {"-t": "64KiB"}, "c-posix"),
         "about 1"),
        ("bulk-jni / raw-bytes at 1 B", ("jni", T1, "bulk-jni"), ("jni", T1, "raw-bytes"), "-"),
    ]),
]


def sweep_rates(directory: Path) -> tuple[dict[tuple, list[float]], list[dict]]:
    """(point's --vary values as sorted pairs, approach, op) → the MiB/s of the point's measured
    phases; and the complete runs."""
    manifest = json.loads((directory / "sweep.json").read_text())
    found, runs = {}, []
    for point in manifest["points"]:
        path = directory / point["run_file"]
        if not path.is_file():
            continue
        run = json.loads(path.read_text())
        if run.get("incomplete"):
            continue
        runs.append(run)
        for (approach, op), rates in run_rates(run).items():
            found[(tuple(sorted(point["vary"].items())), approach, op)] = rates
    return found, runs


def side_rates(found: dict[str, dict], side: Side, op: str) -> list[float] | None:
    sweep, vary, approach = side
    return found[sweep].get((tuple(sorted(vary.items())), approach, op))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python bench/xu_guo.py DIR (the directory bench/xu-guo.sh filled)", file=sys.stderr)
        return 2
    found, runs = {}, {}
    for name in ("opsize", "buffer", "random", "jni"):
        found[name], runs[name] = sweep_rates(Path(argv[0]) / name)
    for heading, rows in COMPARISONS:
        sweep = rows[0][1][0]
        table = aligned([["ratio of medians", "write", "read"]]
                        + [[label, *(ratio_text(ratio(top[2], side_rates(found, top, op), bottom[2],
                                                      side_rates(found, bottom, op))) for op in ("write", "read"))]
                           for label, top, bottom, _ in rows], "<<<")
        print(f"{heading}\n  {environment_line(runs[sweep]) if runs[sweep] else 'no complete run'}\n{table[0]}")
        for line, (_, _, _, paper) in zip(table[1:], rows):
            print(line + ("" if paper == "-" else f"\n      paper: {paper}"))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
