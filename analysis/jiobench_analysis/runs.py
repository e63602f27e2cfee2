"""Finding, reading and checking run files (docs/run-file.md is the contract)."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Iterable, Optional

from jiobench.model import stats, sweepfile

from .sweeps import examine

SCHEMA = "jiobench-run/3"
# Version 1 (before forks and warm-up) still loads: its phases are fork 0, none of them warm-up.
# Versions 1 and 2 (before the median's interval and ratios) get those from their phases.
READABLE_SCHEMAS = ("jiobench-run/1", "jiobench-run/2", SCHEMA)
SCHEMA_FAMILY = "jiobench-run/"


class ReportError(Exception):
    """A user's mistake (a path, a file, an option): one line on stderr, exit code 2."""


class _NotARunFile(ReportError):
    """A file that does not claim to be a run file: an error only when named explicitly."""


class _NotJSON(_NotARunFile):
    """Unreadable as JSON: perhaps a run file cut short, so a directory search says so."""


# What each key of a run file must hold (docs/run-file.md). A check is a function of the value that
# returns what was expected when the value is wrong, else None; keys marked optional came later
# than schema 1 or are informative only.
def _number(low: float = 0.0, whole: bool = False):
    def check(value):
        kinds = (int,) if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value) or value < low:
            return f"{'a whole' if whole else 'a finite'} number of at least {low:g}"
        return None
    return check


def _text(value):
    return None if isinstance(value, str) and value else "a non-empty text"


def _flag(value):
    return None if isinstance(value, bool) else "true or false"


def _optional(check):
    return lambda value: None if value is None else check(value)


def _one_of(*choices):
    return lambda value: None if value in choices else " or ".join(map(repr, choices))


def _either(*checks):
    def check(value):
        problems = [one(value) for one in checks]
        return None if None in problems else " or ".join(problems)
    return check


def _object(value):
    return None if isinstance(value, dict) else "an object"


def _list_of(check):
    def checked(value):
        if not isinstance(value, list):
            return "a list"
        return next((f"a list of {problem}" for problem in map(check, value) if problem), None)
    return checked


def _interval(value):
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2 or any(_number(-math.inf)(v) for v in value):
        return "null or [low, high]"
    return None


WHOLE, RATE, SECONDS = _number(whole=True), _number(), _number()
RUN_KEYS = {"schema": _text, "run_id": _text, "parameters": None, "environment": None, "phases": None,
            "summary": None}
PARAMETER_KEYS = {"approaches": _list_of(_text), "block_size": _number(1, True), "transfer_size": _number(1, True),
                  "segments": _number(1, True), "repetitions": _number(1, True), "type": _text}
# From schema 3 on, `-i auto` leaves the count to the runner, which writes it in each summary row.
AUTO_PARAMETER_KEYS = {**PARAMETER_KEYS, "repetitions": _either(_number(1, True), _one_of("auto"))}
ENVIRONMENT_KEYS = {"ranks": _number(1, True), "hosts": _list_of(_text), "launcher": _text}
PHASE_KEYS = {"approach": _text, "op": _one_of("write", "read"), "rep": WHOLE, "ranks": _number(1, True),
              "bytes": WHOLE, "seconds": SECONDS, "bw_mib_s": RATE, "stonewalled": _flag,
              "verified": _optional(_flag)}
LATER_PHASE_KEYS = {"fork": WHOLE, "warmup": _flag, "short": _flag, "first_done_s": SECONDS, "transfers": WHOLE}
SUMMARY_KEYS = {"approach": _text, "op": _one_of("write", "read"), "ranks": _number(1, True),
                "reps": _number(1, True), "bw_mib_s": None, "stonewalled": _flag, "verified": _optional(_flag)}
LATER_SUMMARY_KEYS = {"forks": WHOLE, "short": _flag, "seconds_mean": SECONDS, "bytes_mean": RATE,
                      "median_ci95": _interval, "noisy": _flag, "ratio": _optional(_object)}
STATISTICS = {"max": RATE, "min": RATE, "mean": RATE, "stddev": RATE}
LATER_STATISTICS = {"median": RATE, "ci95": _interval}
RATIO_KEYS = {"to": _text, "value": RATE, "ci95": _interval,
              "verdict": _one_of(stats.FASTER, stats.SLOWER, stats.SAME, stats.UNCLEAR)}


def _check(where: str, mapping, required: dict, later: Optional[dict] = None) -> None:
    """Every required key present and right, every later key right where present."""
    if not isinstance(mapping, dict):
        raise ReportError(f"{where} is not an object")
    missing = [key for key in required if key not in mapping]
    if missing:
        raise ReportError(f"{where} lacks {', '.join(missing)}")
    for key, check in [*required.items(), *(later or {}).items()]:
        if check is None or key not in mapping:
            continue
        problem = check(mapping[key])
        if problem:
            raise ReportError(f"{where}.{key} is {json.dumps(mapping[key])}, expected {problem}")


