"""`jiobench`: the user's verbs.

  jiobench run [-n RANKS] [--launcher mpirun|srun|mpj-multicore|mpj-niodev] [--jvm-args ARGS] -- RUNNER-OPTIONS
  jiobench report RESULTS... -o DIR        (and: jiobench report --compare A B)

`run` starts one launcher per MPI rank (python -m jiobench.launch), each of which starts one JVM.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Optional

from . import mpj

HOME = Path(os.environ.get("JIOBENCH_HOME", Path(__file__).resolve().parents[3]))
JAR = Path(os.environ.get("JIOBENCH_JAR", HOME / "runner" / "target" / "jiobench-runner.jar"))
HELP_FLAGS = {"-h", "--help", "-V", "--version"}
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def error(message: str, code: int = 2) -> int:
    print(f"jiobench: error: {message}", file=sys.stderr)
    return code


def available_slots() -> int:
    """Slots mpirun grants without --oversubscribe: the allocation under Slurm, else the cores."""
    for variable in ("SLURM_NTASKS", "SLURM_NPROCS"):
        if os.environ.get(variable, "").isdigit():
            return int(os.environ[variable])
    return os.cpu_count() or 1


def launch_command(options, runner_args: list[str]) -> list[str]:
    """The mpirun or srun line that starts one launcher per rank."""
    rank_program = [sys.executable, "-m", "jiobench.launch", f"--java={options.java}", f"--jar={JAR}",
                    f"--jvm-args={options.jvm_args}", f"--launcher={options.launcher}",
                    *([f"--run-id={options.run_id}"] if options.run_id else []),
                    f"--command-line={shlex.join(['jiobench', 'run', *options.original])}", "--", *runner_args]
    if options.launcher == "srun":
        return ["srun", "--mpi=pmix", "-n", str(options.ranks), *shlex.split(options.launcher_args), *rank_program]
    # -q: the launchers say what went wrong in one line; mpirun's banners would repeat it.
    mpirun = ["mpirun", "-q", "-np", str(options.ranks)]
    if os.geteuid() == 0:
        mpirun.append("--allow-run-as-root")
    if options.ranks > available_slots():
        mpirun.append("--oversubscribe")
    # A JVM runs many threads (JIT, GC): pinning each rank to one core would starve them.
    mpirun += ["--bind-to", "none", *shlex.split(options.launcher_args)]
    return mpirun + rank_program


class OneLineParser(argparse.ArgumentParser):
    """A mistake is one line and exit code 2, as everywhere in jiobench, not argparse's usage block."""

    def error(self, message: str):
        print(f"jiobench: error: {message} (see 'jiobench {self.prog.split()[-1]} --help')", file=sys.stderr)
        sys.exit(2)


def run(argv: list[str]) -> int:
    if "--" in argv:
        split = argv.index("--")
        own, runner_args = argv[:split], argv[split + 1:]
    else:
        own, runner_args = argv, None
    parser = OneLineParser(
        prog="jiobench run",
        description="Run the per-rank runner on RANKS MPI ranks and reduce their timings to aggregate MiB/s.",
        epilog="Per-rank options go after '--'; 'jiobench run -- --help' lists them.")
    parser.add_argument("-n", "--ranks", type=int, default=1, help="MPI ranks (default: 1)")
    parser.add_argument("--launcher", choices=["mpirun", "srun", *mpj.LAUNCHERS], default="mpirun",
                        help="mpirun (default), srun --mpi=pmix inside a Slurm allocation, or MPJ Express "
                             "(mpj-multicore: ranks as threads of one JVM; mpj-niodev: a JVM per rank)")
    parser.add_argument("--launcher-args", default="", help="extra arguments for mpirun or srun, as one string")
    parser.add_argument("--jvm-args", default="", help="JVM options for every rank, as one string (e.g. '-Xmx4g')")
    parser.add_argument("--java", default=os.environ.get("JIOBENCH_JAVA", "java"), help="the java to run (default: java)")
    parser.add_argument("--run-id", help="name of the run file (RESULTS/RUN_ID.json) instead of a time stamp")
    if runner_args is None:
        options, runner_args = parser.parse_known_args(own)
    else:
        options = parser.parse_args(own)
    options.original = argv
    if options.ranks < 1:
        return error(f"-n must be at least 1, not {options.ranks}")
    if options.run_id is not None and not RUN_ID.fullmatch(options.run_id):
        return error(f"--run-id {options.run_id!r} is not a name: letters, digits, '.', '_' and '-', "
                     "starting with a letter or digit")
    if not JAR.is_file():
        return error(f"the runner is not built ({JAR} is missing): run 'make build' in {HOME}")
    if HELP_FLAGS.intersection(runner_args):
        return subprocess.call([options.java, *shlex.split(options.jvm_args), "-jar", str(JAR), *runner_args])
    if options.launcher in mpj.LAUNCHERS:
        return mpj.run(options, runner_args, JAR)
    try:
        return subprocess.call(launch_command(options, runner_args))
    except FileNotFoundError as missing:
        return error(f"cannot start {missing.filename}: is it installed?", 127)
    except KeyboardInterrupt:
        return 130


def report(argv: list[str]) -> int:
    from jiobench_analysis import report as analysis_report

    return analysis_report.main(argv)


VERBS = {"run": run, "report": report}


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    verb, rest = argv[0], argv[1:]
    if verb not in VERBS:
        return error(f"unknown command '{verb}' (expected: {', '.join(VERBS)})")
    return VERBS[verb](rest)


if __name__ == "__main__":
    sys.exit(main())
