"""What a run does whichever way its ranks start: the forks in turn, the checks before the first
phase, the run context, the files between forks and at the end, the ending and its exit code.

A transport (`jiobench.run.transport`: `MpiRanks` under mpirun, mpiexec or srun; `MpjRanks`
under MPJ Express) starts one task's JVMs on every rank and yields what happens as events, which
the driver answers: the checks before the first phase, the phases reduced where the collector is,
-i auto's decisions.

Under mpi4py the driver runs on every rank alike: rank 0 collects the records, every other rank
keeps the phases they reduce to, so that a rank that survives lost ones can write the run file,
and the transport's `writer` (rank 0 unless it was lost) prints and writes; under MPJ Express one
driver speaks for every rank.
"""
from __future__ import annotations

import os
import resource
import signal
import sys
import threading
import time
from collections import Counter
from types import FrameType
from typing import Any, Iterator, Mapping, Optional, Sequence, Union

from ..exitcode import ExitCode
from ..model import perrank, repetitions, runfile, stats
from . import collect, incomplete, progress, runfiles, wire
from .endings import named, run_exit_code, stopped_line
from .environment import run_environment, slurm_environment
from .launching import Fork, files_to_empty, fork_tasks
from .placement import RankHosts
from .processes import PASSED_ON_STOP, STOP_NOTE_VARIABLE, STOP_SIGNALS, stop_name
from .request import RunRequest
from .start_checks import memory_refusal, run_id_refusal, shared_file_refusal
from .startup import StartDeadline
from .transport import (Agreed, Ended, Finished, NotStarted, PhaseRecords, PhaseReduced, Ready, RepeatAsked, Started,
                        StartLate, Transport)

FIRST = wire.TASK_FIRST
FIRST_LABEL = "the start of the run"
# How long a rank that writes the run file in lost rank 0's stead waits for rank 0's file first.
RANK_0_FIRST_SECONDS = 3.0
# How long removing the run's files may take: an unlink on a file system that stopped answering
# (CephFS with its metadata server lost) blocks for good, and comes after the run file.
REMOVAL_SECONDS = 10.0


def load_writer_libraries() -> None:
    """What the run file's writer always needs: pyarrow (the per-rank file). A fifth of a second of
    CPU, which a node crowded with starting JVMs stretches to seconds: loaded before anything
    waits on the writer."""
    perrank.schema()


def error_lines(messages: list[str]) -> list[str]:
    """The lines that say why JVMs did not start: each a line of its own, prefixed as an error
    unless the runner said it in its own words."""
    lines = [" ".join(message.split()) for message in messages]
    return [line if line.startswith("jiobench") else f"jiobench: error: {line}" for line in lines if line]


def run_context(request: RunRequest, ready: dict[str, Any], hosts: RankHosts, mpi: dict[str, Any],
                load_average: dict[str, Any], run_id: str) -> dict[str, Any]:
    """What the run file says of the run besides its phases."""
    per_host = dict(Counter(hosts))
    environment, warnings = run_environment(ready, per_host)
    return {
        "parameters": ready["parameters"],
        "environment": environment,
        "ranks_per_host": per_host,
        "ranks": len(hosts),
        "launcher": request.launcher,
        "command_line": list(request.command_line),
        "mpi": mpi,
        "started": runfile.now(),
        # Every rank's alike, so that a rank that survives lost ones writes under the same name.
        "run_id": request.run_id or run_id,
        "slurm": slurm_environment(),
        "warnings": warnings,
        "load_average": load_average,
    }


def remove_created(created: runfiles.CreatedFiles, who: Optional[str]) -> None:
    """Removes the files the run created that still hold their names, within REMOVAL_SECONDS;
    what it could not remove, each said in a line."""
    said: list[str] = []
    done = threading.Event()

    def removing() -> None:
        said.extend(created.remove())
        done.set()

    threading.Thread(target=removing, daemon=True).start()
    if not done.wait(REMOVAL_SECONDS):
        said = [f"cannot remove {', '.join(created.identities)} within {REMOVAL_SECONDS:.0f} s: its file system does not "
                "answer, and it may be left"]
    for line in said:
        print(f"jiobench: {f'{who}: ' if who else ''}{line}", file=sys.stderr, flush=True)


