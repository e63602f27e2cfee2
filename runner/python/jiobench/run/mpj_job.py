"""One MPJ Express job, one task of the run on every rank (jiobench.run.mpj): its output, where
rank 0's tagged lines are the run's events, and its processes. It watches the ranks' processes, so
that a rank whose JVM dies ends the whole job instead of leaving the others waiting, names the rank
that broke it, and gives the job's ranks the run's --start-timeout to start and be ready."""
from __future__ import annotations

import queue
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from . import wire
from .mpj_daemon import Daemon
from .placement import ranks_on
from .processes import alive, descendants_of, kill
from .startup import HeldOutput, StartDeadline


# What MPJ's starter and daemon say about themselves: not the runner's output.
MPJ_CHATTER = re.compile(r"^(MPJ Express \(|Starting process <|Stopping Process <|\w*@Ping#$)")
# MPJ's starter, losing its daemon's connection as a job ends early, prints a stack trace of its own.
JAVA_THROWABLE = re.compile(r"^[\w.$]+(Exception|Error)(: .*)?$")
MPJ_PACKAGES = ("runtime.", "mpjdev.", "xdev.", "mpjbuf.", "mpi.")
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.")
# What MPJ's Wrapper prints in a niodev rank's JVM as it starts the rank, and as the rank's main returns.
RANK_STARTED = re.compile(r"^Starting process <(\d+)> on <(.*)>")
RANK_STOPPED = re.compile(r"^Stopping Process <(\d+)>")
POLL_S = 0.1
# A rank's process may end before rank 0's last line has come through MPJ's relay, and before the
# lines of the ranks that lost it (which tell that they end on their own) have.
GRACE_S = 2.0
# A niodev job whose ranks' JVMs fail to start leaves MPJ's starter waiting for them for ever; a
# daemon of this run's own that has run none of the job's JVMs for this long tells of it.
NO_RANKS_S = 15.0


class JobBroken(Exception):
    """A rank's process ended, or MPI failed, in the middle of a job: the job cannot finish."""


class JobStopped(Exception):
    """A signal asked the run to stop: the job's phase cannot be completed."""


class RanksLate(Exception):
    """The job's ranks were not ready within --start-timeout: `ranks` names them and their hosts,
    `what` says what they did not do in time."""

    def __init__(self, ranks: str, what: str):
        super().__init__(f"{ranks} {what}")
        self.ranks, self.what = ranks, what


def same_host(host: str) -> bool:
    return host.split(".")[0] == socket.gethostname().split(".")[0]


def blame(hosts: list[str], jvms: dict[int, int], gone: list[int], spoke: set[int], said: str) -> str:
    """Which rank broke the job, or else what was said of it. A rank whose JVM ended without a word
    (killed, crashed) did; the ranks that lost it end too, but say so first (an abort, or MPJ's line
    as their main returns), so they are never blamed. A rank on another host cannot be looked at
    from here: where no rank of this host ended silently, those of other hosts that said nothing
    are named as not checked. `hosts` is empty until every rank has started."""
    silent = [rank for rank in gone if rank not in spoke]
    if silent:
        return (f"rank {silent[0]}'s JVM (pid {jvms[silent[0]]}) ended "
                + ("in the middle of the run" if hosts else "before every rank had started"))
    unchecked = [rank for rank, host in enumerate(hosts) if not same_host(host) and rank not in spoke]
    if unchecked:
        here = socket.gethostname()
        return (f"{said}; no rank's JVM died on {here}, and "
                f"{ranks_on(unchecked, hosts)} could not be checked from {here}")
    return said


def tags_apart(output: Iterable[str]) -> Iterator[str]:
    """The job's lines, with rank 0's tagged line taken out of another's that it split: MPJ's
    starter joins a JVM's standard error to its output, and a line written there in pieces (HotSpot's
    -Xlog writes its decorations first) may hold rank 0's line, one write, in its middle."""
    for line in output:
        line = line.rstrip("\n")
        split = line.find(wire.MPJ_TAG)
        if split > 0:
            yield line[:split]
            line = line[split:]
        yield line


def passed_on(line: str) -> None:
    """One line of the job's output on standard error, byte for byte as the job printed it."""
    sys.stderr.flush()
    sys.stderr.buffer.write(line.encode(errors="surrogateescape") + b"\n")
    sys.stderr.buffer.flush()


