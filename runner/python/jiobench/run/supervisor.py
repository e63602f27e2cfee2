"""`jiobench run` through an MPI launcher (mpirun, mpiexec, srun): the launcher's process and
everything it starts, in a session of its own, supervised from here until the run's exit code.
The ranks' markers it reads and the stop it passes on are in docs/protocol.md."""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from types import FrameType
from typing import IO, BinaryIO, Optional, Sequence

from ..errors import error
from ..exitcode import ExitCode
from . import guardian, wire
from .endings import run_exit_code, stopped_line
from .mpi import NOISE
from .processes import KILL_SECONDS, STOP_NOTE_VARIABLE, STOP_SIGNALS, end_session, escalate, kill, session_members
from .request import RunRequest
from .startup import StartDeadline

# After the run's last word (its exit code): how long the MPI launcher has to end. It waits for
# every rank, and after lost ranks it may wait for them until Slurm gives up on their node.
LAST_WORD_SECONDS = 10.0
# What the launcher says before any rank is up (its refusal of an option, of a host), kept to say
# should no rank come up: at most this much of it.
EARLY_OUTPUT_BYTES = 64 << 10


class EarlyOutput:
    """The launcher's output before any rank said it is up: its own words, since every rank's
    first line is its marker. Held, so that a launcher that starts no rank is said in one line of
    jiobench's followed by its own; passed on once a rank is up."""

    def __init__(self) -> None:
        self.held: list[tuple[BinaryIO, bytes]] = []  # (where it goes, line)
        self.size = 0
        self.dropped = 0
        self.passing = False
        self.lock = threading.Lock()

    def add(self, out: BinaryIO, line: bytes) -> bool:
        """Holds the line, unless lines pass by now: whether it was held."""
        with self.lock:
            if self.passing:
                return False
            if self.size + len(line) <= EARLY_OUTPUT_BYTES:
                self.held.append((out, line))
                self.size += len(line)
            else:
                self.dropped += 1
            return True

    def release(self) -> None:
        """A rank is up (or jiobench run is about to name what went wrong): what was held goes on."""
        with self.lock:
            self.passing = True
            held, self.held = self.held, []
        for out, line in held:
            write(out, line)

    def said(self) -> list[str]:
        """What the launcher said, as lines, held still."""
        with self.lock:
            lines = [line.decode(errors="backslashreplace").rstrip("\n") for _, line in self.held]
            if self.dropped:
                lines.append(f"({self.dropped} more lines)")
            return lines


def write(out: BinaryIO, line: bytes) -> None:
    try:
        out.write(line)
        out.flush()
    except OSError:
        pass  # the reader went away; the run goes on and its file is written all the same


def results_directory(runner_args: Sequence[str]) -> str:
    """The --results directory the runner was given, as given (the runner's default: results)."""
    for index, argument in enumerate(runner_args):
        if argument == "--results" and index + 1 < len(runner_args):
            return runner_args[index + 1]
        if argument.startswith("--results="):
            return argument.split("=", 1)[1]
    return "results"


class MpiLauncherJob:
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
        assert self.process.stdout is not None and self.process.stderr is not None  # both are pipes
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
        self.some_up = False  # a rank said it is up, numbered or not
        self.early = EarlyOutput()
        self.ranks_said: list[bytes] = []  # jiobench's lines among the ranks' output
        self.run_file: Optional[str] = None  # the run file, as rank 0's last line named it
        threading.Thread(target=self.start_deadline, args=(StartDeadline(start_timeout),), daemon=True).start()
        self.relays = [threading.Thread(target=self.relay, args=(self.process.stdout, sys.stdout.buffer), daemon=True),
                       threading.Thread(target=self.relay, args=(self.process.stderr, sys.stderr.buffer), daemon=True)]
        for relay in self.relays:
            relay.start()

    def relay(self, lines: IO[bytes], out: BinaryIO) -> None:
        """Passes the ranks' output on as it comes, keeping rank 0's exit code line for itself and
        noting whether rank 0 said why the run stopped, and where its run file is. What the launcher
        says before any rank is up is held (EarlyOutput)."""
        for line in lines:
            code = wire.read_exit_code(line)
            if code is not None:
                self.run_exit_code = code
                lingering = threading.Timer(LAST_WORD_SECONDS, self.end_lingering)
                lingering.daemon = True
                lingering.start()
                continue
            if line.startswith(wire.RANK_UP_MARKER):
                up = wire.read_rank_up(line)
                if up is not None:
                    self.up[up[0]] = up[1]
                self.some_up = True
                self.early.release()
                continue
            if line == wire.ALL_UP_MARKER:
                self.all_up.set()
                continue
            if line == wire.STOP_SAID_MARKER:
                self.stop_said = True
                continue
            if NOISE.match(line) or self.early.add(out, line):
                continue
            if line.startswith(b"jiobench"):
                self.ranks_said.append(line)
            if out is sys.stdout.buffer and line.rstrip().endswith(b".json") and os.path.isfile(line.strip()):
                self.run_file = line.strip().decode(errors="replace")
            # A rank ended as it wrote (MPICH's Hydra kills the others at their next line once one died):
            # what follows is a line of its own.
            write(out, line if line.endswith(b"\n") else line + b"\n")

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
        self.early.release()
        print(f"jiobench: error: {late}, or MPI did not start across them (ranks up: {up}); the launcher's output is "
              "above", file=sys.stderr, flush=True)
        self.not_up = True
        self.kill_session()

    def on_signal(self, number: int, frame: Optional[FrameType]) -> None:
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
        if self.run_exit_code is not None:
            # The ranks said how the run ended: what is left of the session is no rank's (a dead
            # rank's keeper, jiobench.run.keeper), and the launcher's own code (it saw a rank die)
            # is not the run's.
            self.kill_session()
        end_session(self.process.pid)
        shutil.rmtree(self.notes, ignore_errors=True)
        self.guardian.communicate(guardian.DONE)
        return code


