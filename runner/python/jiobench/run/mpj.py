"""`jiobench run --launcher mpj-multicore|mpj-niodev`: the ranks are MPJ Express threads or JVMs.

Each JVM of the run (the first, then one per fork of each approach) is one MPJ Express job, started
with MPJ's own starter: with `multicore` every rank is a thread of one JVM, with `niodev` every rank
is a JVM that MPJ's daemon starts (jiobench starts a daemon on this host when none runs, and stops
it by its PID at the end). The ranks synchronise with MPJ's collectives (MpjWorld); rank 0 prints
tagged JSON lines, the events of `jiobench.run.driver`, which runs the whole run in this one
process as it runs on every mpi4py rank. This side watches the ranks' processes, so that a rank
whose JVM dies ends the whole job instead of leaving the others waiting.

Debian's libmpj-java does not start as packaged: its jars name log4j and commons-* next to
themselves in their manifests, where Debian has none. MPJ runs here from a private MPJ_HOME
(runner/target/mpj-home) that holds copies of MPJ's jars and of those four; each run uses it
through an MPJ_HOME of its own, whose configuration gives the run's starter and daemon free ports.
"""
from __future__ import annotations

import json
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Iterator, Optional

from ..errors import error
from ..launchpaths import MPJ_DEVICES
from . import collect
from .driver import FIRST, Driver
from .launching import available_memory, load_average
from .processes import alive, children_of, descendants_of, kill
from .request import RunRequest

# MPJ_HOME names another installation, such as MPJ Express's own release; Debian's by default.
INSTALLED_HOME = Path(os.environ.get("MPJ_HOME", "/usr/share/mpj"))
# What MPJ's jars name in their manifests, and where Debian keeps them.
MANIFEST_JARS = ["log4j-1.2.jar", "commons-codec.jar", "commons-cli.jar", "commons-io.jar"]
DEBIAN_JAVA = Path("/usr/share/java")
INSTALL_HINT = "install it with 'apt-get install libmpj-java' (scripts/debian-packages.sh run), then run 'make build'"
MPJ_WORLD_CLASS = "org/jiobench/runner/MpjWorld.class"
TAG = "@jiobench "
# What MPJ's starter and daemon say about themselves: not the runner's output.
MPJ_CHATTER = re.compile(r"^(MPJ Express \(|Starting process <|Stopping Process <|\w*@Ping#$)")
# MPJ's starter, losing its daemon's connection as a job ends early, prints a stack trace of its own.
JAVA_THROWABLE = re.compile(r"^[\w.$]+(Exception|Error)(: .*)?$")
MPJ_PACKAGES = ("runtime.", "mpjdev.", "xdev.", "mpjbuf.", "mpi.")
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.")
RANK_STOPPED = re.compile(r"^Stopping Process <(\d+)>")
DAEMON_PORT = "mpjexpress.mpjdaemon.port.1"
PORT_MANAGER_PORT = "mpjexpress.mpjdaemon.port.2"
STARTER_PORT = "mpjexpress.mpjrun.port.1"
POLL_S = 0.1
# A rank's process may end before rank 0's last line has come through MPJ's relay.
GRACE_S = 2.0
# A peer's socket closes as its process exits, a moment before /proc shows it gone.
PEER_DEATH_S = 0.3
# A niodev job whose ranks' JVMs fail to start leaves MPJ's starter waiting for them for ever; a
# daemon of this run's own that has run none of the job's JVMs for this long tells of it.
NO_RANKS_S = 15.0
DAEMON_START_S = 30.0


def missing(jar: Path) -> Optional[str]:
    """Why MPJ Express cannot run here, or None."""
    if not (INSTALLED_HOME / "lib" / "mpj.jar").is_file():
        return f"MPJ Express is not installed ({INSTALLED_HOME / 'lib' / 'mpj.jar'} is missing): {INSTALL_HINT}"
    for name in MANIFEST_JARS:
        if not (INSTALLED_HOME / "lib" / name).is_file() and not (DEBIAN_JAVA / name).is_file():
            return f"MPJ Express needs {name}, found neither in {INSTALLED_HOME / 'lib'} nor in {DEBIAN_JAVA}"
    with zipfile.ZipFile(jar) as runner:
        if MPJ_WORLD_CLASS not in runner.namelist():
            return f"the runner was built without MPJ Express: run 'make build' in {jar.parents[2]}"
    return None


