"""`jiobench run --launcher mpj-multicore|mpj-niodev`: the ranks are MPJ Express threads or JVMs.

Each JVM of the run (the first, then one per fork of each approach) is one MPJ Express job, started
with MPJ's own starter: with `multicore` every rank is a thread of one JVM, with `niodev` every rank
is a JVM that MPJ's daemon starts (jiobench starts a daemon on this host when none runs, and stops
it by its PID at the end). Both run on this node only: a niodev run whose ranks would go to another
host is refused before anything starts. The ranks synchronise with MPJ's collectives (MpjWorld);
rank 0 prints tagged JSON lines, the events of `jiobench.run.driver`, which runs the whole run in
this one process as it runs on every mpi4py rank. This side watches the ranks' processes, so that a
rank whose JVM dies ends the whole job instead of leaving the others waiting, and gives every job's
ranks the run's --start-timeout to start and be ready.

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
from typing import Iterator, Optional, Union

from ..errors import error
from ..launchpaths import MPJ_DEVICES
from ..model import runfile
from . import collect
from .driver import FIRST, Driver
from .launching import available_memory, load_average, ranks_on
from .processes import alive, descendants_of, kill
from .request import RunRequest
from .startup import HeldOutput, StartDeadline
from .transport import Agreed, Ended, Finished, NotStarted, PhaseRecords, Ready, Started, StartLate, TaskEvents

# MPJ_HOME names another installation, such as MPJ Express's own release; Debian's by default.
INSTALLED_HOME = Path(os.environ.get("MPJ_HOME", "/usr/share/mpj"))
# What MPJ's jars name in their manifests, and where Debian keeps them.
MANIFEST_JARS = ["log4j-1.2.jar", "commons-codec.jar", "commons-cli.jar", "commons-io.jar"]
DEBIAN_JAVA = Path("/usr/share/java")
INSTALL_HINT = ("it is optional (--launcher mpirun or srun need none of it); on Debian 'apt-get install libmpj-java' "
                "(scripts/debian-packages.sh run), then 'make build'")
MPJ_WORLD_CLASS = "org/jiobench/runner/MpjWorld.class"
TAG = "@jiobench "
# What MPJ's starter and daemon say about themselves: not the runner's output.
MPJ_CHATTER = re.compile(r"^(MPJ Express \(|Starting process <|Stopping Process <|\w*@Ping#$)")
# MPJ's starter, losing its daemon's connection as a job ends early, prints a stack trace of its own.
JAVA_THROWABLE = re.compile(r"^[\w.$]+(Exception|Error)(: .*)?$")
MPJ_PACKAGES = ("runtime.", "mpjdev.", "xdev.", "mpjbuf.", "mpi.")
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.")
# What MPJ's Wrapper prints in a niodev rank's JVM as it starts the rank, and as the rank's main returns.
RANK_STARTED = re.compile(r"^Starting process <(\d+)> on <(.*)>")
RANK_STOPPED = re.compile(r"^Stopping Process <(\d+)>")
WRAPPER = "runtime.daemon.Wrapper"
MACHINES_FILE = "-machinesfile"
ONE_NODE = ("--launcher mpj-niodev runs on one node only (MPJ Express's daemons would have to be started on every "
            "node, and the run's MPJ copy is local to this one)")
ACROSS_NODES = "use --launcher srun or mpirun across nodes"
DAEMON_PORT = "mpjexpress.mpjdaemon.port.1"
PORT_MANAGER_PORT = "mpjexpress.mpjdaemon.port.2"
STARTER_PORT = "mpjexpress.mpjrun.port.1"
POLL_S = 0.1
# A rank's process may end before rank 0's last line has come through MPJ's relay, and before the
# lines of the ranks that lost it (which tell that they end on their own) have.
GRACE_S = 2.0
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


def this_host(name: str) -> bool:
    """Whether a name of a machines file is this host: its own name, or a name with an address
    this host can bind to (localhost, one of its own addresses)."""
    if same_host(name):
        return True
    try:
        addresses = socket.getaddrinfo(name, 0, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return False
    for family, kind, _, _, address in addresses:
        try:
            with socket.socket(family, kind) as probe:
                probe.bind(address)
                return True
        except OSError:  # not this host's, or of a family this host does not speak (::1 without IPv6)
            continue
    return False


def one_node_refusal(request: RunRequest) -> Optional[str]:
    """Why an mpj-niodev run would place ranks on another host, where no daemon of the run runs and
    the run's MPJ copy is not seen; None when every rank runs here. MPJ's starter places ranks by a
    machines file or Hadoop YARN only: it reads none of Slurm's variables, so inside an allocation
    of several nodes every rank still runs on this node."""
    if request.launcher != "mpj-niodev":
        return None
    args = list(request.launcher_args)
    if "-yarn" in args:
        return f"{ONE_NODE}, and -yarn places the ranks on a Hadoop YARN cluster; {ACROSS_NODES}"
    for index, arg in enumerate(args):
        if arg != MACHINES_FILE:
            continue
        if index + 1 == len(args):
            return f"--launcher-args: {MACHINES_FILE} names no file"
        path = Path(args[index + 1])
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError as problem:
            return f"--launcher-args: {MACHINES_FILE} {path}: {problem.strerror or problem}"
        # MPJ's starter takes the file's distinct names in order, as many as there are ranks.
        hosts = list(dict.fromkeys(line.strip() for line in lines if line.strip()))[:request.ranks]
        others = [host for host in hosts if not this_host(host)]
        if others:
            return f"{ONE_NODE}, and {path} names {', '.join(others)}; {ACROSS_NODES}"
    return None


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


class Job:
    """One MPJ Express job (one task of the run on every rank), its output and its processes."""

    def __init__(self, command: list[str], env: dict, daemon: Optional[Daemon], jar: Path, hold_output: bool,
                 stop: Optional[threading.Event] = None, size: int = 1, deadline: Optional[StartDeadline] = None):
        self.jar = jar
        self.stop = stop or threading.Event()  # set when the run is asked to stop
        self.daemon = daemon
        self.size = size
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        started = time.monotonic()
        self.deadline = deadline  # None once the ranks are ready
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.hosts: list[str] = []
        self.pids: list[int] = []
        # Each rank's host: MPJ places every rank on this one (a run that would use others is
        # refused), and a niodev rank's JVM names its own as it starts.
        self.placed = {rank: socket.gethostname() for rank in range(size)}
        self.started: set[int] = set()  # niodev ranks whose JVM is up
        self.jvms: dict[int, int] = {}  # each rank's JVM's process id, once seen
        self.finished = False
        self.output: HeldOutput[str] = HeldOutput(lambda line: print(line, file=sys.stderr, flush=True))
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

    def say_held(self) -> None:
        """What the ranks printed before they failed to start, each different line once."""
        for line in dict.fromkeys(self.output.lines()):
            print(line, file=sys.stderr)

    def messages(self) -> Iterator[dict]:
        """Rank 0's messages as they come, until the job ends; raises JobBroken when a rank's
        process ends before the job finished, RanksLate when the ranks are not ready in time,
        JobStopped when a stop was asked."""
        while True:
            if self.stop.is_set():
                raise JobStopped()
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
            if line.startswith(TAG):
                message = json.loads(line[len(TAG):])
                if message["type"] == "ranks":
                    self.hosts, self.pids = message["hosts"], message["pids"]
                    self.placed.update(enumerate(self.hosts))
                    self.jvms.update(enumerate(self.pids))
                    continue
                if message["type"] == "abort":
                    self._trouble(message.get("rank"), message["message"])
                    continue
                if message["type"] == "ready":
                    self.deadline = None
                self.finished = self.finished or message["type"] == "finished"
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
            if line is not None and not line.startswith(TAG) and not MPJ_CHATTER.match(line):
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


class MpjRanks:
    """Every rank of the run, one MPJ Express job per task in turn: the transport
    (`jiobench.run.transport.Transport`) that speaks for all of them, in this one process, as their
    rank 0 does: it checks for every rank, writes the run file as rank 0, and removes every rank's
    files."""

    checks_every_rank = True
    writes_as = 0
    whose_files = None

    def __init__(self, request: RunRequest, java: str, home: Path, scratch: Path):
        self.request = request
        self.device = MPJ_DEVICES[request.launcher]
        self.current: Optional[Job] = None
        self.hosts: list[str] = []
        self.stopped = threading.Event()
        self.stop_signal: Optional[str] = None
        launcher_args = list(request.launcher_args)
        # With a machines file (of this host only: one_node_refusal) the user runs MPJ's daemon;
        # without, the run uses the daemon that listens on MPJ's port, else starts one of its own.
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

    def stopped_event(self) -> Ended:
        return Ended(collect.stop(self.stop_signal, f"stopped by {self.stop_signal}"))

    def agree(self, value) -> Union[Agreed, Ended]:
        return self.stopped_event() if self.stopped.is_set() else Agreed(value)

    def start(self, task: str, deadline: StartDeadline) -> Job:
        command = [self.java, "-jar", str(self.home / "lib" / "starter.jar"), *self.starter_args,
                   *self.request.jvm_args, "-jar", self.request.jar, f"--task={task}", *self.request.runner_args]
        self.current = Job(command, self.env, self.daemon, Path(self.request.jar), task == FIRST, self.stopped,
                           self.request.ranks, deadline)
        return self.current

    def memory(self, ready: dict, job: Job) -> list:
        """Each rank's (plan, available bytes of its host): every rank plans alike; only this
        host's memory is in sight."""
        available = available_memory()
        return [(ready["environment"].get("plan_memory_bytes"), available if same_host(host) else None)
                for host in job.hosts]

    def task(self, task: str, label: str, unable: Optional[str], deadline: StartDeadline) -> TaskEvents:
        if unable is not None:
            yield NotStarted(exit=1, messages=[unable])
            return
        if self.stopped.is_set():
            yield self.stopped_event()
            return
        job = self.start(task, deadline)
        ready = None
        try:
            messages = job.messages()
            for message in messages:
                if message["type"] == "ready":
                    ready = message
                    break
                if message["type"] in ("error", "failed"):
                    job.wait_end()
                    yield NotStarted(exit=message.get("exit", 1), messages=message["messages"])
                    return
            else:
                raise JobBroken("the MPJ Express job ended before its ranks started")
            self.hosts = job.hosts
            refusal = yield Ready(ready, memory=self.memory(ready, job))
            if refusal:
                job.end()
                yield NotStarted(exit=2, messages=[refusal], created=ready["created"])
                return
            yield Started(ready, runfile.new_run_id())
            job.output.release()
            for message in messages:
                if message["type"] == "phase":
                    yield PhaseRecords([dict(record, host=job.hosts[record["rank"]]) for record in message["records"]])
                elif message["type"] == "failed":
                    raise JobBroken("; ".join(message["messages"]))
                elif message["type"] == "finished":
                    job.wait_end()
                    yield Finished(message["exit"], message["messages"])
                    return
            raise JobBroken("the MPJ Express job ended without a word from rank 0")
        except JobBroken as broken:
            job.end()
            if ready is not None:
                yield Ended(collect.failure(str(broken)))
                return
            job.say_held()
            yield NotStarted(exit=1, messages=[str(broken)])
        except RanksLate as late:
            job.end()
            job.say_held()
            yield StartLate(late.ranks, late.what)
        except JobStopped:
            job.end()
            yield self.stopped_event()


def run(request: RunRequest, held: list[int]) -> int:
    """`jiobench run` with an MPJ launcher; returns the exit code."""
    jar = Path(request.jar)
    problem = one_node_refusal(request) or missing(jar)
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