class Driver:
    """One run over one transport, from the first JVM to the run file and the exit code."""

    def __init__(self, request: RunRequest, transport: Transport):
        self.request = request
        self.transport = transport
        self.collector: Optional[collect.Collector] = None
        self.parameters: dict[str, Any] = {}
        self.created = runfiles.CreatedFiles()  # the files the run created here
        self.to_empty: list[str] = []  # emptied before every JVM after the first
        self.keep = False
        self.started = False
        self.refused: Optional[int] = None  # the exit code when the first JVMs did not start
        self.ending: Optional[dict[str, Any]] = None  # what ended the run early, as the run file says
        self.stop_signal: Optional[str] = None
        self.problems: list[str] = []  # what the JVMs said went wrong
        self.load_average: dict[str, Any] = {}  # "start" and "end": each host's
        self.forks: Iterator[Fork] = iter(())  # those still to run after the first JVM
        # Between the run file and a launcher gone from under the ranks (rank.watch_parent).
        self.lock = threading.RLock()

    # Signals -----------------------------------------------------------------------------------

    def watch_signals(self, held: list[int]) -> None:
        """A stop becomes a request the transport passes to the JVMs; the handler raises nothing,
        so whatever runs when it comes (the run file being written above all) completes."""
        for number in (*STOP_SIGNALS, PASSED_ON_STOP):
            signal.signal(number, self.on_signal)
        # `jiobench run` notes its signal before passing it on: a stop that came while mpirun was
        # still starting this rank reached no handler here.
        try:
            if os.path.getsize(os.environ[STOP_NOTE_VARIABLE]) > 0:
                held = [*held, PASSED_ON_STOP]
        except (KeyError, OSError):
            pass
        for held_signal in held:
            self.on_signal(held_signal, None)

    def on_signal(self, number: int, frame: Optional[FrameType]) -> None:
        if self.stop_signal is None:
            self.stop_signal = stop_name(number)
        self.transport.stop(self.stop_signal)

    # Tasks -------------------------------------------------------------------------------------

    def run_task(self, fork: Optional[Fork]) -> int:
        """Runs the JVMs of one fork (None: the run's first JVM) on every rank to their end: their
        exit code (0 when the run ended here, which self.ending or self.refused then says)."""
        deadline = StartDeadline(self.request.start_timeout)
        label = FIRST_LABEL if fork is None else fork.label(self.parameters)
        events = self.transport.task(self.wire_task(fork), label, self.unable_to_start(fork, label), deadline)
        reply: Union[None, str, dict[str, Any], list[str]] = None
        while True:
            try:
                event = events.send(reply)
            except StopIteration:
                return 0
            reply = None
            match event:
                case Ready() if fork is None:
                    reply = self.checked(event)
                case Started() if fork is None:
                    self.start_collecting(event)
                case NotStarted():
                    self.note_created(event.created)
                    self.not_started(event.exit, event.messages, event.rank, fork, label, named(event.messages, event.rank))
                    return 0
                case StartLate():
                    self.note_created(event.created)
                    line = deadline.missed(event.ranks, event.what) + (
                        f"; its JVM printed: {event.printed}" if event.printed else "")
                    self.not_started(ExitCode.FAILED, [line], event.rank, fork, label, [line])
                    return 0
                case PhaseRecords() if self.collector is not None:
                    reply = self.collector.phase(event.records)
                case PhaseReduced() if self.collector is not None:
                    self.collector.add_phase(event.phase)
                case RepeatAsked() if self.collector is not None and self.writes():
                    reply = self.collector.phases.another_repetition(event.fork, event.approaches)
                case Finished():
                    self.problems += event.messages
                    return event.exit
                case Ended():
                    self.note_created(event.created)
                    self.ending = self.ending or event.ending
                    return 0

    def note_created(self, files: Mapping[str, str]) -> None:
        """What a rank's JVM created (path: identity), from whichever event tells it first: a run
        stopped or refused before its first phase removes it too."""
        self.created.note(files)

    def wire_task(self, fork: Optional[Fork]) -> str:
        """The JVM's task as it reads it: a later one carries what the files this rank created are."""
        if fork is None:
            return FIRST
        return wire.task(fork.number, fork.approach, self.created.identities.values())

    def unable_to_start(self, fork: Optional[Fork], label: str) -> Optional[str]:
        """Empties the files before every JVM after the first; why it cannot, if it cannot."""
        if fork is None or self.stop_signal is not None:
            return None
        for path in self.to_empty:
            try:
                self.created.empty(path)
            except runfiles.Replaced as replaced:
                return f"{replaced} (the run ends, and leaves it as it is)"
            except OSError as problem:
                return f"cannot empty {path} for {label}: {problem.strerror}"
        return None

    def checked(self, event: Ready) -> Optional[str]:
        """The checks before the first phase, once every rank's JVM is up: why the run cannot go on."""
        ready = event.ready
        self.parameters = ready["parameters"]
        self.note_created(ready["created"])
        self.to_empty = files_to_empty(ready)
        self.keep = self.parameters["keep"]
        if not self.checks_every_rank():
            return None
        assert event.memory is not None  # every rank's, where this process checks for every rank
        return (run_id_refusal(self.request, ready)
                or shared_file_refusal(event.files, self.transport.hosts, self.parameters)
                or memory_refusal(event.memory, self.transport.hosts))

    def checks_every_rank(self) -> bool:
        return 0 in self.transport.speaks_for

    def writes(self) -> bool:
        return self.transport.writer in self.transport.speaks_for

    def written_by_rank_0(self) -> bool:
        """Whether rank 0 wrote the run file after all, where another rank took it for lost: a
        network cut in two leaves each side sure the other is lost, and storage of its own may
        still reach both. Rank 0 is given a moment, and its file stands."""
        if self.transport.writer == 0:
            return False
        time.sleep(RANK_0_FIRST_SECONDS)
        assert self.collector is not None  # asked only of a run that started collecting
        return runfile.exists(self.collector.context["run_id"], self.parameters["results"])

    def start_collecting(self, event: Started) -> None:
        self.started = True
        context = run_context(self.request, event.ready, self.transport.hosts, self.transport.mpi(),
                              self.load_average, event.run_id)
        self.collector = collect.Collector(context, progress.Printer(sys.stdout) if self.writes() else progress.Silent())
        if self.writes():
            # Before the first phase, not between two of them. The statistics' scipy, a second of
            # CPU to load, only where an interval can come of the run.
            load_writer_libraries()
            if repetitions.can_have_intervals(self.parameters):
                self.transport.tending(stats.load_libraries)
        self.collector.start()

    def not_started(self, code: int, messages: list[str], rank: Optional[int], fork: Optional[Fork], label: str,
                    said: list[str]) -> None:
        """The task's JVMs did not start: the first task's refusal (`said`, in lines that name the
        ranks), a later one's failure (`rank`, where one alone failed)."""
        if fork is None:
            self.refused = code
            if self.checks_every_rank():
                for line in error_lines(said):
                    print(line, file=sys.stderr, flush=True)
        elif self.ending is None:
            text = "; ".join(messages)
            # Where no one rank failed alone, the ranks that did are named in the text, if any is.
            self.ending = incomplete.failure(text if rank is not None else f"failed during {label}: {text}", rank, label)

    def next_fork(self) -> Optional[Fork]:
        """The next fork; under -i auto, once the planned ones ran, those the collector adds (the
        same on every rank)."""
        fork = next(self.forks, None)
        if fork is None and repetitions.Rule.of(self.parameters):
            agreed = self.transport.agree(self.collector.phases.forks_to_add() if self.collector and self.writes() else None)
            if not isinstance(agreed, Agreed):
                self.ending = self.ending or agreed.ending
                return None
            self.forks = iter(agreed.value)
            fork = next(self.forks, None)
        return fork

    # The run -----------------------------------------------------------------------------------

    def run(self, held: Sequence[int] = ()) -> int:
        try:
            return self.run_tasks(held)
        except Exception:
            # A bug, whose trace is said: what the run created goes all the same.
            self.remove_created()
            raise

    def run_tasks(self, held: Sequence[int]) -> int:
        self.watch_signals(list(held))
        self.load_average["start"] = self.transport.loads()
        code = self.run_task(None)
        if not self.started:
            # Refused, not started or stopped before the first phase: no run file.
            self.remove_created()
            if self.refused is None and self.writes():
                if self.ending is not None and self.ending["reason"] == "failed":
                    print(f"jiobench: error: {self.ending['message']}; no run file was written", file=sys.stderr,
                          flush=True)
                elif self.stop_signal is not None:
                    print(stopped_line(self.stop_signal, phases_kept=False), file=sys.stderr, flush=True)
                    self.transport.said_stop()
            return self.exit_code(self.refused or 0)
        self.forks = iter(fork_tasks(self.parameters))
        while self.ending is None:
            fork = self.next_fork()
            if fork is None:
                break
            code = max(code, self.run_task(fork))
        self.load_average["end"] = self.transport.loads()
        if self.collector is not None and self.writes() and not self.written_by_rank_0():
            self.collector.printer = progress.Printer(sys.stdout)  # a rank that survived lost ones writes in their stead
            self.write_run_file(self.ending)
            for text in self.problems:
                print(f"jiobench: error: {text}", file=sys.stderr)
            if self.collector.misplaced:
                code = max(code, ExitCode.FAILED)
        # After the run file: nothing measured waits on a file system that may have stopped answering.
        self.remove_created()
        return self.exit_code(code)

    def exit_code(self, code: int) -> int:
        """The run's code, from what ended it early (a failure, or the signal that stopped it)."""
        ending = self.ending
        return run_exit_code(code, failed=ending is not None and ending["signal"] is None,
                             stop_signal=ending["signal"] if ending is not None else self.stop_signal)

    def remove_created(self) -> None:
        if not self.keep:
            ranks = self.transport.speaks_for
            remove_created(self.created, f"rank {ranks[0]}" if len(ranks) == 1 else None)

    def write_run_file(self, ending: Optional[dict[str, Any]]) -> None:
        assert self.collector is not None  # a run file comes only of a run that started collecting
        with self.lock:
            self.collector.context["writer"] = {
                "rank": self.transport.writer,
                "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}  # KiB on Linux
            self.collector.finish(ending)
            if ending is not None and ending["reason"] == "stopped":
                self.transport.said_stop()

    def abandon(self, message: str) -> None:
        """The run cannot go on (its launcher is gone): what it measured stays, what it created goes."""
        if self.collector is not None and self.writes():
            self.write_run_file(incomplete.stop(None, message))
        self.remove_created()

