"""A sweep's directory as other tools read it: its manifest (DIR/sweep.json, docs/sweep.md) and
whether each point's run file is complete. `jiobench sweep` writes the manifest; `jiobench
report` reads it to know which points were expected."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
from pathlib import Path
from typing import Callable, Iterator, Optional

# The run file's checks of a key's value, which a manifest's keys share.
from .runfile import Malformed, _check, _list_of, _number, _object, _one_of, _optional, _text

SCHEMA = "jiobench-sweep/1"
MANIFEST = "sweep.json"
LOCK = ".sweep.lock"
# Held by the one `jiobench sweep` that makes or resumes the sweep, as long as it works on it.
WORKING = ".sweep.working"

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


def _string(value):
    return None if isinstance(value, str) else "a text"


def _name(value):
    """A point id: a run id (`jiobench run --run-id`) and part of the names of its files."""
    return None if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", value) else \
        "a name of letters, digits, '.', '_' and '-'"


def _vary(value):
    return None if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()) else \
        "an object of option: value"


# What every reader of a sweep needs of a point (a report names each point, its job and its run
# file), and what `jiobench sweep` itself needs besides, to run a point again (docs/sweep.md).
POINT_KEYS = {"id": _name, "procs": _number(1, True), "nodes": _optional(_number(1, True)), "vary": _vary,
              "state": _text, "exit_code": _optional(_text), "job_id": _optional(_text), "run_file": _text}
SWEEP_POINT_KEYS = {"java": _optional(_text), "jvm_args": _string, "launcher": _optional(_text),
                    "runner_args": _list_of(_string), "file": _text, "parameters": _object, "script": _text,
                    "mode": _one_of(None, "submit", "allocation", "here"), "attempts": _list_of(_object)}
SWEEP_KEYS = {"command_line": _list_of(_string), "launcher": _text, "launcher_args": _string, "slurm": _object}
REPORT_KEYS = {"job_id": _text, "state": _text, "exit_code": _optional(_text)}


def check(path: Path, manifest: dict, whole: bool) -> None:
    """Raises SweepError, naming the file and the key, where the manifest does not hold what
    docs/sweep.md says; `whole`: every key `jiobench sweep` writes, which it needs to go on."""
    top = {"points": lambda value: None if isinstance(value, list) else "a list",
           "report": _optional(_object), **(SWEEP_KEYS if whole else {})}
    for key, expected in top.items():
        if key not in manifest and (whole or key == "points"):
            raise SweepError(f"{path} lacks {key}")
        problem = expected(manifest[key]) if key in manifest else None
        if problem:
            raise SweepError(f"{path}: {key} is {json.dumps(manifest[key])}, expected {problem}")
    try:
        if manifest.get("report"):
            _check(f"{path}: report", manifest["report"], REPORT_KEYS)
        for index, point in enumerate(manifest["points"]):
            where = f"{path}: points[{index}]"
            _check(where, point, {**POINT_KEYS, **(SWEEP_POINT_KEYS if whole else {})}, SWEEP_POINT_KEYS)
            # The sweep moves a point's run file aside and writes its script: in DIR, named by the point.
            for key, expected in (("run_file", f"results/{point['id']}.json"),
                                  ("script", f"jobs/{point['id']}.sbatch")):
                if key in point and point[key] != expected:
                    raise Malformed(f"{where}.{key} is {json.dumps(point[key])}, expected {json.dumps(expected)}")
    except Malformed as problem:
        raise SweepError(str(problem)) from None


def read(directory: Path, whole: bool = False) -> dict:
    """The manifest, checked (`check`): what a report reads, or with `whole` everything the sweep
    wrote."""
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepError(f"{directory}: not a sweep (no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as problem:
        raise SweepError(f"{path}: cannot read the sweep's manifest ({problem})") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        raise SweepError(f"{path}: not a manifest of schema {SCHEMA}")
    check(path, manifest, whole)
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


@contextlib.contextmanager
def working(directory: Path) -> Iterator[None]:
    """Held by the one `jiobench sweep` that makes or resumes the sweep, for all the time it works
    on it: a second one is refused (SweepError) rather than run the same points again. The lock
    file holds the holder's PID, which the refusal names. File systems without locks go unlocked."""
    try:
        descriptor = os.open(directory / WORKING, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as problem:
        raise SweepError(f"{directory}: cannot open its lock file {WORKING} ({problem.strerror})") from None
    with os.fdopen(descriptor, "r+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = lock.read().strip()
            raise SweepError(f"another jiobench sweep{f' (PID {holder})' if holder.isdigit() else ''} is working on "
                             f"{directory}: wait until it ends") from None
        except OSError:
            pass
        lock.truncate(0)  # a holder killed before its end left its PID
        lock.write(str(os.getpid()))
        lock.flush()
        try:
            yield
        finally:
            lock.truncate(0)  # a PID read later is always the holder's


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
