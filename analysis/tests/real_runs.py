"""Real runs for the analysis tests, and `jiobench report` run in this process.

The main source of run files is real runs: `bin/jiobench run` with the `calibrate` approach,
which moves no data and waits a known time per transfer, so every number the report shows is
predictable (aggregate MiB/s = ranks x programmed rate, never more). Hand-made run files
(handmade_runs.py) only add what a quick real run cannot show: a c-posix reference, failed
verification, a buffer-size sweep.
"""
from __future__ import annotations

import contextlib
import io
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pytest

from jiobench_analysis import report

REPO = Path(__file__).resolve().parents[2]
JIOBENCH = REPO / "bin" / "jiobench"
RATE = 64  # MiB/s per rank, the calibrate approach's programmed rate
FASTER = 256  # MiB/s per rank of the runs compared with the sweep's, over a 4 x larger block


@dataclass
class RealRuns:
    sweep: Path  # calibrate: 1 and 2 ranks at 1 MiB transfers, 2 ranks at 256 KiB; RATE per rank
    faster: Path  # calibrate: 2 ranks at 1 MiB, FASTER per rank: phases as long as the sweep's
    mixed: Path  # calibrate, raw-bytes and data-stream with --verify and a deadline data-stream hits
    versus_c: Path  # calibrate, c-posix and data-stream, 6 repetitions, a deadline data-stream hits
    files: dict[str, Path] = field(default_factory=dict)  # "ranks/transfer/rate" -> run file


def jiobench_runs(*runs: tuple[Path, int, Sequence[str]]) -> list[Path]:
    """Real runs (results directory, ranks, options) started together, each on a file of its own;
    returns the run files the commands name on their last lines."""
    started = []
    for results, ranks, options in runs:
        command = [str(JIOBENCH), "run", "-n", str(ranks), "--", *options,
                   "-o", str(results.parent / f"{results.name}.dat"), "--results", str(results)]
        started.append((results, command, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                           text=True)))
    paths = []
    for results, command, process in started:
        try:
            stdout, stderr = process.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            process.terminate()  # as a user would stop it: its launcher stops its ranks
            stdout, stderr = process.communicate()
        if process.returncode != 0:
            pytest.fail(f"{' '.join(command)} exited {process.returncode}:\n{stdout}\n{stderr}")
        path = Path(stdout.strip().splitlines()[-1])
        assert path.is_file() and path.parent == results, stdout
        paths.append(path)
    return paths


def jiobench_run(results: Path, ranks: int, *options: str) -> Path:
    """One real run; returns its run file."""
    return jiobench_runs((results, ranks, options))[0]


@dataclass
class Report:
    out: Path
    code: int
    stdout: str
    stderr: str


def run_report(argv: list[str]) -> Report:
    """`jiobench report ARGV` in this process, its output captured."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = report.main(argv)
    out = Path(argv[argv.index("-o") + 1]) if "-o" in argv else Path()
    return Report(out, code, stdout.getvalue(), stderr.getvalue())
