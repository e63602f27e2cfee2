"""Run files made by hand for the edge cases a real run cannot be told to produce (a c-posix
reference next to slow approaches, stonewalled phases, failed verification), written exactly as
docs/run-file.md says, with `phases` and `summary` computed by `jiobench.model.reduce`, and the
records in a per-rank file beside the JSON (in the JSON itself for schemas before 4)."""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

from jiobench.model import perrank, runfile
from jiobench.model.reduce import MIB, reduce_phase, summarize

_counter = iter(range(1, 1_000_000))
DEADLINE_S = 5.0


def run_file(results: Path, rates_mib_s: Mapping[str, float], *, ranks: int = 2, reps: int = 3,
             transfer_size: int = MIB, buffer_size: int = 64 * 1024, block_size: int = 8 * MIB,
             spread: float = 0.02, stonewalled: tuple = (), verified: Optional[bool] = True,
             seed: int = 1, warmup: int = 0, paused: Mapping[str, float] = {},
             rep_factors: Union[Sequence[float], Mapping[str, Sequence[float]], None] = None,
             schema: str = runfile.SCHEMA, **overrides) -> Path:
    """Writes a run whose approaches move `block_size` per rank per phase at about the given
    aggregate rates (MiB/s, +- `spread` between repetitions); returns the file's path.
    Approaches named in `stonewalled` stop at their deadline after moving half the block; in the
    first measured write of an approach named in `paused`, rank 0 stops that many seconds past it
    (a JVM stopped, as SIGSTOP does).
    `warmup` repetitions come first, at a tenth of the rate; `rep_factors` scales each measured
    repetition's rate, of every approach or (a mapping) of those it names, the others keeping
    `reps` repetitions at their rate. A `schema` of "jiobench-run/3" writes a file as runs before
    the per-rank file did, "jiobench-run/2" one as runs before the median's interval and ratios
    did, "jiobench-run/1" one as runs before forks did."""
    random_ = random.Random(seed)
    number = next(_counter)
    # Each run starts a second after the one made before it, whichever minute that falls in: runs
    # are read in the order they started, which must be the order they were made.
    started = datetime(2024, 1, 2, 3, 4) + timedelta(seconds=number)
    run_id = f"{started:%Y%m%d-%H%M%S}-{number:06x}"
    by_approach = rep_factors if isinstance(rep_factors, Mapping) else {}
    factors = list(rep_factors) if rep_factors and not by_approach else [1.0] * reps
    records = []
    for approach, rate in rates_mib_s.items():
        mine = list(by_approach.get(approach, factors))
        for op in ("write", "read"):
            for rep in range(warmup + len(mine)):
                factor = 0.1 if rep < warmup else mine[rep - warmup]
                for rank in range(ranks):
                    moved = block_size // 2 if approach in stonewalled else block_size
                    elapsed = moved * ranks / MIB / (rate * factor) * (1 + random_.uniform(-spread, spread))
                    if approach in paused and (op, rep, rank) == ("write", warmup, 0):
                        elapsed = DEADLINE_S + paused[approach]
                    records.append({
                        "approach": approach, "op": op, "fork": 1, "rep": rep, "warmup": rep < warmup, "rank": rank,
                        "host": f"node{rank % 2}", "bytes": moved, "transfers": moved // transfer_size,
                        "open_s": 1e-4, "transfer_s": elapsed - 2e-4, "close_s": 1e-4,
                        "elapsed_s": elapsed, "stonewalled": approach in stonewalled,
                        "verified": verified if op == "read" else None,
                        "error": "block 0: wrong value" if verified is False and op == "read" else None,
                    })
    keys = []
    for record in records:
        if (record["approach"], record["op"], record["rep"]) not in keys:
            keys.append((record["approach"], record["op"], record["rep"]))
    deadline_s = DEADLINE_S if stonewalled or paused else None
    # The stonewalled phases made here take the time their rate gives, not the deadline's: only a
    # run with a paused rank is reduced under its deadline.
    phases = [reduce_phase([r for r in records if (r["approach"], r["op"], r["rep"]) == key],
                           deadline_s if paused else None) for key in keys]
    summary = summarize(phases)
    if runfile.version_of(schema) < 4:
        for phase in phases:
            phase.pop("straggler")
    if schema in ("jiobench-run/1", "jiobench-run/2"):
        for row in summary:
            for key in ("median_ci95", "noisy", "ratio"):
                row.pop(key, None)
    if schema == "jiobench-run/1":
        for row in records + phases:
            for key in ("fork", "warmup", "short", "overran_deadline_s"):
                row.pop(key, None)
        for row in summary:
            for key in ("forks", "short", "overran_deadline"):
                row.pop(key)
            for key in ("median", "ci95"):
                row["bw_mib_s"].pop(key)
    parameters = {
        "approaches": list(rates_mib_s), "block_size": block_size, "transfer_size": transfer_size,
        "segments": 1, "file_per_process": False, "file": "/scratch/jiobench.dat", "write": True,
        "read": True, "repetitions": len(factors), "fsync": False, "deadline_s": deadline_s,
        "reorder": False, "type": "int", "buffer_size": buffer_size, "order": "sequential", "warmup": warmup,
        "forks": 1,
        "verify": verified is not None, "seed": 42, "keep": False, "overwrite": True,
        "calibrate_rate": 64 * MIB,
    }
    parameters.update(overrides)
    run = {
        "schema": schema,
        "run_id": run_id,
        "started": f"{started:%Y-%m-%dT%H:%M:%S}Z",
        "finished": f"{started + timedelta(minutes=1):%Y-%m-%dT%H:%M:%S}Z",
        "parameters": parameters,
        "environment": {
            "command_line": ["jiobench", "run", "-n", str(ranks), "--", "-a", ",".join(rates_mib_s)],
            "launcher": "mpirun", "ranks": ranks, "hosts": sorted({r["host"] for r in records}),
            "ranks_per_host": {h: sum(1 for r in range(ranks) if f"node{r % 2}" == h)
                               for h in sorted({r["host"] for r in records})},
            "jvm": {"name": "OpenJDK 64-Bit Server VM", "vendor": "Debian", "version": "17.0.9",
                    "args": ["-Xmx1g"]},
            "mpi": {"library": "Open MPI v4.1.4", "standard": "3.1"},
            "os": "Linux 6.1.0 amd64",
            "filesystem": {"path": "/scratch", "type": "ext4", "striping": None},
        },
        "phases": phases,
        "summary": summary,
    }
    results.mkdir(parents=True, exist_ok=True)
    if runfile.version_of(schema) < 4:
        run["per_rank"] = records
    else:
        per_rank = perrank.Stream(str(results / f"{run_id}{perrank.SUFFIX}"))
        per_rank.append(records)
        per_rank.close()
        run.update(per_rank_file=f"{run_id}{perrank.SUFFIX}", per_rank_rows=len(records))
    path = results / f"{run_id}.json"
    path.write_text(json.dumps(run, indent=1), encoding="utf-8")
    return path
