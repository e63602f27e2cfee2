"""The run file (docs/run-file.md): built by rank 0 from the gathered per-rank records."""
from __future__ import annotations

import csv
import datetime
import errno
import json
import math
import os
import secrets
from typing import Optional

from . import reduce, repetitions, stats

SCHEMA = "jiobench-run/3"
MIB = 1 << 20
PER_RANK_COLUMNS = ["approach", "op", "fork", "rep", "warmup", "rank", "host", "bytes", "transfers", "open_s",
                    "transfer_s", "close_s", "elapsed_s", "bookkeeping_s", "stonewalled", "stonewall_bytes", "stonewall_s",
                    "verified", "error", "array_page_offset", "array_copy_crawls"]


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def new_run_id() -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def phases_of(per_rank: list[dict]) -> list[dict]:
    """Reduces the records phase by phase, in the order the phases ran."""
    by_phase: dict[tuple, list[dict]] = {}
    for record in per_rank:
        by_phase.setdefault(reduce.phase_key(record), []).append(record)
    return [reduce.reduce_phase(records) for records in by_phase.values()]


def calibrate_jitter(parameters: dict, ranks: int, summary: list[dict]) -> Optional[dict]:
    """How far the run's own calibrate phases, which wait a programmed time, strayed from their
    programmed rate: the machine's noise, beside which an approach's own can be read."""
    rows = [row for row in summary if row["approach"] == "calibrate"]
    if not rows:
        return None
    programmed = parameters["calibrate_rate"] * ranks / MIB
    widest = max(stats.half_width_share(row["bw_mib_s"]["median"], row["median_ci95"]) for row in rows)
    return {"programmed_mib_s": programmed,
            "median_mib_s": {row["op"]: row["bw_mib_s"]["median"] for row in rows},
            # Half the median's interval over the median, at its widest: null with too few repetitions.
            "widest_share": widest if math.isfinite(widest) else None,
            # How far below the programmed rate its slowest phase fell.
            "slowest_share": max(1 - row["bw_mib_s"]["min"] / programmed for row in rows)}


def auto_block(parameters: dict, stopped: dict) -> Optional[dict]:
    """-i auto's settings and why each approach stopped adding repetitions (docs/run-file.md)."""
    if repetitions.Rule.of(parameters) is None:
        return None
    return {"ci_target": parameters["ci_target"], "time_budget_s": parameters["time_budget_s"],
            "max_reps": parameters["max_reps"], "min_reps": stats.MIN_REPS, "stopped": stopped}


def build(context: dict, per_rank: list[dict], incomplete: Optional[dict] = None,
          stopped: Optional[dict] = None) -> dict:
    """The run file's content; `incomplete` says what ended a run before all its phases ran,
    `stopped` why each approach of a run with -i auto ran no more repetitions."""
    jvm_side = context["environment"]
    parameters = context["parameters"]
    phases = phases_of(per_rank)
    rule = repetitions.Rule.of(parameters)
    summary = reduce.summarize(phases, rule.noise_share() if rule else stats.NOISY_SHARE)
    return {
        "schema": SCHEMA,
        "run_id": context.get("run_id") or new_run_id(),
        "started": context["started"],
        "finished": now(),
        "incomplete": incomplete,
        "warnings": context.get("warnings", []),
        "parameters": context["parameters"],
        "environment": {
            "command_line": context["command_line"],
            "launcher": context["launcher"],
            "ranks": context["ranks"],
            "hosts": sorted(context["ranks_per_host"]),
            "ranks_per_host": context["ranks_per_host"],
            "jvm": jvm_side["jvm"],
            "mpi": context["mpi"],
            "os": jvm_side["os"],
            "cpu": jvm_side.get("cpu"),
            "filesystem": jvm_side["filesystem"],
            "slurm": context.get("slurm"),
        },
        "noise": {"load_average": context.get("load_average"), "calibrate": calibrate_jitter(parameters, context["ranks"], summary)},
        "auto": auto_block(parameters, stopped or {}),
        "phases": phases,
        "summary": summary,
        "per_rank": [{column: record.get(column) for column in PER_RANK_COLUMNS} for record in per_rank],
    }


def exists(run_id: str, results_dir: str) -> bool:
    """Whether a run of that name is in the results directory already."""
    return os.path.exists(os.path.join(results_dir, run_id + ".json"))


def _write_new(path: str, fill) -> None:
    """Writes a file that must not exist yet, whole or not at all: a temporary file beside it,
    then a link to the final name, which fails rather than replace another run's file."""
    temporary = f"{path}.{secrets.token_hex(4)}.tmp"
    try:
        with open(temporary, "x", newline="") as out:
            fill(out)
        try:
            os.link(temporary, path)
        except OSError as no_link:
            # File systems without hard links: rename, which is atomic too, after a last look.
            if no_link.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP) or os.path.exists(path):
                raise
            os.rename(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def write(run: dict, results_dir: str) -> str:
    """Writes <run-id>.ranks.csv and then <run-id>.json, each atomically and never over an
    existing file; returns the JSON's path."""
    os.makedirs(results_dir, exist_ok=True)
    stem = os.path.join(results_dir, run["run_id"])

    def fill_csv(out):
        writer = csv.DictWriter(out, fieldnames=PER_RANK_COLUMNS)
        writer.writeheader()
        writer.writerows(run["per_rank"])

    def fill_json(out):
        json.dump(run, out, indent=1)
        out.write("\n")

    _write_new(stem + ".ranks.csv", fill_csv)
    _write_new(stem + ".json", fill_json)
    return stem + ".json"
