"""Keeps a rank's death from taking the run with it: a rank's launcher killed outright (`kill -9`,
the OOM killer) must leave the other ranks to find it silent, end the run together and write the
phases completed before, as they do for a lost node (jiobench.run.liveness).

What ends a whole MPI job the moment one of its processes dies is what sees that process go
(measured with Open MPI 4.1.4, 5.0.11, MPICH 5.0.2 and Slurm 22.05):
- Slurm's PMIx plugin (srun --mpi=pmix) kills the step with SIGKILL on any event its PMIx server
  raises, and a client whose connection closes without PMIx_Finalize raises one
  (PMIX_ERR_LOST_CONNECTION); no srun option turns that off.
- MPICH's Hydra takes a rank for dead once its standard output and error close, and ends the
  others (with -disable-auto-cleanup too: it still killed the survivor in two runs of three).
- Open MPI's TCP transport, across nodes: a survivor that writes to a dead rank's connection gets
  a reset, and spins in MPI_Iprobe for good.
- Open MPI's own daemon sees its child's exit; --enable-recovery tells it to let the others be
  (jiobench.run.mpi).

So each rank's launcher starts a keeper (`python -m jiobench.run.keeper FD DAEMON START OUTPUT
CRASH-REPORTS`, in a process group of its own: a signal to the rank's group, as launchers forward them, is not
for it) and hands it, over a local socket, a copy of each of its sockets as they appear (its PMIx
connection, its TCP connections to other ranks), and where Hydra watches them, its standard output
and error. A launcher that ends in order says `done`, and its keeper lets go at once. One that
dies says nothing: its keeper kills its JVM (which would write on, unheard, into a file the
survivors remove) and holds on, so that nothing closes: to the MPI job the rank is one that stopped
answering, which the survivors find within LOST_AFTER_SECONDS and end the run for. It holds until
the other end of every connection it holds has closed (the survivors are gone; their node's daemon
has let the rank go), where it holds the output until no other rank of the job's daemon on its node
runs (Hydra's proxy), and HOLD_SECONDS at most.

Hydra itself (MPICH 5.0.2's proxy) still kills every rank of its node with SIGKILL as soon as it
reaps a child that a signal ended, whatever its options; it reaps at its next event, which the
held output puts off until a survivor prints: the survivors write the run file (it is written
before anything is printed), and are killed as they say so.
"""
from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from typing import Optional, Sequence

from .crashreports import remove_if_empty
from .processes import alive, children_of, stat

# The longest a dead launcher's keeper holds its connections: the survivors find it silent within
# LOST_AFTER_SECONDS (10 s), write the run file and remove what the run created (which may take
# REMOVAL_SECONDS, 10 s, on a file system that does not answer), on a crowded node later still.
HOLD_SECONDS = 60.0
# How often a dead launcher's keeper that holds its output looks whether the job's daemon has ended.
DAEMON_LOOK_SECONDS = 0.2
# How long a launcher that ends in order waits for its keeper to go.
DONE_SECONDS = 1.0

DONE = b"done"
HOLD = b"hold"  # with the descriptors to hold, as SCM_RIGHTS
JVM = b"jvm"  # "jvm PID START": the launcher's JVM, its start time as /proc/PID/stat field 22 says it
MESSAGE_BYTES = 64
MOST_DESCRIPTORS = 253  # SCM_MAX_FD, less a margin
# Field 22 of /proc/PID/stat (its start time), among the fields after the command's name.
START_TIME = 19

# Signals that are no keeper's business: a terminal's, and the stops MPI launchers forward.
IGNORED = (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE)


def start_time(pid: int) -> Optional[str]:
    fields = stat(pid)
    return fields[START_TIME] if fields is not None else None


