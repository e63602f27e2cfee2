"""Rank 0's collector at scale, without JVMs or MPI: synthetic records of RANKS ranks for PHASES
phases, fed phase by phase to jiobench's Collector as the launcher feeds them, which reduces them,
appends them to the per-rank file and writes the run file at the end. For each rank count it
prints rank 0's peak memory (ru_maxrss), the seconds the collector took (not those spent making
the records), the per-rank file's bytes per rank and phase, and the JSON run file's size, which
must not grow with the rank count.

    python bench/scale_collector.py [--phases 1000] [--keep FILE] [RANKS ...]    (default: 1000 10000)

Each rank count runs in a process of its own, so that its peak memory is its own. --keep writes
the measurements as JSON (docs/runs/scale/collector.json), which bench/scale.py prints again.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

from jiobench.model import perrank, runfile
from jiobench.run import collect
from jiobench.run.progress import Printer

RANKS_PER_HOST = 64
BLOCK = 256 << 20
TRANSFER = 1 << 20
# The approaches of `-a all`, each with the time a phase of it takes (s) and whether a deadline
# stops its phases short, as the stream approaches' are: then every rank moved bytes of its own.
APPROACHES = {"calibrate": (0.25, False), "raw-bytes": (0.3, False), "data-stream": (5.0, True),
              "buffered-data-stream": (0.9, False), "byte-buffer": (0.35, False), "nio-bulk": (0.3, False),
              "mapped": (0.4, False), "object-stream": (5.0, True), "random-access": (5.0, True),
              "bulk-random-access": (0.3, False), "ffm": (0.3, False), "direct-buffer": (0.3, False),
              "c-posix": (0.25, False), "c-swap": (0.3, False), "c-stdio": (0.4, False), "channel": (0.3, False)}
DEADLINE_S = 0.5


def synthetic_phases(ranks: int, phases: int, seed: int = 1) -> Iterator[list[dict]]:
    """`phases` phases of `ranks` records each, one phase at a time as a run's JVMs report them
    (never the run's records at once): every approach's write and read, repetition after
    repetition. Each rank's times vary about its phase's, one rank in a thousand straggles, and
    times come from a nanosecond clock as the runner takes them."""
    generator = random.Random(seed)
    hosts = [f"node{rank // RANKS_PER_HOST:05d}" for rank in range(ranks)]
    names = list(APPROACHES)
    for index in range(phases):
        approach = names[index // 2 % len(names)]
        op = ("write", "read")[index % 2]
        rep = index // (2 * len(names))
        typical_s, stopped_short = APPROACHES[approach]
        phase_s = typical_s * generator.lognormvariate(0, 0.1)
        native = approach.startswith("c-")
        records = []
        for rank in range(ranks):
            took_s = phase_s * generator.lognormvariate(0, 0.05) * (generator.uniform(1.5, 3)
                                                                   if generator.random() < 0.001 else 1)
            opened = int(generator.lognormvariate(-8.5, 0.5) * 1e9)
            moving = int((min(took_s, DEADLINE_S) if stopped_short else took_s) * 1e9)
            transferred = opened + moving
            elapsed = transferred + int(generator.lognormvariate(-9, 0.5) * 1e9)
            moved = int(BLOCK * min(1.0, DEADLINE_S / took_s)) // 4 * 4 if stopped_short else BLOCK
            records.append({
                "approach": approach, "op": op, "fork": 1, "rep": rep, "warmup": rep < 2, "rank": rank,
                "host": hosts[rank], "bytes": moved, "transfers": moved // TRANSFER, "open_s": opened / 1e9,
                "transfer_s": transferred / 1e9 - opened / 1e9, "close_s": elapsed / 1e9 - transferred / 1e9,
                "elapsed_s": elapsed / 1e9, "bookkeeping_s": generator.lognormvariate(-9, 0.2),
                "stalled_s": 0.0,
                "stonewalled": stopped_short and moved < BLOCK, "stonewall_bytes": None, "stonewall_s": None,
                "verified": None, "error": None, "array_page_offset": None if native else 16,
                "array_copy_crawls": None if native else True,
            })
        yield records


def context(ranks: int, results: str) -> dict:
    """What a run of `-a all` on `ranks` ranks tells its collector besides the records."""
    hosts = -(-ranks // RANKS_PER_HOST)
    per_host = {f"node{host:05d}": min(RANKS_PER_HOST, ranks - host * RANKS_PER_HOST) for host in range(hosts)}
    return {
        "parameters": {"approaches": list(APPROACHES), "block_size": BLOCK, "transfer_size": TRANSFER, "segments": 1,
                       "repetitions": 31, "type": "byte", "deadline_s": DEADLINE_S, "results": results,
                       "calibrate_rate": 1 << 30, "forks": 1, "warmup": 2},
        "environment": {"jvm": {"name": "OpenJDK 64-Bit Server VM", "version": "17"}, "os": "Linux",
                        "filesystem": {"path": "/scratch", "type": "lustre"}},
        "ranks": ranks, "ranks_per_host": per_host, "launcher": "srun", "command_line": ["jiobench", "run"],
        "mpi": {"library": "Open MPI 5.0"}, "started": runfile.now(), "run_id": f"scale-{ranks}",
    }


HEADER = "  ranks  phases   seconds  peak RSS MiB  per-rank file (B)  B per rank-phase  JSON (B)"


def line(measured: dict) -> str:
    return (f"{measured['ranks']:>7,} {measured['phases']:>7,} {measured['seconds']:>9.1f} "
            f"{measured['peak_rss_bytes'] / 2 ** 20:>13,.0f} {measured['per_rank_bytes']:>17,} "
            f"{measured['per_rank_bytes'] / (measured['ranks'] * measured['phases']):>16.1f} "
            f"{measured['json_bytes']:>11,}")


def measure(ranks: int, phases: int) -> dict:
    """One rank count, in this process. The seconds are the collector's (reduction, per-rank file,
    run file), apart from the making of the records."""
    with tempfile.TemporaryDirectory(prefix="jiobench-scale-") as results, open(os.devnull, "w") as quiet:
        collector = collect.Collector(context(ranks, results), Printer(quiet))
        collecting = 0.0
        for records in synthetic_phases(ranks, phases):
            started = time.monotonic()
            collector.phase(records)
            collecting += time.monotonic() - started
        started = time.monotonic()
        path = Path(collector.finish())
        collecting += time.monotonic() - started
        per_rank = path.with_name(path.name.removesuffix(".json") + perrank.SUFFIX).stat().st_size
        return {"ranks": ranks, "phases": phases, "seconds": collecting,
                "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                "per_rank_bytes": per_rank, "json_bytes": path.stat().st_size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ranks", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--phases", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="write the measurements to this JSON file")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: one rank count
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.ranks[0], args.phases)), flush=True)
        return
    print(HEADER, flush=True)
    kept = []
    for ranks in args.ranks:
        child = subprocess.run([sys.executable, __file__, "--one", "--phases", str(args.phases), str(ranks)],
                               check=True, capture_output=True, text=True)
        kept.append(json.loads(child.stdout))
        print(line(kept[-1]), flush=True)
    if args.keep:
        args.keep.write_text(json.dumps(kept, indent=1) + "\n")


if __name__ == "__main__":
    main()