def _check_run(path: Path, run: dict) -> None:
    _check(str(path), run, RUN_KEYS, {key: _optional(_object) for key in ("incomplete", "noise", "auto")})
    _check(f"{path}: parameters", run["parameters"], AUTO_PARAMETER_KEYS if run["schema"] == SCHEMA else PARAMETER_KEYS)
    _check(f"{path}: environment", run["environment"], ENVIRONMENT_KEYS,
           {"ranks_per_host": lambda v: None if isinstance(v, dict) and not any(_number(1, True)(c) for c in v.values())
            else "an object of host: rank count"})
    for name, required, later in (("phases", PHASE_KEYS, LATER_PHASE_KEYS), ("summary", SUMMARY_KEYS, LATER_SUMMARY_KEYS)):
        rows = run[name]
        if not isinstance(rows, list):
            raise ReportError(f"{path}: '{name}' is not a list")
        for index, row in enumerate(rows):
            _check(f"{path}: {name}[{index}]", row, required, later)
            if name == "summary":
                _check(f"{path}: {name}[{index}].bw_mib_s", row["bw_mib_s"], STATISTICS, LATER_STATISTICS)
                if row.get("ratio") is not None:
                    _check(f"{path}: {name}[{index}].ratio", row["ratio"], RATIO_KEYS)


def load_run(path: Path) -> dict:
    """One run file, checked against the schema; ReportError says what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ReportError(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}") from None
    try:
        run = json.loads(text)
    except json.JSONDecodeError as err:
        raise _NotJSON(f"{path}: not a run file: invalid JSON, line {err.lineno}: {err.msg}") from None
    if not isinstance(run, dict) or "schema" not in run:
        raise _NotARunFile(f"{path}: not a run file: no 'schema' key")
    schema = run["schema"]
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_FAMILY):
        raise _NotARunFile(f"{path}: not a run file: schema {schema!r}")
    if schema not in READABLE_SCHEMAS:
        raise ReportError(f"{path}: unknown run file schema {schema!r} (this version reads "
                          f"{', '.join(READABLE_SCHEMAS)})")
    _check_run(path, run)
    run["path"] = str(path)
    return run


def _warn(message: str) -> None:
    print(f"jiobench report: warning: {message}", file=sys.stderr)


def _sweep_runs(directory: Path) -> list[dict]:
    """The complete run files of a sweep's points (its manifest names them), nothing else: an
    earlier, incomplete attempt set aside by --resume is not a point of the figures."""
    try:
        paths, _ = examine(directory)
    except sweepfile.SweepError as problem:
        raise ReportError(str(problem)) from None
    if not paths:
        raise ReportError(f"{directory}: no point of this sweep has a complete run file yet "
                          f"(jiobench sweep status {directory} says why)")
    return [load_run(path) for path in paths]


def load_runs(inputs: Iterable[str]) -> list[dict]:
    """All runs named by `inputs`: run files, or directories searched recursively for `*.json`.

    A file named explicitly must be a run file. A sweep's directory (jiobench sweep) gives the
    complete run files of its points. Inside another directory, JSON files that are not run
    files are skipped, but a run file of another schema version or a broken one is an error.
    Runs are returned in the order they started; a run reached twice counts once.
    """
    inputs = list(inputs)
    if not inputs:
        raise ReportError("no run files given")
    runs: dict[str, dict] = {}
    for name in inputs:
        path = Path(name)
        if path.is_dir() and sweepfile.is_sweep(path):
            found = _sweep_runs(path)
        elif path.is_dir():
            found = []
            for candidate in sorted(path.rglob("*.json")):
                try:
                    found.append(load_run(candidate))
                except _NotJSON as err:
                    _warn(f"skipping {err}")
                except _NotARunFile:
                    continue
            if not found:
                raise ReportError(f"{path}: no run files (*.json with schema {SCHEMA}) in this directory")
        elif path.exists():
            found = [load_run(path)]
        else:
            raise ReportError(f"{path}: no such file or directory")
        for run in found:
            earlier: Optional[dict] = runs.get(run["run_id"])
            if earlier is not None:
                if Path(earlier["path"]).resolve() != Path(run["path"]).resolve():
                    _warn(f"{run['path']}: run {run['run_id']} already read from {earlier['path']}; counted once")
                continue
            runs[run["run_id"]] = run
    ordered = sorted(runs.values(), key=lambda run: (str(run.get("started", "")), run["run_id"]))
    if not any(run["summary"] for run in ordered):
        raise ReportError("the runs hold no measured phases (empty 'summary')")
    return ordered
