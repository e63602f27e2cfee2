"""One MPI rank of a run: the mpi4py transport of `jiobench.run.driver`.

Each task of the run is one JVM child of every rank (org.jiobench.runner.LauncherWorld), which
sends JSON lines (ready, barrier, wear-out, repeat, phase, error, failed, finished) and gets plain
lines back; this side does all the MPI. Every exchange between the ranks is a round in which each
rank also says how it stands (going on, stopped by a signal, failed), so a rank that fails or is
stopped meets the others in whatever round they are in: all then end the run together and no rank
is left waiting. The driver runs on every rank alike; rank 0's alone collects.

Started by `jiobench run` under mpirun, mpiexec or srun as
`python -m jiobench.run.rank REQUEST-JSON` (jiobench.run.request).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Iterator, Optional

from mpi4py import MPI

from . import collect
from .driver import Driver
from .launching import available_memory, load_average
from .mpi import EXIT_CODE_MARKER
from .request import RunRequest

# Polling keeps a waiting launcher off the CPU its JVM (or another rank's) is measuring with;
# MPI's own blocking calls spin. 0.2 ms adds that much skew between the ranks' barrier exits.
POLL_SECONDS = 0.0002
# How long a JVM asked to stop may take before it is killed.
STOP_GRACE_SECONDS = 5.0

GO, STOPPED, FAILED = "go", "stopped", "failed"


def quiet_barrier(comm) -> None:
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(POLL_SECONDS)


class OutputRelay(threading.Thread):
    """Holds one output stream of the JVM until the rank has started, then passes it through.

    Held back, the start-up complaints of all ranks can be reported once instead of N times.
    """

    def __init__(self, stream, out):
        super().__init__(daemon=True)
        self.stream = stream
        self.out = out
        self.held: list[str] = []
        self.passing = False
        self.lock = threading.Lock()

    def run(self):
        for line in self.stream:
            with self.lock:
                if self.passing:
                    self.out.write(line)
                    self.out.flush()
                else:
                    self.held.append(line)

    def pass_through(self):
        with self.lock:
            self.passing = True
            for line in self.held:
                self.out.write(line)
            self.out.flush()
            self.held.clear()

    def held_text(self) -> str:
        self.join(timeout=5)
        with self.lock:
            return "".join(self.held).strip()


class RankJvm:
    """One JVM child of this rank (one fork of the run) and its two control pipes."""

    def __init__(self, command: list[str], rank: int, size: int, first_node_ranks: int, task: str, start: str):
        reply_read, reply_write = os.pipe()
        message_read, message_write = os.pipe()
        env = dict(os.environ)
        env["JIOBENCH_CONTROL"] = f"{rank},{size},{first_node_ranks},{reply_read},{message_write},{task}"
        # A process group of its own: MPI launchers signal each rank's group, and the JVM must hear
        # a stop from this launcher only, as a SIGTERM it handles, not die of a forwarded SIGUSR1.
        self.process = subprocess.Popen(command, env=env, pass_fds=(reply_read, message_write),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, process_group=0)
        os.close(reply_read)
        os.close(message_write)
        self.replies = os.fdopen(reply_write, "w", buffering=1)
        self.messages = os.fdopen(message_read, "r")
        self.relays = [OutputRelay(self.process.stdout, sys.stdout), OutputRelay(self.process.stderr, sys.stderr)]
        for relay in self.relays:
            relay.start()
        self.phase = start
        self.when = "during"  # or "after" the phase, between two of them

    def receive(self) -> Optional[dict]:
        try:
            line = self.messages.readline()
        except OSError:
            return None
        return json.loads(line) if line else None

    def answer(self, text) -> None:
        try:
            self.replies.write(f"{text}\n")
            self.replies.flush()
        except (BrokenPipeError, ValueError):
            pass  # the JVM is gone; what it left is reported from its exit

    def pass_through(self) -> None:
        for relay in self.relays:
            relay.pass_through()

    def held_text(self) -> str:
        return "\n".join(text for text in (relay.held_text() for relay in self.relays) if text)

    def ask_to_stop(self) -> None:
        """SIGTERM, which the runner takes as a request to end its phase at the next check."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def end(self, grace: float = STOP_GRACE_SECONDS) -> int:
        """Waits for the JVM to exit, killing it if it takes longer than the grace."""
        try:
            return self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def close(self) -> None:
        """Tells the JVM the run ends here and waits for it to go."""
        self.answer("stop")
        self.end()

    def death(self) -> str:
        """How the JVM ended, in words."""
        code = self.end()
        if code < 0:
            return f"the JVM was killed by {signal.Signals(-code).name}"
        return f"the JVM exited with code {code}"


def describe_hosts(comm) -> tuple[list[str], int]:
    """Hosts of all ranks, and how many ranks rank 0's node holds (from which the runner works
    out -C's shift)."""
    hosts = comm.allgather(MPI.Get_processor_name())
    return hosts, hosts.count(hosts[0])