def private_home(target: Path) -> Path:
    """An MPJ_HOME whose lib/ holds real copies of MPJ's jars and of the jars their manifests
    name; made again when the installed MPJ changes."""
    source_jar = INSTALLED_HOME / "lib" / "mpj.jar"
    stamp = f"{source_jar.resolve()} {source_jar.stat().st_size} {source_jar.stat().st_mtime_ns}\n"
    stamp_file = target / "installed-from"
    if stamp_file.is_file() and stamp_file.read_text() == stamp:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".mpj-home-", dir=target.parent))
    (building / "lib").mkdir()
    for jar in (INSTALLED_HOME / "lib").glob("*.jar"):
        shutil.copy(jar, building / "lib" / jar.name)
    for name in MANIFEST_JARS:
        if not (building / "lib" / name).exists():
            shutil.copy(DEBIAN_JAVA / name, building / "lib" / name)
    shutil.copytree(INSTALLED_HOME / "conf", building / "conf")
    (building / "installed-from").write_text(stamp)
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)
    try:
        building.rename(target)
    except OSError:  # another run made it at the same moment
        shutil.rmtree(building, ignore_errors=True)
    return target


def configuration(home: Path) -> dict[str, str]:
    """mpjexpress.conf as key → value."""
    values = {}
    for line in (home / "conf" / "mpjexpress.conf").read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values


def run_home(shared: Path, target: Path, ports: dict[str, int]) -> Path:
    """An MPJ_HOME for one run: the shared one's jars, and its configuration with this run's ports.
    A port of its own keeps MPJ's starter (and a daemon of this run's own) clear of other runs and
    of the closing connections that a run before it left on the usual ports."""
    (target / "conf").mkdir(parents=True)
    (target / "lib").symlink_to(shared / "lib")
    lines = []
    for line in (shared / "conf" / "mpjexpress.conf").read_text().splitlines():
        key = line.split("=", 1)[0].strip()
        lines.append(f"{key}={ports[key]}" if key in ports and not line.lstrip().startswith("#") else line)
    (target / "conf" / "mpjexpress.conf").write_text("\n".join(lines) + "\n")
    return target


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


class DaemonFailed(Exception):
    """MPJ's daemon, which this run started, did not come up."""


class Daemon:
    """MPJ's daemon started for this run on this host (it starts the niodev ranks' JVMs), stopped
    by its PID at the end."""

    def __init__(self, java: str, home: Path, env: dict, log: Path):
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
        """The JVMs this daemon runs: all of them are this run's."""
        return children_of(self.process.pid)

    def stop(self) -> None:
        kill(self.ranks())
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class JobBroken(Exception):
    """A rank's process ended, or MPI failed, in the middle of a job: the job cannot finish."""


class JobStopped(Exception):
    """A signal asked the run to stop: the job's phase cannot be completed."""


def same_host(host: str) -> bool:
    return host.split(".")[0] == socket.gethostname().split(".")[0]


