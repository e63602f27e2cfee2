"""`jiobench run --launcher mpj-multicore|mpj-niodev`: the ranks are MPJ Express threads or JVMs.

Each JVM of the run (the first, then one per fork of each approach) is one MPJ Express job
(jiobench.run.mpj_job), started with MPJ's own starter: with `multicore` every rank is a thread of
one JVM, with `niodev` every rank is a JVM that MPJ's daemon starts (jiobench.run.mpj_daemon: one
of the run's own where none runs). Both run on this node only: a niodev run whose ranks would go to
another host is refused before anything starts. The ranks synchronise with MPJ's collectives
(MpjWorld); rank 0 prints tagged JSON lines, the events of `jiobench.run.driver`, which runs the
whole run in this one process (`python -m jiobench.run.mpj`, which `jiobench run` supervises as it
supervises mpirun: jiobench.run.launch) as it runs on every mpi4py rank. MPJ itself is found and
made runnable by jiobench.run.mpj_install.
"""
from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Optional, Union

from ..errors import error
from ..exitcode import ExitCode
from ..launchpaths import MPJ_DEVICES
from ..model import runfile
from . import incomplete, wire
from .driver import FIRST, Driver
from .endings import complaints, named
from .mpj_daemon import DAEMON_PORT, PORT_MANAGER_PORT, STARTER_PORT, Daemon, DaemonFailed, free_ports, listening
from .mpj_install import configuration, missing, private_home, run_home
from .mpj_job import JobBroken, JobStopped, MpjJob, RanksLate, same_host
from .node import available_memory, load_average
from .request import RunRequest
from .startup import StartDeadline
from .transport import Agreed, Ended, Finished, NotStarted, PhaseRecords, Ready, Started, StartLate, TaskEvents


MACHINES_FILE = "-machinesfile"
ONE_NODE = ("--launcher mpj-niodev runs on one node only (MPJ Express's daemons would have to be started on every "
            "node, and the run's MPJ copy is local to this one)")
ACROSS_NODES = "use --launcher srun or mpirun across nodes"


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