class Keeper:
    """The launcher's side: the keeper process and the socket to it."""

    def __init__(self, hold_output: bool, crash_reports: str):
        self.link, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.held: set[tuple[int, str]] = set()  # (descriptor, what it is) already handed over
        self.hold_output = hold_output
        daemon = os.getppid()  # the job's daemon that started this rank: mpirun, orted, a proxy, slurmstepd
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jiobench.run.keeper", str(theirs.fileno()), str(daemon),
             start_time(daemon) or "-", "output" if hold_output else "-", crash_reports],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=None if hold_output else subprocess.DEVNULL,
            stderr=None if hold_output else subprocess.DEVNULL, process_group=0)
        theirs.close()
        self.hold_new()

    def sockets(self) -> list[tuple[int, str]]:
        """This process's sockets (and its output, where it is held), but the one to the keeper."""
        found = []
        for entry in os.listdir("/proc/self/fd"):
            descriptor = int(entry)
            if descriptor == self.link.fileno():
                continue
            try:
                what = os.readlink(f"/proc/self/fd/{entry}")
            except OSError:
                continue  # closed since the listing
            if what.startswith("socket:") and descriptor > 2 or self.hold_output and descriptor in (1, 2):
                found.append((descriptor, what))
        return found

    def hold_new(self) -> None:
        """Hands the keeper a copy of every socket it does not hold yet: MPI opens connections
        to other ranks as it first talks to each."""
        new = [found for found in self.sockets() if found not in self.held]
        for start in range(0, len(new), MOST_DESCRIPTORS):
            batch = new[start:start + MOST_DESCRIPTORS]
            if self.send(HOLD, [descriptor for descriptor, _ in batch]):
                self.held.update(batch)

    def watch_jvm(self, pid: int) -> None:
        """The JVM the keeper kills should this launcher die."""
        started = start_time(pid)
        if started is not None:
            self.send(b"%s %d %s" % (JVM, pid, started.encode()))

    def done(self) -> None:
        """This launcher ends in order: the keeper lets go, and is reaped here (left to the
        node's init, it is a zombie of the run's session for as long as init takes)."""
        self.send(DONE)
        self.link.close()
        try:
            self.process.wait(timeout=DONE_SECONDS)
        except subprocess.TimeoutExpired:
            pass

    def send(self, message: bytes, descriptors: Sequence[int] = ()) -> bool:
        try:
            socket.send_fds(self.link, [message], list(descriptors))
            return True
        except OSError:
            return False  # the keeper is gone (its process group killed); the run goes on without it


def end_jvm(words: list[bytes]) -> None:
    """Kills the dead launcher's JVM and its process group, if it is still the one it started."""
    if len(words) != 2:
        return
    pid, started = int(words[0]), words[1].decode()
    if start_time(pid) == started:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def connections(descriptors: list[int]) -> list[socket.socket]:
    """The held sockets that are connections (not listening, not datagrams): their other end closes
    once the process there is gone."""
    found = []
    for descriptor in descriptors:
        try:
            held = socket.socket(fileno=descriptor)
        except OSError:
            continue  # the output, where it is held: a pipe
        try:
            if held.type == socket.SOCK_STREAM and not held.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
                found.append(held)
                continue
        except OSError:
            pass
        held.detach()  # held still, by its descriptor
    return found


def hold_until_others_close(held: list[int]) -> None:
    """Until the other end of every connection has closed; what comes on them is read and dropped,
    so that no survivor blocks on a full connection."""
    until = time.monotonic() + HOLD_SECONDS
    open_ = connections(held)
    while open_ and time.monotonic() < until:
        readable, _, _ = select.select(open_, [], [], until - time.monotonic())
        for connection in readable:
            try:
                closed = not connection.recv(1 << 16, socket.MSG_DONTWAIT)
            except BlockingIOError:
                closed = False
            except OSError:
                closed = True
            if closed:
                open_.remove(connection)
                connection.close()


def hold_until_daemon_is_alone(daemon: int, daemon_started: str) -> None:
    """Until the job's daemon on this node has no other rank left running (or has ended): it waits
    for this output to close before it ends, and what it does then no longer harms a rank."""
    until = time.monotonic() + HOLD_SECONDS
    while time.monotonic() < until and start_time(daemon) == daemon_started and any(map(alive, children_of(daemon))):
        time.sleep(DAEMON_LOOK_SECONDS)


def main(argv: list[str]) -> int:
    for number in IGNORED:
        signal.signal(number, signal.SIG_IGN)
    link = socket.socket(fileno=int(argv[0]))
    daemon, daemon_started, holds_output, crash_reports = int(argv[1]), argv[2], argv[3] == "output", argv[4]
    held: list[int] = []
    jvm: list[bytes] = []
    while True:
        try:
            message, descriptors, _, _ = socket.recv_fds(link, MESSAGE_BYTES, MOST_DESCRIPTORS)
        except OSError:
            message, descriptors = b"", []
        held += descriptors
        if message == DONE:
            return 0
        if not message:
            break  # the launcher is gone without a word
        if message.startswith(JVM):
            jvm = message.split()[1:]
    end_jvm(jvm)
    remove_if_empty(crash_reports)  # killed, its JVM wrote no report there
    if holds_output:
        # Hydra's proxy takes the rank for gone once its output closes, whatever its connections say.
        hold_until_daemon_is_alone(daemon, daemon_started)
    else:
        hold_until_others_close(held)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