def start_status(jvm: RankJvm, first: Optional[dict]) -> tuple[int, str, Optional[dict]]:
    """(exit code, message, ready message): how this rank's JVM came up."""
    if first is None:
        code = jvm.end()
        text = jvm.held_text()
        if code == 0:
            return 2, (f"{jvm.process.args[0]} exited without running the jiobench runner"
                       + (f": {text}" if text else " (is it a Java 17 or newer runtime?)")), None
        return (2 if code in (1, 2) else code), text or f"{jvm.death()} before it started", None
    if first["type"] == "error":
        jvm.end()
        return first.get("exit", 2), "\n".join(first["messages"]), None
    if first["type"] == "ready":
        return 0, "", first
    return 1, f"unexpected first message {first!r}", None


def start_failure(outcomes: list[tuple[int, str]]) -> dict:
    """The error event of JVMs that did not start: the same complaint from several ranks is one line."""
    failed = [(rank, code, message) for rank, (code, message) in enumerate(outcomes) if code != 0]
    if len({message for _, _, message in failed}) == 1:
        messages = [failed[0][2]]
    else:
        messages = [f"jiobench: rank {rank}: {message or f'exited with code {code}'}" for rank, code, message in failed]
    return {"type": "error", "exit": max(code for _, code, _ in failed), "messages": messages,
            "rank": failed[0][0] if len(failed) == 1 else None}


def launcher_rank() -> Optional[str]:
    """This process's rank as the MPI launcher told it, before (and whatever) MPI says."""
    for variable in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"):
        if variable in os.environ:
            return os.environ[variable]
    return None


class RunEnds(Exception):
    """A round found a rank that failed or was stopped: every rank ends the run in that round."""

    def __init__(self, ending: dict):
        super().__init__(ending["message"])
        self.event = {"type": ending["reason"], "ending": ending}


class Ranks:
    """This rank's JVMs and its rounds with the other ranks, as events for the driver."""

    def __init__(self, comm, request: RunRequest):
        self.comm = comm
        self.request = request
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.who = f"rank {self.rank}"
        self.hosts, self.first_node_ranks = describe_hosts(comm)
        self.jvm: Optional[RankJvm] = None
        self.stop_signal: Optional[str] = None
        # Re-entrant: the signal handler runs on the main thread, perhaps while it holds the lock.
        self.lock = threading.RLock()

    def mpi(self) -> dict:
        return {"library": MPI.Get_library_version().strip().strip("\0").strip(),
                "standard": "%d.%d" % MPI.Get_version()}

    def loads(self) -> dict[str, Optional[list[float]]]:
        """Every host's load average (launching.load_average), as its ranks see it now."""
        quiet_barrier(self.comm)
        return dict(self.comm.allgather((MPI.Get_processor_name(), load_average())))

    def stop(self, signal_name: str) -> None:
        """Asks this rank's JVM to end its phase; the next round tells every rank."""
        with self.lock:
            self.stop_signal = self.stop_signal or signal_name
            jvm = self.jvm
        if jvm is not None:
            jvm.ask_to_stop()
            timer = threading.Timer(STOP_GRACE_SECONDS, lambda: jvm.process.poll() is None and jvm.process.kill())
            timer.daemon = True
            timer.start()

    # Rounds ------------------------------------------------------------------------------------

    def status(self) -> tuple:
        if self.stop_signal is None:
            return GO, None
        return STOPPED, {"signal": self.stop_signal, "phase": self.jvm.phase if self.jvm else None}

    def round(self, payload=None, status: Optional[tuple] = None) -> list:
        """One exchange with every rank: each says how it stands and hands in a payload; every
        rank's payload, or RunEnds when some rank cannot go on."""
        quiet_barrier(self.comm)
        results = self.comm.allgather((status or self.status(), payload))
        # A failure says more than the stop it may have caused: it comes first.
        for rank, ((state, detail), _) in sorted(enumerate(results), key=lambda item: item[1][0][0] != FAILED):
            if state != GO:
                raise RunEnds(describe_ending(rank, state, detail))
        return [payload for _, payload in results]

    def agree(self, value) -> dict:
        """Rank 0's value, the same on every rank."""
        try:
            return {"type": "agreed", "value": self.round(value)[0]}
        except RunEnds as ends:
            return ends.event

    # Tasks -------------------------------------------------------------------------------------

    def task(self, task: str, label: str, unable: Optional[str]) -> Iterator[dict]:
        try:
            yield from self.run_task(task, label, unable)
        except RunEnds as ends:
            if self.jvm is not None:
                self.jvm.close()
            yield ends.event

    def run_task(self, task: str, label: str, unable: Optional[str]) -> Iterator[dict]:
        jvm, ready, outcome = self.start_jvm(task, label, unable)
        memory = (ready["environment"].get("plan_memory_bytes") if ready else None, available_memory())
        starts = self.round((outcome, memory))
        if any(code for (code, _), _ in starts):
            if ready is not None:
                jvm.close()
            yield dict(start_failure([start for start, _ in starts]), created=ready["created"] if ready else [])
            return
        refusal = yield {"type": "ready", "ready": ready, "memory": [memory for _, memory in starts]}
        refusals = [text for text in self.round(refusal) if text]
        if refusals:
            jvm.close()
            yield {"type": "error", "exit": 2, "messages": refusals[:1], "rank": None, "created": ready["created"]}
            return
        yield {"type": "started", "ready": ready}
        jvm.pass_through()
        jvm.answer("start")
        yield from self.serve(jvm)

    def start_jvm(self, task: str, label: str, unable: Optional[str]) -> tuple:
        """(jvm, ready message, (exit code, message)): this rank's JVM for one task, up or not."""
        if unable is not None:
            return None, None, (1, unable)
        if self.stop_signal is not None:
            return None, None, (0, "")
        command = self.request.jvm_command()
        try:
            jvm = RankJvm(command, self.rank, self.size, self.first_node_ranks, task, label)
        except OSError as problem:
            return None, None, (2, f"cannot start {command[0]}: {problem.strerror}")
        with self.lock:
            self.jvm = jvm
        code, text, ready = start_status(jvm, jvm.receive())
        if self.stop_signal is not None:
            jvm.ask_to_stop()
        return jvm, ready, (code, text)

    def serve(self, jvm: RankJvm) -> Iterator[dict]:
        """Answers one JVM until it finishes."""
        while True:
            message = jvm.receive()
            kind = message["type"] if message else None
            if kind in (None, "failed", "error"):
                text = "; ".join(message["messages"]) if message else jvm.death()
                jvm.end()
                # Its end was the stop's doing, not a failure of its own, when a stop was asked.
                self.round(status=None if self.stop_signal else
                           (FAILED, {"phase": jvm.phase, "when": jvm.when, "message": text}))
            elif kind == "barrier":
                jvm.phase, jvm.when = message["phase"], "during"
                self.round()
                jvm.answer("go")
            elif kind == "wear-out":
                jvm.answer(max(self.round(message["bytes"])))
            elif kind == "repeat":
                going = yield {"type": "repeat", "fork": message["fork"], "approaches": message["approaches"]}
                # Rank 0 alone decides, from the phases it collected: every rank answers its JVM alike.
                jvm.answer(",".join(self.round(going)[0]))
            elif kind == "phase":
                mine = [dict(record, host=MPI.Get_processor_name()) for record in message["records"]]
                records = [record for payload in self.round(mine) for record in payload]
                yield {"type": "phase", "records": records}
                jvm.answer(json.dumps([record["bytes"] for record in records]))
                jvm.when = "after"
            elif kind == "finished":
                code = jvm.end()
                ends = self.round((message["exit"], message["messages"]))
                yield {"type": "finished", "exit": max(code, *(exit_code for exit_code, _ in ends)),
                       "messages": [text for _, texts in ends for text in texts]}
                return
            else:
                jvm.end()
                self.round(status=(FAILED, {"phase": jvm.phase, "when": jvm.when,
                                            "message": f"unexpected message from the JVM: {message!r}"}))


