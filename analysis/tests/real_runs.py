"""Real runs for the analysis tests, and `jiobench report` run in this process.

The main source of run files is real runs: `bin/jiobench run` with the `calibrate` approach,
which moves no data and waits a known time per transfer, so every number the report shows is
predictable (aggregate MiB/s = ranks x programmed rate, never more). Hand-made run files
(handmade_runs.py) only add what a quick real run cannot show: a c-posix reference, failed
verification, a buffer-size sweep.

The full suite takes the runs afresh; the fast tier (`make check`, pytest --kept-runs) reads the
same runs as docs/runs/analysis-tests keeps them, taken again with

    .venv/bin/python analysis/tests/real_runs.py docs/runs/analysis-tests
"""
from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pytest

from jiobench_analysis import report

REPO = Path(__file__).resolve().parents[2]
JIOBENCH = REPO / "bin" / "jiobench"
KEPT = REPO / "docs" / "runs" / "analysis-tests"
RATE = 64  # MiB/s per rank, the calibrate approach's programmed rate
FASTER = 256  # MiB/s per rank of the runs compared with the sweep's, over a 4 x larger block


@dataclass
class RealRuns:
    sweep: Path  # calibrate: 1 and 2 ranks at 1 MiB transfers, 2 ranks at 256 KiB; RATE per rank
    faster: Path  # calibrate: 2 ranks at 1 MiB, FASTER per rank: phases as long as the sweep's
    mixed: Path  # calibrate, raw-bytes and data-stream with --verify and a deadline data-stream hits
    versus_c: Path  # calibrate, c-posix and data-stream, 6 repetitions, a deadline data-stream hits
    files: dict[str, Path] = field(default_factory=dict)  # "ranks/transfer/rate" -> run file

    @classmethod
    def under(cls, work: Path) -> "RealRuns":
        return cls(sweep=work / "sweep", faster=work / "faster", mixed=work / "mixed", versus_c=work / "versus-c")


def key(ranks: int, transfer: str, rate: int) -> str:
    return f"{ranks}/{transfer}/{rate}"


def take_real_runs(work: Path) -> RealRuns:
    """The real runs the analysis tests read, taken under `work`."""
    runs = RealRuns.under(work)
    # 6 repetitions: the fewest with a 95% interval, so that comparisons of these runs have a verdict.
    for ranks, transfer, rate, block, results in (
            (1, "1MiB", RATE, "8MiB", runs.sweep), (2, "1MiB", RATE, "8MiB", runs.sweep),
            (2, "256KiB", RATE, "8MiB", runs.sweep), (2, "1MiB", FASTER, "32MiB", runs.faster)):
        runs.files[key(ranks, transfer, rate)] = jiobench_run(
            results, ranks, "-a", "calibrate", "--calibrate-rate", f"{rate}MiB", "-b", block, "-t", transfer,
            "-i", "6")
    # data-stream makes a system call per element: far slower than the 0.2 s deadline allows. Two
    # repetitions only: too few for an interval, so its ratio is unclear.
    jiobench_run(runs.mixed, 2, "-a", "calibrate,raw-bytes,data-stream", "--verify", "-D", "0.2",
                 "-b", "1MiB", "-t", "16KiB", "-i", "2")
    # Beside C, data-stream is three to four orders of magnitude slower: a verdict no noise can turn.
    jiobench_run(runs.versus_c, 2, "-a", "calibrate,c-posix,data-stream", "-D", "0.2", "--calibrate-rate", "256MiB",
                 "-b", "16MiB", "-t", "64KiB", "-i", "6")
    return runs


def kept_real_runs(work: Path) -> RealRuns:
    """The runs docs/runs/analysis-tests keeps, copied under `work` (tests may write beside them),
    each calibrate run of the sweep and the faster one known by the key take_real_runs gives it."""
    shutil.copytree(KEPT, work, dirs_exist_ok=True)
    runs = RealRuns.under(work)
    for path in sorted([*runs.sweep.glob("*.json"), *runs.faster.glob("*.json")]):
        run = json.loads(path.read_text())
        transfer = run["parameters"]["transfer_size"]
        transfer_text = f"{transfer >> 20}MiB" if transfer % (1 << 20) == 0 else f"{transfer >> 10}KiB"
        rate = run["parameters"]["calibrate_rate"] >> 20
        runs.files[key(run["environment"]["ranks"], transfer_text, rate)] = path
    return runs


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


if __name__ == "__main__":
    # Takes the runs again into the directory named (docs/runs/analysis-tests), in place of those it held.
    target = Path(sys.argv[1]).resolve()
    shutil.rmtree(target, ignore_errors=True)
    take_real_runs(target)
