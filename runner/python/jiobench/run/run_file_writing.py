"""The run file written with its per-rank file where the run was asked to write them; where they
cannot be (the file system full or gone since the run was checked), in a new directory of the
temporary directory, with the ranks' records that the results directory could not take; where
neither can hold it, nowhere, and its JSON follows on standard error. A run's measurements go
somewhere, and the user is told where."""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..model import runfile
from .per_rank_file import PerRankFile


@dataclass(frozen=True)
class Written:
    """Where the run file went: its path (None where nowhere), the run it holds, and why it is not
    where it was asked for (None where it is)."""
    path: Optional[str]
    run: dict[str, Any]
    misplaced: Optional[str] = None


def write(results: str, per_rank: PerRankFile, build: Callable[[Optional[str]], dict[str, Any]]) -> Written:
    """Writes the run that `build` makes (given the path of the per-rank file that goes with it, or
    None), with the per-rank file made whole, in `results` or in a place of its own."""
    whole = per_rank.close()
    try:
        return placed(results, per_rank, whole, build)
    finally:
        per_rank.discard()  # published by a link or a copy, or lost with the JSON


def placed(results: str, per_rank: PerRankFile, whole: Optional[str],
           build: Callable[[Optional[str]], dict[str, Any]]) -> Written:
    run = build(whole)
    if whole is None and per_rank.unwritten:
        first = f"{per_rank.lost}, which the run file goes with"
    else:
        try:
            return Written(runfile.write(run, results, whole), run)
        except OSError as problem:
            first = f"cannot write the run file in {results} ({problem.strerror or problem})"
    try:
        refuge = tempfile.mkdtemp(prefix="jiobench-run-file-")
        try:
            if whole is None:
                whole = per_rank.made_in(refuge)
                run = build(whole)
            path = runfile.write(run, refuge, whole)
        except OSError:
            shutil.rmtree(refuge, ignore_errors=True)
            raise
    except OSError as problem:
        return Written(None, run, f"{first}, nor in {tempfile.gettempdir()} ({problem.strerror or problem}): its "
                                  "JSON follows on standard error")
    return Written(path, run, f"{first}: written to {path}")