def describe_ending(rank: int, state: str, detail: dict) -> dict:
    if state == FAILED:
        # The runner names the phase itself where it knows it: said once.
        message = detail["message"]
        if message.startswith(detail["phase"]):
            message = message[len(detail["phase"]):].lstrip(" :").removeprefix("on ")
        return collect.failure(message, rank, detail["phase"], detail["when"])
    during = f" during {detail['phase']}" if detail.get("phase") else ""
    return collect.stop(detail["signal"], f"stopped by {detail['signal']}{during}", rank, detail.get("phase"))


def watch_parent(driver: Driver, ranks: Ranks) -> None:
    """mpirun gone (killed from outside) leaves no MPI to end the run with, and its library may
    end this process within a second: at once, this rank removes what it created and rank 0
    writes what it has; then the JVM, whose phase cannot be completed, is killed."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.05)
    # Its output went with it: nothing said now may stop what must be done.
    sys.stdout = sys.stderr = open(os.devnull, "w")
    driver.abandon("the MPI launcher ended before the run did")
    with ranks.lock:
        jvm = ranks.jvm
    if jvm is not None and jvm.process.poll() is None:
        jvm.process.kill()
    os._exit(1)


def main(argv: Optional[list[str]] = None) -> int:
    (request_json,) = sys.argv[1:] if argv is None else argv
    request = RunRequest.from_json(request_json)
    comm = MPI.COMM_WORLD
    if comm.Get_size() != request.ranks:
        # Every process thinks it is alone: mpi4py's MPI is not the one that started it.
        if launcher_rank() in ("0", None):
            print(f"jiobench: error: started {request.ranks} ranks but MPI sees {comm.Get_size()}: mpi4py uses "
                  f"{MPI.Get_library_version().splitlines()[0].strip()}, not the MPI of the launcher; install "
                  "mpi4py for that MPI (or run the launcher of mpi4py's MPI)", file=sys.stderr, flush=True)
        return 2
    ranks = Ranks(comm, request)
    driver = Driver(request, ranks)
    threading.Thread(target=watch_parent, args=(driver, ranks), daemon=True).start()
    code = driver.run()
    if comm.Get_rank() == 0:
        sys.stdout.flush()
        sys.stdout.buffer.write(EXIT_CODE_MARKER + b"%d\n" % code)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
