"""Finding, reading and checking run files (docs/run-file.md is the contract)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterable, Optional

from jiobench.model import runfile, sweepfile
from jiobench.model.runfile import READABLE_SCHEMAS, SCHEMA, SCHEMA_FAMILY

from .sweeps import examine



class ReportError(Exception):
    """A user's mistake (a path, a file, an option): one line on stderr, exit code 2."""


class _NotARunFile(ReportError):
    """A file that does not claim to be a run file: an error only when named explicitly."""


class _NotJSON(_NotARunFile):
    """Unreadable as JSON: perhaps a run file cut short, so a directory search says so."""


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
    except ValueError as err:  # a number of more digits than Python turns into an integer
        raise _NotJSON(f"{path}: not a run file: {str(err).split(':')[0]}") from None
    if not isinstance(run, dict) or "schema" not in run:
        raise _NotARunFile(f"{path}: not a run file: no 'schema' key")
    schema = run["schema"]
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_FAMILY):
        raise _NotARunFile(f"{path}: not a run file: schema {schema!r}")
    if schema not in READABLE_SCHEMAS:
        raise ReportError(f"{path}: unknown run file schema {schema!r} (this version reads "
                          f"{', '.join(READABLE_SCHEMAS)})")
    try:
        runfile.check(path, run)
    except runfile.Malformed as problem:
        raise ReportError(str(problem)) from None
    run["path"] = str(path)
    return run


def warn(message: str) -> None:
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
                    warn(f"skipping {err}")
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
                    warn(f"{run['path']}: run {run['run_id']} already read from {earlier['path']}; counted once")
                continue
            runs[run["run_id"]] = run
    ordered = sorted(runs.values(), key=lambda run: (str(run.get("started", "")), run["run_id"]))
    if not any(run["summary"] for run in ordered):
        raise ReportError("the runs hold no measured phases (empty 'summary')")
    return ordered