class Job:
    """One MPJ Express job (one task of the run on every rank), its output and its processes."""

    def __init__(self, command: list[str], env: dict, daemon: Optional[Daemon], jar: Path, hold_output: bool,
                 stop: Optional[threading.Event] = None):
        self.jar = jar
        self.stop = stop or threading.Event()  # set when the run is asked to stop
        self.daemon = daemon
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.hosts: list[str] = []
        self.pids: list[int] = []
        self.finished = False
        self.held: list[str] = [] if hold_output else None
        self.first_end: Optional[tuple[float, str]] = None
        self.ranks_seen = time.monotonic()

    def _read(self) -> None:
        trace: list[str] = []
        for line in self.process.stdout:
            line = line.rstrip("\n")
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

    def pass_output(self) -> None:
        """The ranks have started: what they print goes to standard error as it comes."""
        if self.held is not None:
            for line in self.held:
                print(line, file=sys.stderr)
            self.held = None

    def held_output(self) -> list[str]:
        """What the ranks printed before they started, each different line once."""
        return list(dict.fromkeys(self.held or []))

    def messages(self) -> Iterator[dict]:
        """Rank 0's messages as they come, until the job ends; raises JobBroken when a rank's
        process ends before the job finished, JobStopped when a stop was asked."""
        while True:
            if self.stop.is_set():
                raise JobStopped()
            try:
                line = self.lines.get(timeout=POLL_S)
            except queue.Empty:
                self._watch()
                continue
            if line is None:
                self.process.wait()
                if not self.finished:
                    raise JobBroken(self.first_end[1] if self.first_end else
                                    f"MPJ Express's starter ended (exit code {self.process.returncode}) "
                                    "before the ranks finished")
                return
            if line.startswith(TAG):
                message = json.loads(line[len(TAG):])
                if message["type"] == "ranks":
                    self.hosts, self.pids = message["hosts"], message["pids"]
                    continue
                if message["type"] == "abort":
                    raise JobBroken(self._dead_rank(besides=message.get("rank"), within=PEER_DEATH_S)
                                    or message["message"])
                self.finished = self.finished or message["type"] == "finished"
                yield message
            elif MPJ_CHATTER.match(line):
                stopped = RANK_STOPPED.match(line)
                if stopped and not self.finished:
                    self._ended(f"rank {stopped.group(1)}'s JVM ended in the middle of the run")
            elif self.held is not None:
                self.held.append(line)
            else:
                print(line, file=sys.stderr, flush=True)

    def _ended(self, message: str) -> None:
        if self.first_end is None:
            self.first_end = (time.monotonic(), message)

    def _watch(self) -> None:
        if not self.hosts and self.daemon is not None:
            if self.daemon.ranks():
                self.ranks_seen = time.monotonic()
            elif time.monotonic() - self.ranks_seen > NO_RANKS_S:
                raise JobBroken("the ranks' JVMs ended before the ranks started")
        if not self.finished:
            dead = self._dead_rank()
            if dead:
                self._ended(dead)
        if self.first_end and not self.finished and time.monotonic() - self.first_end[0] > GRACE_S:
            raise JobBroken(self.first_end[1])

    def _dead_rank(self, besides: Optional[int] = None, within: float = 0) -> Optional[str]:
        """What a rank whose JVM died tells, looking for up to `within` seconds, leaving out the
        JVM of rank `besides` (which may be ending on its own): a rank that lost its peer in a
        collective reports that first, but the peer's death is the cause."""
        deadline = time.monotonic() + within
        spared = self.pids[besides] if besides is not None and besides < len(self.pids) else None
        while True:
            for rank, (host, pid) in enumerate(zip(self.hosts, self.pids)):
                if same_host(host) and pid != spared and not alive(pid):
                    return f"rank {rank}'s JVM (pid {pid}) ended in the middle of the run"
            if time.monotonic() >= deadline:
                return None
            time.sleep(POLL_S / 2)

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
            if line is not None and not line.startswith(TAG) and not MPJ_CHATTER.match(line):
                print(line, file=sys.stderr, flush=True)
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