class MpjRanks:
    """Every rank of the run, one MPJ Express job per task in turn: the transport
    (`jiobench.run.transport.Transport`) that speaks for all of them, in this one process, as their
    rank 0 does: it checks for every rank, writes the run file as rank 0, and removes every rank's
    files."""

    writer = 0

    def __init__(self, request: RunRequest, java: str, home: Path, scratch: Path):
        self.request = request
        self.device = MPJ_DEVICES[request.launcher]
        self.current: Optional[MpjJob] = None
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

    @property
    def speaks_for(self) -> range:
        return range(self.request.ranks)

    def mpi(self) -> dict[str, Any]:
        return {"library": f"MPJ Express {configuration(self.home)['mpjexpress.version']}",
                "standard": "mpiJava 1.2", "device": self.device}

    def loads(self) -> dict[str, Optional[list[float]]]:
        # This side runs on the launching node only: the other nodes' loads are out of its sight.
        return {socket.gethostname(): load_average()}

    def said_stop(self) -> None:
        wire.say(wire.STOP_SAID_MARKER)

    def tending(self, work: Callable[[], None]) -> None:
        # The job's ranks wait on this side's answers and watch no heartbeat of it.
        work()

    def stop(self, signal_name: str) -> None:
        """Ends the job under way at its next look at its output (its phase cannot be completed)."""
        self.stop_signal = self.stop_signal or signal_name
        self.stopped.set()

    def stopped_event(self) -> Ended:
        return Ended(incomplete.stop(self.stop_signal, f"stopped by {self.stop_signal}"))

    def agree(self, value: Any) -> Union[Agreed, Ended]:
        return self.stopped_event() if self.stopped.is_set() else Agreed(value)

    def start(self, task: str, deadline: StartDeadline) -> MpjJob:
        command = [self.java, "-jar", str(self.home / "lib" / "starter.jar"), *self.starter_args,
                   *self.request.jvm_args, "-jar", self.request.jar, wire.task_option(task), *self.request.runner_args]
        self.current = MpjJob(command, self.env, self.daemon, Path(self.request.jar), task == FIRST, self.stopped,
                              self.request.ranks, deadline)
        return self.current

    def memory(self, ready: dict[str, Any], job: MpjJob) -> list[tuple[Optional[int], Optional[int]]]:
        """Each rank's (plan, available bytes of its host): every rank plans alike; only this
        host's memory is in sight."""
        available = available_memory()
        return [(ready["environment"].get(wire.PLAN_MEMORY_BYTES), available if same_host(host) else None)
                for host in job.hosts]

    def task(self, task: str, label: str, unable: Optional[str], deadline: StartDeadline) -> TaskEvents:
        if unable is not None:
            yield NotStarted(exit=ExitCode.FAILED, messages=[unable])
            return
        if self.stopped.is_set():
            yield self.stopped_event()
            return
        job = self.start(task, deadline)
        ready = None
        try:
            messages = job.messages()
            for message in messages:
                if message["type"] == wire.Kind.READY:
                    ready = message
                    break
                if message["type"] in (wire.Kind.REFUSED, wire.Kind.FAILED):
                    job.wait_end()
                    lines, alone = said_by(message)
                    yield NotStarted(exit=message.get("exit", ExitCode.FAILED), messages=lines, rank=alone)
                    return
            else:
                raise JobBroken("the MPJ Express job ended before its ranks started")
            self.hosts = job.hosts
            refusal = yield Ready(ready, memory=self.memory(ready, job))
            if refusal:
                job.end()
                yield NotStarted(exit=ExitCode.MISTAKE, messages=[refusal], created=ready["created"])
                return
            yield Started(ready, runfile.new_run_id())
            job.output.release()
            for message in messages:
                if message["type"] == wire.Kind.PHASE:
                    yield PhaseRecords([dict(record, host=job.hosts[record["rank"]]) for record in message["records"]])
                elif message["type"] == wire.Kind.FAILED:
                    raise JobBroken("; ".join(named(*said_by(message))))
                elif message["type"] == wire.Kind.FINISHED:
                    job.wait_end()
                    yield Finished(message["exit"], message["messages"])
                    return
            raise JobBroken("the MPJ Express job ended without a word from rank 0")
        except JobBroken as broken:
            job.end()
            if ready is not None:
                yield Ended(incomplete.failure(str(broken)))
                return
            job.say_held()
            yield NotStarted(exit=ExitCode.FAILED, messages=[str(broken)])
        except RanksLate as late:
            job.end()
            job.say_held()
            yield StartLate(late.ranks, late.what)
        except JobStopped:
            job.end()
            yield self.stopped_event()


def said_by(message: dict[str, Any]) -> tuple[list[str], Optional[int]]:
    """What MPJ Express's rank 0 says the ranks that refused or failed said, as `complaints` has it;
    its own word where it names no rank."""
    if "ranks" not in message:
        return message["messages"], None
    return complaints(list(zip(message["ranks"], message["messages"])))


def refusal(request: RunRequest) -> Optional[str]:
    """Why the run cannot go through MPJ Express, found before anything starts; None where it can."""
    return one_node_refusal(request) or missing(Path(request.jar))


def run(request: RunRequest) -> int:
    """The run through MPJ Express (`refusal` passed); returns the exit code."""
    jar = Path(request.jar)
    java = shutil.which(request.java)
    if java is None:
        return error(f"cannot start {request.java}: is it installed?", ExitCode.NOT_FOUND)
    home = private_home(jar.parent / "mpj-home")
    scratch = Path(tempfile.mkdtemp(prefix="jiobench-mpj-"))
    ranks = None
    try:
        ranks = MpjRanks(request, java, home, scratch)
        return Driver(request, ranks).run()
    except DaemonFailed as failed:
        return error(str(failed), ExitCode.FAILED)
    finally:
        if ranks is not None:
            if ranks.current is not None:
                ranks.current.end()
            if ranks.daemon is not None:
                ranks.daemon.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: Optional[list[str]] = None) -> int:
    """`python -m jiobench.run.mpj REQUEST`, as `jiobench run` starts it (jiobench.run.launch): this
    one process speaks for every rank, so it is up, and every rank with it, as soon as it runs (the
    MPJ jobs' own start has its deadline here); its last word is the run's exit code."""
    (request_json,) = sys.argv[1:] if argv is None else argv
    wire.say(wire.rank_up("0", socket.gethostname()))
    wire.say(wire.ALL_UP_MARKER)
    code = run(RunRequest.from_json(request_json))
    wire.say(wire.exit_code_line(code))
    return code


if __name__ == "__main__":
    sys.exit(main())
