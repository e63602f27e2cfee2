"""The table of bench/scale.sh: what a rank costs as the rank count grows, from each run's files.

    bench/scale.py RUN.json|DIR...   (each run with RUN.traffic.json beside it, as bench/scale.sh keeps
                                      it; a directory stands for the runs in it, and its collector.json,
                                      where it holds one, for bench/scale_collector.py's measurements)

A row a run, in rank order: its ranks and nodes, its phases, the MPI bytes all ranks sent per phase
(Open MPI's monitor: the collectives and the heartbeats, start and end included) and what the
collectives brought rank 0, the peak memory of the process that wrote the run file (rank 0's
launcher), the time from a phase's last rank ending to the next phase's barrier (median and
largest, between the phases of one JVM: a JVM's start is not between two of its phases), and the
sizes of the run's JSON and of its per-rank file, that one also per rank and phase.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import scale_collector

TRAFFIC = ".traffic.json"
COLLECTOR = "collector.json"  # bench/scale_collector.py --keep
COLUMNS = ("ranks", "nodes", "phases", "MPI B/phase", "to rank 0 B/phase", "rank 0 peak MiB",
           "between phases ms (median, max)", "load at end", "JSON B", "per-rank B", "B/rank-phase")


def between_phases(phases: list[dict]) -> list[float]:
    """Seconds from each phase's last rank ending to the next phase's barrier, within one JVM."""
    return [later["began_at"] - earlier["ended_at"] for earlier, later in zip(phases, phases[1:])
            if (earlier["fork"], earlier["approach"]) == (later["fork"], later["approach"])
            and earlier.get("ended_at") is not None and later.get("began_at") is not None]


def load_at_end(run: dict) -> str:
    """The busiest host's 1-minute load average as the run ended: how crowded its cores were."""
    loads = (run["noise"].get("load_average") or {}).get("end") or {}
    return f"{max(load[0] for load in loads.values()):.0f}" if loads else "-"


def row(run_path: Path) -> tuple:
    run = json.loads(run_path.read_text())
    traffic = json.loads(run_path.with_suffix(TRAFFIC).read_text())
    phases = run["phases"]
    gaps = between_phases(phases)
    per_rank = run_path.parent / run["per_rank_file"] if run.get("per_rank_file") else None
    per_rank_bytes = per_rank.stat().st_size if per_rank else None
    sent = traffic["collective_bytes"] + traffic["point_to_point_bytes"]
    return (run["environment"]["ranks"], len(run["environment"]["ranks_per_host"]), len(phases),
            f"{sent / len(phases):,.0f}", f"{traffic['rank_0_received_bytes'] / len(phases):,.0f}",
            f"{run['writer']['peak_rss_bytes'] / 2 ** 20:.0f}",
            f"{statistics.median(gaps) * 1e3:.0f}, {max(gaps) * 1e3:.0f}" if gaps else "-", load_at_end(run),
            f"{run_path.stat().st_size:,}", f"{per_rank_bytes:,}" if per_rank_bytes else "-",
            f"{per_rank_bytes / run['per_rank_rows']:.1f}" if per_rank_bytes else "-")


def table(rows: list[tuple]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(COLUMNS, *rows)]
    return "\n".join("  ".join(str(cell).rjust(width) for cell, width in zip(line, widths))
                     for line in [COLUMNS, *rows])


def run_files(args: list[str]) -> list[Path]:
    paths = []
    for arg in map(Path, args):
        paths += ([path for path in arg.glob("*.json") if not path.name.endswith(TRAFFIC) and path.name != COLLECTOR]
                  if arg.is_dir() else [arg])
    return paths


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    paths = run_files(args)
    if not paths:
        print("usage: bench/scale.py RUN.json|DIR...", file=sys.stderr)
        return 2
    rows = sorted((row(path) for path in paths), key=lambda cells: (cells[0], cells[1]))
    print(table(rows))
    for simulated in (Path(arg) / COLLECTOR for arg in args if (Path(arg) / COLLECTOR).is_file()):
        print("\nrank 0's collector alone, fed synthetic records of -a all (bench/scale_collector.py):")
        print(scale_collector.HEADER)
        for measured in json.loads(simulated.read_text()):
            print(scale_collector.line(measured))
    return 0


if __name__ == "__main__":
    sys.exit(main())
