"""The run file (docs/run-file.md): built by rank 0 from the gathered per-rank records."""
from __future__ import annotations

import csv
import datetime
import errno
import json
import os
import secrets
from typing import Optional

from . import reduce

SCHEMA = "jiobench-run/2"
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


def build(context: dict, per_rank: list[dict], incomplete: Optional[dict] = None) -> dict:
    """The run file's content; `incomplete` says what ended a run before all its phases ran."""
    jvm_side = context["environment"]
    phases = phases_of(per_rank)
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
        "phases": phases,
        "summary": reduce.summarize(phases),
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