def supervise(command: list[str], request: RunRequest, held: list[int]) -> int:
    """Runs the launcher's command to its end; the run's exit code. `held`: the stop signals that
    came while the run was being set up, acted on now."""
    try:
        job = MpiLauncherJob(command, request.ranks, request.start_timeout)
    except FileNotFoundError as missing:
        return error(f"cannot start {missing.filename}: is it installed?", ExitCode.NOT_FOUND)
    for number in STOP_SIGNALS:
        signal.signal(number, job.on_signal)
    for held_signal in held:
        job.on_signal(held_signal, None)
    code = job.wait()
    stop_signal = signal.Signals(job.stop_signal).name if job.stop_signal is not None else None
    if job.run_exit_code is not None:
        if stop_signal is not None and not job.stop_said:
            # Slurm signals the MPI launcher too, which may drop rank 0's last words (not its last line).
            print(stopped_line(stop_signal, phases_kept=job.all_up.is_set(),
                               said=job.run_file or f"in {results_directory(request.runner_args)}"), file=sys.stderr)
        return job.run_exit_code
    if job.not_up:
        return run_exit_code(failed=True)  # said as the deadline passed
    if stop_signal is not None:
        if not job.stop_said:
            print(stopped_line(stop_signal, phases_kept=job.all_up.is_set(), said=job.run_file,
                               results=results_directory(request.runner_args)), file=sys.stderr)
        return run_exit_code(stop_signal=stop_signal)
    if code < 0:
        print(f"jiobench: error: {request.launcher} was killed by {signal.Signals(-code).name}; the ranks ended "
              "the run without it", file=sys.stderr)
        return run_exit_code(code)
    return launcher_ended(job, request, code)


def launcher_ended(job: MpiLauncherJob, request: RunRequest, code: int) -> int:
    """The launcher ended with no word from the ranks of how the run ended: what it said, and why
    that may be, in a line of jiobench's."""
    launcher = os.path.basename(request.launcher)
    if not job.some_up:
        # Every rank's first line is its marker: all the launcher printed is its own.
        said = job.early.said()
        given = f", with --launcher-args {shlex.join(request.launcher_args)!r}" if request.launcher_args else ""
        print(f"jiobench: error: {launcher} ended (exit code {code}) before starting any rank{given}; "
              + ("what it said:" if said else "it said nothing"), file=sys.stderr)
        for line in said:
            print(line, file=sys.stderr)
        # Found before any phase, nothing created: the user's own launcher options are the likely cause.
        return ExitCode.MISTAKE if request.launcher_args else ExitCode.FAILED
    job.early.release()
    if job.ranks_said and code == ExitCode.MISTAKE:
        return ExitCode.MISTAKE  # a rank refused the run before it began (an mpi4py of another MPI), in its own words
    up = ", ".join(f"{rank} on {host}" for rank, host in sorted(job.up.items()))
    print(f"jiobench: error: {launcher} ended (exit code {code}) before the ranks said how the run ended (ranks up: "
          f"{up}): it ends them all when one of their processes dies (killed, or by the OOM killer); a run file, if "
          f"they wrote one first, is in {results_directory(request.runner_args)}, and the run's test file may be left",
          file=sys.stderr)
    return ExitCode.FAILED
