"""`jiobench run [-n RANKS] [--launcher NAME] [--jvm-args ARGS] -- RUNNER-OPTIONS`.

Its options and checks, then the launch (jiobench.run.launch), supervised by jiobench.run.supervisor
on every path: through an MPI launcher, one Python launcher per MPI rank (python -m
jiobench.run.rank), each of which starts one JVM per fork of each approach; through MPJ Express,
one process for MPJ's own ranks (python -m jiobench.run.mpj).
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
from typing import Optional, Union

from ..errors import OneLineParser, UsageError, error
from ..launchpaths import DEFAULT, LAUNCH_PATHS
from ..model import runfile
from ..paths import HOME, JAR
from . import limits, mpi, supervisor
from .launch import launch_for
from .node import available_memory
from .processes import STOP_SIGNALS
from .request import ALL, AUTO, RunRequest

# What the runner answers by itself, without a run: passed to one JVM of its own.
HELP_FLAGS = {"-h", "--help", "-V", "--version", "--describe"}
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# Options whose value is itself a list of options ('-Xmx4g ...'): argparse would take it for one.
OPTIONS_WITH_OPTION_VALUES = ("--jvm-args", "--launcher-args")
# A day: longer is no deadline at all, and the clock's waits cannot hold one of infinity.
LONGEST_START_TIMEOUT = 86400.0


def joined_option_values(argv: list[str]) -> list[str]:
    """`--jvm-args -Xmx4g` as `--jvm-args=-Xmx4g`, the form argparse reads."""
    out, index = [], 0
    while index < len(argv):
        if argv[index] in OPTIONS_WITH_OPTION_VALUES and index + 1 < len(argv):
            out.append(f"{argv[index]}={argv[index + 1]}")
            index += 2
        else:
            out.append(argv[index])
            index += 1
    return out


def split_words(option: str, value: str) -> list[str]:
    try:
        return shlex.split(value)
    except ValueError as problem:
        raise UsageError(f"{option} {value!r}: {problem}") from None


def jvm_cpus(value: str) -> Union[int, str]:
    """--jvm-cpus: auto, all or a count of processors."""
    if value in (AUTO, ALL):
        return value
    if value.isdigit() and int(value) >= 1:
        return int(value)
    raise argparse.ArgumentTypeError(f"{value!r}: give auto, all or a number of processors (1 or more)")


def check_rank_count(ranks: int) -> None:
    """Ranks that cannot all start on this node are refused before any is spawned."""
    if "SLURM_JOB_ID" in os.environ:
        return  # Slurm sized the allocation; the ranks check their hosts' memory themselves.
    available = available_memory()
    if available is None:
        return
    needed = ranks * mpi.RANK_OVERHEAD_BYTES
    if needed > available:
        raise UsageError(f"-n {ranks}: every rank is a launcher and a JVM of about "
                        f"{mpi.RANK_OVERHEAD_BYTES >> 20} MiB, {needed / 2 ** 30:.1f} GiB in all, and this node has "
                        f"{available / 2 ** 30:.1f} GiB free: use at most {available // mpi.RANK_OVERHEAD_BYTES} "
                        "ranks here, or several nodes")


def run(argv: list[str]) -> int:
    argv = joined_option_values(argv)
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
    parser.add_argument("--launcher", choices=list(LAUNCH_PATHS), default=DEFAULT,
                        help="mpirun (default) or mpiexec of the installed MPI, srun --mpi=pmix inside a Slurm "
                             "allocation, or MPJ Express (mpj-multicore: ranks as threads of one JVM; mpj-niodev: "
                             "a JVM per rank)")
    parser.add_argument("--launcher-args", default="", help="extra arguments for mpirun or srun, as one string")
    parser.add_argument("--jvm-args", default="", help="JVM options for every rank, as one string (e.g. '-Xmx4g')")
    parser.add_argument("--java", default=os.environ.get("JIOBENCH_JAVA", "java"), help="the java to run (default: java)")
    parser.add_argument("--jvm-cpus", type=jvm_cpus, default=AUTO, metavar="auto|all|N",
                        help="the processors each rank's JVM sizes its threads for (its GC workers and compilers: "
                             "-XX:ActiveProcessorCount): auto, the processors its node gives the run shared among "
                             "the ranks there, at least 2, below which HotSpot gives up G1 for the Serial collector; "
                             "all, as many as the JVM finds (for ranks bound to processors of their own: srun "
                             "--cpu-bind, mpirun --bind-to); or N. An -XX:ActiveProcessorCount in "
                             "--jvm-args wins; MPJ Express starts its JVMs unsized (default: auto)")
    parser.add_argument("--run-id", help="name of the run file (RESULTS/RUN_ID.json) instead of a time stamp")
    parser.add_argument("--start-timeout", type=float, default=120.0, metavar="SECONDS",
                        help="how long the ranks have to start and their JVMs to be ready; the run ends naming "
                             "those that were not (default: 120)")
    if runner_args is None:
        options, runner_args = parser.parse_known_args(own)
    else:
        options = parser.parse_args(own)
    try:
        if options.ranks < 1:
            raise UsageError(f"-n must be at least 1, not {options.ranks}")
        if not 0 < options.start_timeout <= LONGEST_START_TIMEOUT:
            raise UsageError(f"--start-timeout must be a number of seconds above 0 and at most "
                             f"{LONGEST_START_TIMEOUT:g}, not {options.start_timeout}")
        if options.run_id is not None and not RUN_ID.fullmatch(options.run_id):
            raise UsageError(f"--run-id {options.run_id!r} is not a name: letters, digits, '.', '_' and '-', "
                            "starting with a letter or digit")
        if options.run_id is not None and len(options.run_id) > runfile.LONGEST_RUN_ID:
            raise UsageError(f"--run-id of {len(options.run_id)} characters: the run's files could not be named "
                            f"(at most {runfile.LONGEST_RUN_ID})")
        if not JAR.is_file():
            raise UsageError(f"the runner is not built ({JAR} is missing): run 'make build' in {HOME}")
        request = RunRequest(ranks=options.ranks, launcher=options.launcher,
                             launcher_args=tuple(split_words("--launcher-args", options.launcher_args)),
                             jvm_args=tuple(split_words("--jvm-args", options.jvm_args)), java=options.java,
                             jar=str(JAR), run_id=options.run_id, command_line=("jiobench", "run", *argv),
                             runner_args=tuple(runner_args), start_timeout=options.start_timeout,
                             jvm_cpus=options.jvm_cpus)
        limits.check_utf8(runner_args)
        if HELP_FLAGS.intersection(runner_args):
            return subprocess.call(request.jvm_command())
        check_rank_count(options.ranks)
        ranks_here = None if "SLURM_JOB_ID" in os.environ else options.ranks
        launch = launch_for(request)
        limits.check(ranks_here, request.java, request.jvm_args, runner_args,
                     launch.jvm_processors(request, ranks_here or 1))
        command = launch.command(request)
    except UsageError as mistake:
        return error(str(mistake))
    # A signal while the ranks start is held until the run can act on it: by default it would end
    # this process and leave the launcher's session running on its own.
    held: list[int] = []
    for number in STOP_SIGNALS:
        signal.signal(number, lambda number, frame: held.append(number))
    return supervisor.supervise(command, request, held)


def main(argv: Optional[list[str]] = None) -> int:
    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
