"""A sweep's directory as other tools read it: its manifest (DIR/sweep.json, docs/sweep.md) and
whether each point's run file is complete. `jiobench sweep` writes the manifest; `jiobench
report` reads it to know which points were expected."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
from pathlib import Path
from typing import Callable, Iterator, Optional

SCHEMA = "jiobench-sweep/1"
MANIFEST = "sweep.json"
LOCK = ".sweep.lock"

COMPLETE, INCOMPLETE, MISSING, UNREADABLE = "complete", "incomplete", "missing", "unreadable"
# A point's state is Slurm's word for its job (RENDERED before it is submitted). These have yet to end:
ACTIVE = frozenset({"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING",
                    "REQUEUE_HOLD", "REQUEUE_FED", "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD"})
# and these are the ends a reader must not miss.
BAD = frozenset({"FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
                 "PREEMPTED"})


class SweepError(Exception):
    """A directory that is not a sweep, or a manifest that cannot be read."""


def is_sweep(directory: Path) -> bool:
    """Whether the directory holds a sweep's manifest (another tool's sweep.json is none)."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(manifest, dict) and str(manifest.get("schema", "")).startswith("jiobench-sweep/")


def read(directory: Path) -> dict:
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepError(f"{directory}: not a sweep (no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as problem:
        raise SweepError(f"{path}: cannot read the sweep's manifest ({problem})") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        raise SweepError(f"{path}: not a manifest of schema {SCHEMA}")
    return manifest


def write(directory: Path, manifest: dict) -> None:
    """Replaces the manifest whole: a reader never sees half of it."""
    temporary = directory / f".{MANIFEST}.{secrets.token_hex(4)}.tmp"
    temporary.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, directory / MANIFEST)


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Serialises read-modify-write of the manifest between the commands that change it (a
    status in the report job, a resume by hand). File systems without locks go unlocked."""
    with open(directory / LOCK, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
        except OSError:
            pass
        yield


def update(directory: Path, change: Callable[[dict], None]) -> dict:
    """Reads the manifest, applies `change` to it and writes it back, under the lock."""
    with locked(directory):
        manifest = read(directory)
        change(manifest)
        write(directory, manifest)
        return manifest


def run_file_state(path: Path) -> tuple[str, Optional[str]]:
    """(COMPLETE, None), (INCOMPLETE, what ended the run), (MISSING, None) or (UNREADABLE, why):
    only a run file that ran every phase makes its point complete."""
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return MISSING, None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as problem:
        return UNREADABLE, str(problem)
    if not isinstance(run, dict) or "phases" not in run:
        return UNREADABLE, "not a run file"
    ended = run.get("incomplete")
    if ended:
        if isinstance(ended, dict):
            ended = ", ".join(f"{key} {value}" for key, value in ended.items())
        return INCOMPLETE, str(ended)
    return COMPLETE, None


def exit_text(state: str, code: Optional[str]) -> str:
    """A job's exit code as Slurm's `2:0` is read: `2`; `0:15`: `sig 15`; none before it ends."""
    if code is None or state in ACTIVE or state == "RENDERED":
        return "-"
    status, _, signal_number = str(code).partition(":")
    return f"sig {signal_number}" if signal_number not in ("", "0") else status


def point_run_file(directory: Path, point: dict) -> Path:
    return directory / point["run_file"]


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def point_label(point: dict) -> str:
    """The point's parameters in a few words: `4 procs, 1 node, -t 4MiB`."""
    words = [plural(point["procs"], "proc")]
    if point.get("nodes"):
        words.append(plural(point["nodes"], "node"))
    words += [f"{name} {value}" for name, value in point.get("vary", {}).items()]
    return ", ".join(words)
