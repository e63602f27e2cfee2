"""MPJ Express's daemon, which starts a niodev run's rank JVMs: the ports of a run, and a daemon
of the run's own where none listens (jiobench.run.mpj), stopped by its process id at the end."""
from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Optional

from .mpj_install import configuration
from .processes import descendants_of, kill


WRAPPER = "runtime.daemon.Wrapper"
DAEMON_PORT = "mpjexpress.mpjdaemon.port.1"
PORT_MANAGER_PORT = "mpjexpress.mpjdaemon.port.2"
STARTER_PORT = "mpjexpress.mpjrun.port.1"
DAEMON_START_S = 30.0


def free_ports(count: int) -> list[int]:
    """Ports nothing on this host uses now, as the kernel hands them out."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def listening(port: int) -> bool:
    """Whether a process on this host listens on the TCP port (read from /proc, so that asking
    does not hand MPJ's daemon a connection it would take for a job)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def wrapped_rank(command: list[str]) -> Optional[int]:
    """The rank that a command line of MPJ's daemon runs (`java ... runtime.daemon.Wrapper CONF SIZE
    DEVICE HOST PORT RANK CLASS ...`), or None for any other command."""
    if WRAPPER not in command or len(command) <= command.index(WRAPPER) + 6:
        return None
    return int(command[command.index(WRAPPER) + 6])


class DaemonFailed(Exception):
    """MPJ's daemon, which this run started, did not come up."""


class Daemon:
    """MPJ's daemon started for this run on this host (it starts the niodev ranks' JVMs), stopped
    by its PID at the end."""

    def __init__(self, java: str, home: Path, env: dict[str, str], log: Path):
        ports = configuration(home)
        with open(log, "w") as output:
            self.process = subprocess.Popen(
                [java, "-cp", str(home / "lib" / "daemon.jar"), "runtime.daemon.MPJDaemon", ports[DAEMON_PORT]],
                env=env, cwd=log.parent, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + DAEMON_START_S
        # It listens on its port first, then on its port manager's, and exits when it cannot.
        while not (listening(int(ports[DAEMON_PORT])) and listening(int(ports[PORT_MANAGER_PORT]))):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise DaemonFailed(f"MPJ Express's daemon did not start: {log.read_text().strip()[-500:]}")
            time.sleep(0.05)

    def ranks(self) -> list[int]:
        """The ranks' JVMs this daemon runs, and whatever they started: all of them are this run's
        (MPJ's daemon, told to end a job, ends the JVMs it started and nothing they started)."""
        return descendants_of(self.process.pid)

    def rank_jvms(self) -> dict[int, int]:
        """The process id of each rank's JVM, by rank."""
        jvms = {}
        for pid in self.ranks():
            try:
                rank = wrapped_rank(Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0"))
            except OSError:
                continue
            if rank is not None:
                jvms[rank] = pid
        return jvms

    def stop(self) -> None:
        kill(self.ranks())
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
