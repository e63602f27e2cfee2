"""Prints what the summaries of several run files (a sweep's points, say) judge: for each approach
and op, the range of its ratios to the reference over the runs, and how many of the runs' 95%
intervals find it faster, slower, the same or cannot tell; above them, how long the runs took.

    python bench/verdicts.py RUN.json...
"""
from __future__ import annotations

import sys
from collections import Counter

from jiobench.model import stats
from run_summary import duration, wall_seconds
from ratios import aligned, environment_line, load_runs, runs_reps

VERDICTS = (stats.SLOWER, stats.SAME, stats.FASTER, stats.UNCLEAR)


def ratio_range(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.3g}x" if f"{low:.3g}" == f"{high:.3g}" else f"{low:.3g}x to {high:.3g}x"


def table(runs: list[dict]) -> list[str]:
    judged: dict[tuple[str, str], list[dict]] = {}
    for run in runs:
        for row in run["summary"]:
            if row.get("ratio"):
                judged.setdefault((row["approach"], row["op"]), []).append(row["ratio"])
    references = sorted({ratio["to"] for ratios in judged.values() for ratio in ratios})
    rows = [["approach", "op", "ratios", "verdicts"]]
    for (approach, op), ratios in judged.items():
        counts = Counter(ratio["verdict"] for ratio in ratios)
        rows.append([approach, op, ratio_range([ratio["value"] for ratio in ratios]),
                     ", ".join(f"{verdict} {counts[verdict]} of {len(ratios)}" for verdict in VERDICTS
                               if counts[verdict])])
    seconds = [wall_seconds(run) for run in runs]
    ranks = sorted({run["environment"]["ranks"] for run in runs})
    counts = ", ".join(map(str, ranks[:-1])) + (" and " if len(ranks) > 1 else "") + str(ranks[-1])
    return [f"{len(runs)} runs at {counts} ranks, {runs_reps(runs)} a row; the runs took "
            f"{duration(sum(seconds))} together ({duration(min(seconds))} to {duration(max(seconds))} each)",
            f"  {environment_line(runs)}",
            f"  ratios of the medians to {' / '.join(references)}, and the verdicts of their 95% intervals"
            ] + aligned(rows, "<<<<")


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python bench/verdicts.py RUN.json...", file=sys.stderr)
        return 2
    print("\n".join(table(load_runs(argv))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
