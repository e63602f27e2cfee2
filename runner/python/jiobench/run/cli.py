"""`jiobench run [-n RANKS] [--launcher NAME] [--jvm-args ARGS] -- RUNNER-OPTIONS`.

Through an MPI launcher it starts one Python launcher per MPI rank (python -m jiobench.run.rank),
each of which starts one JVM per fork of each approach; through MPJ Express, MPJ's own ranks.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from typing import Optional

from ..errors import OneLineParser, UsageError, error
from ..launchpaths import DEFAULT, LAUNCH_PATHS, is_mpj
from ..model import runfile
from ..paths import HOME, JAR
from . import guardian, limits, mpi, mpj
from .endings import run_exit_code, stopped_line
from .launching import available_memory
from .processes import (KILL_SECONDS, STOP_NOTE_VARIABLE, STOP_SIGNALS, end_session, escalate, kill,
                        session_members)
from .request import ALL, AUTO, RunRequest
from .startup import StartDeadline

HELP_FLAGS = {"-h", "--help", "-V", "--version"}
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# Options whose value is itself a list of options ('-Xmx4g ...'): argparse would take it for one.
OPTIONS_WITH_OPTION_VALUES = ("--jvm-args", "--launcher-args")
# A day: longer is no deadline at all, and the clock's waits cannot hold one of infinity.
LONGEST_START_TIMEOUT = 86400.0
# After the run's last word (its exit code): how long the MPI launcher has to end. It waits for
# every rank, and after lost ranks it may wait for them until Slurm gives up on their node.
LAST_WORD_SECONDS = 10.0


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


def jvm_cpus(value: str):
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


def rank_program(request: RunRequest) -> list[str]:
    return [sys.executable, "-m", "jiobench.run.rank", request.to_json()]


def launch_command(request: RunRequest) -> list[str]:
    """The mpirun, mpiexec or srun line that starts one launcher per rank."""
    extra = list(request.launcher_args)
    if request.launcher == "srun":
        return ["srun", "--mpi=pmix", "-n", str(request.ranks), *extra, *rank_program(request)]
    found = mpi.launcher_mpi(request.launcher)
    if found is None:
        raise UsageError(f"cannot run {request.launcher}: is an MPI installed (Debian: openmpi-bin or mpich)?")
    library = mpi.mpi4py_mpi()
    if library is not None and found.family != "unknown" and library.family != found.family:
        raise UsageError(f"{request.launcher} is {found.describe()} but mpi4py uses {library.describe()}: the ranks "
                        f"would not find each other; put the {library.describe()} launcher first on PATH or "
                        "install mpi4py for the other")
    return mpi.launch_prefix(request.launcher, found, request.ranks, extra) + rank_program(request)


class Job:
    """The launcher's process and everything it starts, in a session of their own: a signal to
    `jiobench run` becomes a request to stop that the launcher passes to every rank, and nothing
    of the run outlives it."""

    def __init__(self, command: list[str], ranks: int, start_timeout: float):
        self.notes = tempfile.mkdtemp(prefix="jiobench-run-")
        self.stop_note = os.path.join(self.notes, guardian.STOP_NOTE)
        env = dict(os.environ, **{STOP_NOTE_VARIABLE: self.stop_note})
        self.process = subprocess.Popen(command, start_new_session=True, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        # Ends the run should this process die unannounced (jiobench.run.guardian). It holds the
        # launcher's output too, which it drains once this process is gone: a launcher writing to
        # pipes nobody reads dies of SIGPIPE, and leaves its session directory behind.
        outputs = (self.process.stdout.fileno(), self.process.stderr.fileno())
        self.guardian = subprocess.Popen([sys.executable, "-m", "jiobench.run.guardian", str(self.process.pid),
                                          self.notes, *map(str, outputs)], stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=outputs,
                                         start_new_session=True, text=True)
        self.stop_signal: Optional[int] = None
        self.run_exit_code: Optional[int] = None
        self.stop_said = False
        self.ranks = ranks
        self.up: dict[int, str] = {}  # the ranks that said they are up, and their hosts
        self.all_up = threading.Event()
        self.not_up = False
        self.lingered = False  # the launcher outlived the run's last word, and was ended
        threading.Thread(target=self.start_deadline, args=(StartDeadline(start_timeout),), daemon=True).start()
        self.relays = [threading.Thread(target=self.relay, args=(self.process.stdout, sys.stdout.buffer), daemon=True),
                       threading.Thread(target=self.relay, args=(self.process.stderr, sys.stderr.buffer), daemon=True)]
        for relay in self.relays:
            relay.start()

    def relay(self, lines, out) -> None:
        """Passes the ranks' output on as it comes, keeping rank 0's exit code line for itself and
        noting whether rank 0 said why the run stopped."""
        for line in lines:
            if line.startswith(mpi.EXIT_CODE_MARKER):
                self.run_exit_code = int(line[len(mpi.EXIT_CODE_MARKER):])
                lingering = threading.Timer(LAST_WORD_SECONDS, self.end_lingering)
                lingering.daemon = True
                lingering.start()
                continue
            if line.startswith(mpi.RANK_UP_MARKER):
                rank, _, host = line[len(mpi.RANK_UP_MARKER):].decode(errors="replace").strip().partition(" ")
                if rank.isdigit():
                    self.up[int(rank)] = host
                continue
            if line == mpi.ALL_UP_MARKER:
                self.all_up.set()
                continue
            self.stop_said = self.stop_said or line.startswith(b"jiobench: stopped by")
            try:
                out.write(line)
                out.flush()
            except OSError:
                pass  # the reader went away; the run goes on and its file is written all the same

    def end_lingering(self) -> None:
        """The run has ended; its launcher, still waiting for ranks that were lost, goes."""
        if self.process.poll() is None:
            self.lingered = True
            self.kill_session()

    def start_deadline(self, deadline: StartDeadline) -> None:
        """Ends a run whose ranks are not all in MPI in time, naming those that are not."""
        if self.all_up.wait(deadline.left()) or self.process.poll() is not None:
            return
        missing = [rank for rank in range(self.ranks) if rank not in self.up]
        up = ", ".join(f"{rank} on {host}" for rank, host in sorted(self.up.items())) or "none"
        ranks = f"rank{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing)) or '(all)'}"
        late = deadline.missed(ranks, f"{'were' if len(missing) > 1 else 'was'} not up")
        print(f"jiobench: error: {late}, or MPI did not start across them (ranks up: {up}); the launcher's output is "
              "above", file=sys.stderr, flush=True)
        self.not_up = True
        self.kill_session()

    def on_signal(self, number, frame) -> None:
        first = self.stop_signal is None
        self.stop_signal = self.stop_signal or number
        if first:
            with open(self.stop_note, "w") as note:
                note.write(signal.Signals(number).name)
            self.signal_launcher(signal.SIGUSR1)  # passed on to every rank, which ends its phase
            threading.Thread(target=self.escalate, daemon=True).start()
        else:
            self.signal_launcher(signal.SIGTERM)  # asked again: no more patience

    def signal_launcher(self, number: int) -> None:
        try:
            self.process.send_signal(number)
        except ProcessLookupError:
            pass

    def escalate(self) -> None:
        escalate(lambda: self.process.poll() is None, self.signal_launcher, self.kill_session)

    def session_members(self) -> list[int]:
        """Processes still in the job's session: launchers, JVMs, MPI daemons."""
        return session_members(self.process.pid)

    def kill_session(self) -> None:
        kill(self.session_members())

    def wait(self) -> int:
        """The launcher's exit code, once nothing of the job is left (ranks orphaned by a
        killed launcher get the grace to write what they have, then are killed)."""
        code = self.process.wait()
        for relay in self.relays:
            # The output of a launcher ended after the run's last word may be held open by its
            # processes on a lost node, which nothing here can end.
            relay.join(timeout=1 if self.lingered else KILL_SECONDS)
        if (code == 0 or self.lingered) and self.run_exit_code is not None:
            code = self.run_exit_code
        end_session(self.process.pid)
        shutil.rmtree(self.notes, ignore_errors=True)
        self.guardian.communicate(guardian.DONE)
        return code


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
        limits.check(ranks_here, request.jvm_args, runner_args,
                     None if is_mpj(options.launcher) else request.jvm_processors(ranks_here or 1))
        command = None if is_mpj(options.launcher) else launch_command(request)
    except UsageError as mistake:
        return error(str(mistake))
    # A signal while the ranks start is held until the run can act on it: by default it would end
    # this process and leave the launcher's session (or MPJ's daemon) running on its own.
    held: list[int] = []
    for number in STOP_SIGNALS:
        signal.signal(number, lambda number, frame: held.append(number))
    if command is None:
        return mpj.run(request, held)
    try:
        job = Job(command, request.ranks, request.start_timeout)
    except FileNotFoundError as missing:
        return error(f"cannot start {missing.filename}: is it installed?", 127)
    for number in STOP_SIGNALS:
        signal.signal(number, job.on_signal)
    for number in held:
        job.on_signal(number, None)
    code = job.wait()
    stop_signal = signal.Signals(job.stop_signal).name if job.stop_signal is not None else None
    if job.not_up:
        pass  # said as the deadline passed
    elif stop_signal is not None:
        if not job.stop_said:
            # Slurm signals the MPI launcher too, which may drop rank 0's last words.
            print(stopped_line(stop_signal, phases_kept=job.all_up.is_set()), file=sys.stderr)
    elif code < 0:
        print(f"jiobench: error: {options.launcher} was killed by {signal.Signals(-code).name}; the ranks ended "
              "the run without it", file=sys.stderr)
    return run_exit_code(code, failed=job.not_up, stop_signal=stop_signal)


def main(argv: Optional[list[str]] = None) -> int:
    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