class MpjJob:
    """One MPJ Express job (one task of the run on every rank), its output and its processes."""

    def __init__(self, command: list[str], env: dict[str, str], daemon: Optional[Daemon], jar: Path, hold_output: bool,
                 stop: Optional[threading.Event] = None, size: int = 1, deadline: Optional[StartDeadline] = None):
        self.jar = jar
        self.stop = stop or threading.Event()  # set when the run is asked to stop
        self.daemon = daemon
        self.size = size
        # A JVM may print what is not UTF-8 (a -D value, a file name): its bytes are kept as they
        # came, and passed on as they came (`passed_on`), and the reader never stops on them.
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, errors="surrogateescape")
        started = time.monotonic()
        self.deadline = deadline  # None once the ranks are ready
        self.lines: queue.Queue[Optional[str]] = queue.Queue()  # None: the job's output ended
        threading.Thread(target=self._read, daemon=True).start()
        self.hosts: list[str] = []
        self.pids: list[int] = []
        # Each rank's host: MPJ places every rank on this one (a run that would use others is
        # refused), and a niodev rank's JVM names its own as it starts.
        self.placed = {rank: socket.gethostname() for rank in range(size)}
        self.started: set[int] = set()  # niodev ranks whose JVM is up
        self.jvms: dict[int, int] = {}  # each rank's JVM's process id, once seen
        self.finished = False
        self.output: HeldOutput[str] = HeldOutput(passed_on)
        if not hold_output:
            self.output.release()
        self.trouble_since: Optional[float] = None
        self.gone: list[int] = []  # ranks of this host whose JVM ended, in the order seen
        self.spoke: set[int] = set()  # ranks that said they end on their own
        self.said: Optional[str] = None  # the first thing a rank said of the end
        self.ranks_seen = started
        self.watched = 0.0

    def _read(self) -> None:
        trace: list[str] = []
        assert self.process.stdout is not None  # a pipe
        for line in tags_apart(self.process.stdout):
            if trace and line.startswith(("\t", "Caused by: ")):
                trace.append(line)
                continue
            self._pass_trace(trace)
            trace = [line] if JAVA_THROWABLE.match(line) else []
            if not trace:
                self.lines.put(line)
        self._pass_trace(trace)
        self.lines.put(None)

    def _pass_trace(self, trace: list[str]) -> None:
        """A stack trace goes on unless it was thrown in MPJ Express's own code."""
        thrower = next((line.strip()[3:] for line in trace if line.startswith("\tat ")
                        and not line.strip()[3:].startswith(JDK_PACKAGES)), "")
        if not thrower.startswith(MPJ_PACKAGES):
            for line in trace:
                self.lines.put(line)

    def say_held(self) -> None:
        """What the ranks printed before they failed to start, each different line once."""
        for line in dict.fromkeys(self.output.lines()):
            passed_on(line)

    def messages(self) -> Iterator[dict[str, Any]]:
        """Rank 0's messages as they come, until the job ends; raises JobBroken when a rank's
        process ends before the job finished, RanksLate when the ranks are not ready in time,
        JobStopped when a stop was asked."""
        while True:
            if self.stop.is_set():
                self._stopping()
            self._watch()
            try:
                line = self.lines.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if line is None:
                self.process.wait()
                if not self.finished:
                    raise JobBroken(self._cause(f"MPJ Express's starter ended (exit code {self.process.returncode}) "
                                                "before the ranks finished"))
                return
            message = wire.mpj_message(line)
            if message is not None:
                if message["type"] == wire.Kind.RANKS:
                    self.hosts, self.pids = message["hosts"], message["pids"]
                    self.placed.update(enumerate(self.hosts))
                    self.jvms.update(enumerate(self.pids))
                    continue
                if message["type"] == wire.Kind.ABORT:
                    self._trouble(message.get("rank"), message["message"])
                    continue
                if message["type"] == wire.Kind.READY:
                    self.deadline = None
                self.finished = self.finished or message["type"] == wire.Kind.FINISHED
                yield message
            elif MPJ_CHATTER.match(line):
                started, stopped = RANK_STARTED.match(line), RANK_STOPPED.match(line)
                if started:
                    self.started.add(int(started.group(1)))
                    self.placed[int(started.group(1))] = started.group(2)
                elif stopped:
                    rank = int(stopped.group(1))
                    self._trouble(rank, f"rank {rank}'s JVM ended in the middle of the run")
            else:
                self.output.add(line)

    def _stopping(self) -> None:
        """A stop was asked, which ends every JVM of the job: a rank whose JVM had ended of its own
        before failed, and a failure says more than the stop, whichever is seen first. A job whose
        ranks finished ends its JVMs too: rank 0's word of it, not read yet, is awaited first."""
        if not self.finished:
            self._look_at_ranks()
            if self.gone and not self._finishes_within(GRACE_S):
                raise JobBroken(self._cause("a rank's JVM ended in the middle of the run"))
        raise JobStopped()

    def _finishes_within(self, seconds: float) -> bool:
        """Whether rank 0 says the job finished in the output still to come, within `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if line is None:
                return False
            message = wire.mpj_message(line)
            if message is not None and message["type"] == wire.Kind.FINISHED:
                return True
            if message is None and not MPJ_CHATTER.match(line):
                self.output.add(line)  # the ranks' own output, passed on as the job's other lines are
        return False

    def _trouble(self, rank: Optional[int], message: str) -> None:
        """A rank says it ends before the job finished."""
        if self.finished:
            return
        if rank is not None:
            self.spoke.add(rank)
        self.said = self.said or message
        self.trouble_since = self.trouble_since or time.monotonic()

    def _cause(self, otherwise: str) -> str:
        self._look_at_ranks()
        return blame(self.hosts, self.jvms, self.gone, self.spoke, self.said or otherwise)

    def _look_at_ranks(self) -> None:
        """Notes the ranks of this host whose JVM has ended: by the process ids the ranks gave once
        all started; before, by the JVMs that the run's own daemon runs."""
        if self.hosts:
            ended = [rank for rank, (host, pid) in enumerate(zip(self.hosts, self.pids))
                     if same_host(host) and not alive(pid)]
        elif self.daemon is not None:
            running = self.daemon.rank_jvms()
            if running:
                self.ranks_seen = time.monotonic()
            self.jvms.update(running)
            ended = [rank for rank in self.jvms if rank not in running]
        else:
            ended = []
        for rank in ended:
            if rank not in self.gone:
                self.gone.append(rank)
                self.trouble_since = self.trouble_since or time.monotonic()

    def _watch(self) -> None:
        now = time.monotonic()
        if now - self.watched < POLL_S:
            return
        self.watched = now
        if self.deadline is not None and self.deadline.passed():
            raise self._late()
        if self.finished:
            return
        self._look_at_ranks()
        if not self.hosts and self.daemon is not None and now - self.ranks_seen > NO_RANKS_S:
            raise JobBroken("the ranks' JVMs ended before the ranks started")
        if self.trouble_since is not None and now - self.trouble_since > GRACE_S:
            raise JobBroken(self._cause("a rank's JVM ended in the middle of the run"))

    def _late(self) -> RanksLate:
        """Which ranks kept the job from being ready within the start-up deadline."""
        if self.hosts:
            # Rank 0 says ready once every rank is: which one is late, it cannot tell.
            return RanksLate(ranks_on(range(self.size), self.placed), "started, but were not all ready")
        if self.started and len(self.started) == self.size:
            return RanksLate(ranks_on(range(self.size), self.placed), "started, but did not reach each other")
        missing = [rank for rank in range(self.size) if rank not in self.started]
        return RanksLate(ranks_on(missing, self.placed), "did not start")

    def _ours(self, pid: int) -> bool:
        """Whether a process id still names one of this job's JVMs (not a process that reused it)."""
        try:
            return str(self.jar) in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            return False

    def wait_end(self, timeout: float = 30) -> None:
        """Lets a finished job end by itself (its ranks finalize, MPJ's starter exits), or ends it."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if line is not None and not line.startswith(wire.MPJ_TAG) and not MPJ_CHATTER.match(line):
                self.output.add(line)
        self.end()

    def end(self) -> None:
        """Ends whatever still runs of this job: its ranks' JVMs, then MPJ's starter."""
        ranks = {pid for host, pid in zip(self.hosts, self.pids) if same_host(host) and self._ours(pid)}
        if self.process.poll() is None:  # not reaped, so its process id is still its own
            ranks |= set(descendants_of(self.process.pid))
        if self.daemon is not None:
            ranks |= set(self.daemon.ranks())
        kill(ranks)
        self.process.kill()
        self.process.wait()