class MpjRanks:
    """Every rank of the run, one MPJ Express job per task in turn: the transport of
    `jiobench.run.driver` that speaks for all of them (as rank 0 does)."""

    rank = 0
    who = None  # the files removed are every rank's

    def __init__(self, request: RunRequest, java: str, home: Path, scratch: Path):
        self.request = request
        self.device = MPJ_DEVICES[request.launcher]
        self.current: Optional[Job] = None
        self.hosts: list[str] = []
        self.stopped = threading.Event()
        self.stop_signal: Optional[str] = None
        launcher_args = list(request.launcher_args)
        # With a machines file the user runs MPJ's daemons on those machines; on this host alone
        # the run uses the daemon that listens on MPJ's port, else starts one of its own.
        local = "-machinesfile" not in launcher_args
        own_daemon = self.device == "niodev" and local and not listening(int(configuration(home)[DAEMON_PORT]))
        keys = [STARTER_PORT, DAEMON_PORT, PORT_MANAGER_PORT] if own_daemon else [STARTER_PORT]
        self.home = run_home(home, scratch / "mpj-home", dict(zip(keys, free_ports(len(keys)))))
        # MPJ starts the ranks' JVMs (and the multicore one) as "java" from PATH.
        (scratch / "bin").mkdir()
        (scratch / "bin" / "java").symlink_to(os.path.abspath(java))
        self.java = java
        self.env = dict(os.environ, MPJ_HOME=str(self.home),
                        PATH=f"{scratch / 'bin'}{os.pathsep}{os.environ['PATH']}")
        self.starter_args = ["-np", str(request.ranks), "-dev", self.device]
        if self.device == "niodev" and local:
            (scratch / "machines").write_text(socket.gethostname() + "\n")
            self.starter_args += ["-machinesfile", str(scratch / "machines")]
        self.starter_args += launcher_args
        self.daemon = Daemon(java, self.home, self.env, scratch / "daemon.log") if own_daemon else None

    def mpi(self) -> dict:
        return {"library": f"MPJ Express {configuration(self.home)['mpjexpress.version']}",
                "standard": "mpiJava 1.2", "device": self.device}

    def loads(self) -> dict:
        # This side runs on the launching node only: the other nodes' loads are out of its sight.
        return {socket.gethostname(): load_average()}

    def stop(self, signal_name: str) -> None:
        """Ends the job under way at its next look at its output (its phase cannot be completed)."""
        self.stop_signal = self.stop_signal or signal_name
        self.stopped.set()

    def stopped_event(self) -> dict:
        return {"type": "stopped", "ending": collect.stop(self.stop_signal, f"stopped by {self.stop_signal}")}

    def agree(self, value) -> dict:
        return self.stopped_event() if self.stopped.is_set() else {"type": "agreed", "value": value}

    def start(self, task: str) -> Job:
        command = [self.java, "-jar", str(self.home / "lib" / "starter.jar"), *self.starter_args,
                   *self.request.jvm_args, "-jar", self.request.jar, f"--task={task}", *self.request.runner_args]
        self.current = Job(command, self.env, self.daemon, Path(self.request.jar), task == FIRST, self.stopped)
        return self.current

    def memory(self, ready: dict, job: Job) -> list:
        """Each rank's (plan, available bytes of its host): every rank plans alike; only this
        host's memory is in sight."""
        available = available_memory()
        return [(ready["environment"].get("plan_memory_bytes"), available if same_host(host) else None)
                for host in job.hosts]

    def task(self, task: str, label: str, unable: Optional[str]) -> Iterator[dict]:
        if unable is not None:
            yield {"type": "error", "exit": 1, "messages": [unable], "rank": None, "created": []}
            return
        if self.stopped.is_set():
            yield self.stopped_event()
            return
        job = self.start(task)
        ready = None
        try:
            messages = job.messages()
            for message in messages:
                if message["type"] == "ready":
                    ready = message
                    break
                if message["type"] in ("error", "failed"):
                    job.wait_end()
                    yield {"type": "error", "exit": message.get("exit", 1), "messages": message["messages"],
                           "rank": None, "created": []}
                    return
            else:
                raise JobBroken("the MPJ Express job ended before its ranks started")
            self.hosts = job.hosts
            refusal = yield {"type": "ready", "ready": ready, "memory": self.memory(ready, job)}
            if refusal:
                job.end()
                yield {"type": "error", "exit": 2, "messages": [refusal], "rank": None, "created": ready["created"]}
                return
            job.pass_output()
            yield {"type": "started", "ready": ready}
            for message in messages:
                if message["type"] == "phase":
                    yield {"type": "phase",
                           "records": [dict(record, host=job.hosts[record["rank"]]) for record in message["records"]]}
                elif message["type"] == "failed":
                    raise JobBroken("; ".join(message["messages"]))
                elif message["type"] == "finished":
                    job.wait_end()
                    yield {"type": "finished", "exit": message["exit"], "messages": message["messages"]}
                    return
            raise JobBroken("the MPJ Express job ended without a word from rank 0")
        except JobBroken as broken:
            job.end()
            if ready is not None:
                yield {"type": "failed", "ending": collect.failure(str(broken))}
                return
            for line in job.held_output():
                print(line, file=sys.stderr)
            yield {"type": "error", "exit": 1, "messages": [str(broken)], "rank": None, "created": []}
        except JobStopped:
            job.end()
            yield self.stopped_event()


def run(request: RunRequest, held: list[int]) -> int:
    """`jiobench run` with an MPJ launcher; returns the exit code."""
    jar = Path(request.jar)
    problem = missing(jar)
    if problem:
        return error(problem)
    java = shutil.which(request.java)
    if java is None:
        return error(f"cannot start {request.java}: is it installed?", 127)
    home = private_home(jar.parent / "mpj-home")
    scratch = Path(tempfile.mkdtemp(prefix="jiobench-mpj-"))
    ranks = None
    try:
        ranks = MpjRanks(request, java, home, scratch)
        return Driver(request, ranks).run(held)
    except DaemonFailed as failed:
        return error(str(failed), 1)
    finally:
        if ranks is not None:
            if ranks.current is not None:
                ranks.current.end()
            if ranks.daemon is not None:
                ranks.daemon.stop()
        shutil.rmtree(scratch, ignore_errors=True)
