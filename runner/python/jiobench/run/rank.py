"""One MPI rank of a run: starts this rank's JVMs in turn and serves them over two pipes.

Each fork of the run is one JVM child (org.jiobench.runner.LauncherWorld), started in turn; it
sends JSON lines: ready, barrier, wear-out, record, error, failed, finished. This side answers
with plain lines and does all the MPI. Every exchange between the ranks is a round in which each
rank also says how it stands (going on, stopped by a signal, failed), so a rank that fails or is
stopped meets the others in whatever round they are in: all then end the run together, no rank
is left waiting, and rank 0 writes the run file of the phases completed, marked incomplete.
Rank 0 hands the records to `jiobench.collect`, which reduces, prints and writes the run file.

Started by `jiobench run` under mpirun, mpiexec or srun as
`python -m jiobench.run.rank [options] -- RUNNER-ARGS`.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Optional

from mpi4py import MPI

from ..model import repetitions, runfile
from . import collect
from .launching import (available_memory, empty, files_to_empty, fork_tasks, load_average, run_environment,
                        slurm_environment)
from .mpi import EXIT_CODE_MARKER, RANK_OVERHEAD_BYTES

# Polling keeps a waiting launcher off the CPU its JVM (or another rank's) is measuring with;
# MPI's own blocking calls spin. 0.2 ms adds that much skew between the ranks' barrier exits.
POLL_SECONDS = 0.0002
# How long a JVM asked to stop may take before it is killed.
STOP_GRACE_SECONDS = 5.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1)

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

    def death(self) -> str:
        """How the JVM ended, in words."""
        code = self.end()
        if code < 0:
            return f"the JVM was killed by {signal.Signals(-code).name}"
        return f"the JVM exited with code {code}"


def describe_hosts(comm) -> tuple[list[str], dict[str, int], int]:
    """Hosts of all ranks, ranks per host, and how many ranks rank 0's node holds (from which the
    runner works out -C's shift)."""
    hosts = comm.allgather(MPI.Get_processor_name())
    return hosts, dict(Counter(hosts)), hosts.count(hosts[0])


def loads_by_host(comm) -> dict[str, Optional[list[float]]]:
    """Every host's load average (launching.load_average), as its ranks see it now."""
    return dict(comm.allgather((MPI.Get_processor_name(), load_average())))


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
        return first.get("exit", 2), first["message"], None
    if first["type"] == "ready":
        return 0, "", first
    return 1, f"unexpected first message {first!r}", None


def report_start_failure(statuses: list[tuple[int, str]]) -> int:
    """Says once what stopped the ranks; the same complaint from several ranks is one line."""
    failed = [(rank, code, message) for rank, (code, message) in enumerate(statuses) if code != 0]
    messages = {message for _, _, message in failed}
    if len(messages) == 1:
        text = " ".join(messages.pop().split())
        if text:
            print(text if text.startswith("jiobench") else f"jiobench: error: {text}", file=sys.stderr)
    else:
        for rank, code, message in failed:
            print(f"jiobench: rank {rank}: {message or f'exited with code {code}'}", file=sys.stderr)
    return max(code for _, code, _ in failed)


def signal_name(number: int) -> str:
    """The signal's name; for SIGUSR1, the one `jiobench run` got and passed on as SIGUSR1."""
    if number == signal.SIGUSR1:
        try:
            with open(os.environ["JIOBENCH_STOP_NOTE"]) as note:
                return note.read().strip() or "SIGUSR1"
        except (KeyError, OSError):
            pass
    return signal.Signals(number).name


def launcher_rank() -> Optional[str]:
    """This process's rank as the MPI launcher told it, before (and whatever) MPI says."""
    for variable in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"):
        if variable in os.environ:
            return os.environ[variable]
    return None


class Rank:
    """This rank's part of the run: its JVMs in turn, the rounds with the other ranks, the end."""

    def __init__(self, comm, options, runner_args: list[str]):
        self.comm = comm
        self.options = options
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.command = [options.java, *shlex.split(options.jvm_args), "-jar", options.jar, *runner_args]
        self.runner_args = runner_args
        self.jvm: Optional[RankJvm] = None
        self.stop_signal: Optional[str] = None
        self.collector: Optional[collect.Collector] = None
        self.created: list[str] = []
        self.to_empty: list[str] = []  # emptied before every JVM after the first
        self.keep = False
        self.ending: Optional[dict] = None  # what ended the run early, as the run file says
        self.problems: list[str] = []  # rank 0: what the JVMs said went wrong
        self.load_average: dict = {}  # "start" and "end": each host's
        # Re-entrant: the signal handler runs on the main thread, perhaps while it holds the lock.
        self.lock = threading.RLock()
        self.parent = os.getppid()

    # Signals and orphaning -------------------------------------------------------------------

    def watch(self) -> None:
        for number in STOP_SIGNALS:
            signal.signal(number, self.on_signal)
        threading.Thread(target=self.watch_parent, daemon=True).start()
        # `jiobench run` notes its signal before passing it on: a stop that came while mpirun was
        # still starting this rank reached no handler here, and would wait for the escalation.
        try:
            if os.path.getsize(os.environ["JIOBENCH_STOP_NOTE"]) > 0:
                self.on_signal(signal.SIGUSR1, None)
        except (KeyError, OSError):
            pass

    def on_signal(self, number, frame) -> None:
        with self.lock:
            if self.stop_signal is None:
                self.stop_signal = signal_name(number)
            jvm = self.jvm
        if jvm is not None:
            jvm.ask_to_stop()
            timer = threading.Timer(STOP_GRACE_SECONDS, lambda: jvm.process.poll() is None and jvm.process.kill())
            timer.daemon = True
            timer.start()

    def watch_parent(self) -> None:
        """mpirun gone (killed from outside) leaves no MPI to end the run with, and its library
        may end this process within a second: at once, this rank removes what it created and
        rank 0 writes what it has; then the JVM, whose phase cannot be completed, is killed."""
        while os.getppid() == self.parent:
            time.sleep(0.05)
        # Its output went with it: nothing said now may stop what must be done.
        sys.stdout = sys.stderr = open(os.devnull, "w")
        self.remove_created()
        if self.collector is not None:
            self.write_results(collect.stop(None, "the MPI launcher ended before the run did"))
        with self.lock:
            jvm = self.jvm
        if jvm is not None and jvm.process.poll() is None:
            jvm.process.kill()
        os._exit(1)

    # Rounds ----------------------------------------------------------------------------------

    def status(self) -> tuple:
        if self.stop_signal is None:
            return GO, None
        return STOPPED, {"signal": self.stop_signal, "phase": self.jvm.phase if self.jvm else None}

    def round(self, status: tuple, payload=None) -> list:
        """One exchange with every rank: each says how it stands and hands in a payload."""
        quiet_barrier(self.comm)
        results = self.comm.allgather((status, payload))
        if self.ending is None:
            # A failure says more than the stop it may have caused: it comes first.
            for rank, ((state, detail), _) in sorted(enumerate(results), key=lambda item: item[1][0][0] != FAILED):
                if state != GO:
                    self.ending = self.describe_ending(rank, state, detail)
                    break
        return results

    def describe_ending(self, rank: int, state: str, detail: dict) -> dict:
        if state == FAILED:
            # The runner names the phase itself where it knows it: said once.
            message = detail["message"]
            if message.startswith(detail["phase"]):
                message = message[len(detail["phase"]):].lstrip(" :").removeprefix("on ")
            return collect.failure(message, rank, detail["phase"], detail["when"])
        during = f" during {detail['phase']}" if detail.get("phase") else ""
        return collect.stop(detail["signal"], f"stopped by {detail['signal']}{during}", rank, detail.get("phase"))

    def fail(self, phase: str, when: str, message: str) -> None:
        """This rank cannot go on: it meets the others in their round, which ends the run."""
        self.round((FAILED, {"phase": phase, "when": when, "message": message}))

    # JVMs ------------------------------------------------------------------------------------

    def start_fork(self, task: str, start: str = "the start of the run") -> tuple[Optional[RankJvm], Optional[dict], list]:
        """Starts this rank's JVM for one task and meets the other ranks once every JVM is up (or
        not). Returns (jvm, ready message, every rank's (code, message))."""
        jvm, ready, outcome = None, None, (0, "")
        if self.stop_signal is None and task != "first":
            try:
                empty(self.to_empty)
            except OSError as problem:
                outcome = (1, f"cannot empty {problem.filename} for {start}: {problem.strerror}")
        if self.stop_signal is None and outcome[0] == 0:
            try:
                jvm = RankJvm(self.command, self.rank, self.size, self.options.first_node_ranks, task, start)
            except OSError as problem:
                outcome = (2, f"cannot start {self.command[0]}: {problem.strerror}")
            else:
                with self.lock:
                    self.jvm = jvm
                code, text, ready = start_status(jvm, jvm.receive())
                outcome = (code, text)
                if self.stop_signal is not None:
                    jvm.ask_to_stop()
        if ready is not None and self.rank == 0 and self.collector is None:
            outcome = self.check_results(ready) or outcome
        memory = ready["environment"].get("plan_memory_bytes") if ready else None
        results = self.round(self.status(), (outcome, memory))
        return jvm, ready, [payload for _, payload in results]

    def check_results(self, ready: dict) -> Optional[tuple]:
        """Rank 0 writes the run file: a name already taken is found before the first phase."""
        if self.options.run_id and runfile.exists(self.options.run_id, ready["parameters"]["results"]):
            return 2, (f"--run-id {self.options.run_id}: {ready['parameters']['results']} already holds a run "
                       "of that name (a run never writes over another run's file)")
        return None

    def check_memory(self, memory: list, hosts: list[str]) -> Optional[str]:
        """The ranks of each host need their JVMs' plans and their own overhead: more than the
        host has available is refused before anything runs."""
        need: Counter = Counter()
        largest: Counter = Counter()  # the most one rank of the host needs
        have: dict[str, int] = {}
        for host, (plan, available) in zip(hosts, memory):
            need[host] += (plan or 0) + RANK_OVERHEAD_BYTES
            largest[host] = max(largest[host], (plan or 0) + RANK_OVERHEAD_BYTES)
            if available is not None:
                have[host] = available
        for host, needed in need.items():
            if host in have and needed > have[host]:
                fit = have[host] // largest[host]
                return (f"{hosts.count(host)} ranks on {host} need about {needed / 2 ** 30:.1f} GiB (their plans "
                        f"and JVMs), more than the {have[host] / 2 ** 30:.1f} GiB it has available: "
                        + (f"run at most {fit} per node, or " if fit else "")
                        + "shrink the plan (a lower -b or -s; with tiny transfers, whose offsets it holds, a "
                          "larger -t)")
        return None

    def serve(self, jvm: RankJvm) -> Optional[int]:
        """Answers one JVM until it finishes; returns its rank's exit code, or None when the run
        ended early (self.ending says why)."""
        while True:
            message = jvm.receive()
            if message is None or message["type"] in ("failed", "error"):
                text = message["message"] if message else jvm.death()
                jvm.end()
                if self.stop_signal:
                    self.round(self.status())  # its end was the stop's doing, not a failure of its own
                else:
                    self.fail(jvm.phase, jvm.when, text)
                return None
            kind = message["type"]
            if kind == "barrier":
                jvm.phase, jvm.when = message["phase"], "during"
                if self.answered(jvm, self.round(self.status()), lambda results: "go") is None:
                    return None
            elif kind == "wear-out":
                results = self.round(self.status(), message["bytes"])
                if self.answered(jvm, results, lambda r: max(payload for _, payload in r)) is None:
                    return None
            elif kind == "repeat":
                going = self.collector.another_repetition(message["fork"], message["approaches"]) \
                    if self.collector is not None else None
                # Rank 0 alone decides, from the phases it collected: every rank answers its JVM alike.
                if self.answered(jvm, self.round(self.status(), going), lambda results: ",".join(results[0][1])) is None:
                    return None
            elif kind == "record":
                record = dict(message["record"], host=MPI.Get_processor_name())
                results = self.round(self.status(), record)
                if self.answered(jvm, results, self.phase_done) is None:
                    return None
                jvm.when = "after"
            elif kind == "finished":
                code = jvm.end()
                results = self.round(self.status(), (message["exit"], message.get("message")))
                if self.ending is not None:
                    return None
                if self.rank == 0:
                    self.problems += [text for _, (_, text) in results if text]
                return max(code, *(exit_code for _, (exit_code, _) in results))
            else:
                jvm.end()
                self.fail(jvm.phase, jvm.when, f"unexpected message from the JVM: {message!r}")
                return None

    def answered(self, jvm: RankJvm, results: list, answer) -> Optional[bool]:
        """Answers the JVM after a round: the answer when every rank goes on, else "stop"."""
        if self.ending is not None:
            jvm.answer("stop")
            jvm.end()
            return None
        jvm.answer(answer(results))
        return True

    def phase_done(self, results: list) -> str:
        records = [payload for _, payload in results]
        if self.collector is not None:
            self.collector.phase(records)
        return json.dumps([record["bytes"] for record in records])

    # The run ---------------------------------------------------------------------------------

    def run(self) -> int:
        hosts, per_host, self.options.first_node_ranks = describe_hosts(self.comm)
        self.load_average = {"start": loads_by_host(self.comm)}
        self.watch()
        jvm, ready, starts = self.start_fork("first")
        self.created = ready["created"] if ready else []
        self.to_empty = files_to_empty(ready) if ready else []
        if self.ending is not None:
            if jvm is not None:
                jvm.answer("stop")
                jvm.end()
            self.remove_created()
            return self.exit_code(0)
        codes = [code for (code, _), _ in starts]
        if any(codes):
            if ready is not None:
                jvm.answer("stop")
                jvm.end()
            self.remove_created()
            return report_start_failure([start for start, _ in starts]) if self.rank == 0 else max(codes)
        problem = self.check_memory([(plan, available) for (_, plan), available
                                     in zip(starts, self.comm.allgather(available_memory()))], hosts)
        parameters = ready["parameters"]
        self.keep = parameters["keep"]
        if problem:
            jvm.answer("stop")
            jvm.end()
            self.remove_created()
            if self.rank == 0:
                print(f"jiobench: error: {problem}", file=sys.stderr)
            return 2
        if self.rank == 0:
            self.collector = collect.Collector(self.context(ready, hosts, per_host))
            self.collector.start()
        code = 0
        tasks = iter(fork_tasks(parameters))
        while jvm is not None:
            jvm.pass_through()
            jvm.answer("start")
            fork_code = self.serve(jvm)
            if fork_code is None:
                break
            code = max(code, fork_code)
            task = next(tasks, None)
            if task is None and repetitions.Rule.of(parameters):
                tasks = iter(self.forks_to_add())
                task = next(tasks, None)
            if task is None:
                break
            fork, index = task.split(":")
            start = f"the start of {parameters['approaches'][int(index)]} fork {fork}"
            jvm, _, starts = self.start_fork(task, start)
            if self.ending is None and any(start_code for (start_code, _), _ in starts):
                failed = next((rank, text) for rank, ((start_code, text), _) in enumerate(starts) if start_code)
                self.ending = collect.failure(failed[1], failed[0], start)
            if self.ending is not None:
                if jvm is not None:
                    jvm.answer("stop")
                    jvm.end()
                break
        quiet_barrier(self.comm)
        self.load_average["end"] = loads_by_host(self.comm)
        self.remove_created()
        if self.rank == 0:
            self.write_results(self.ending)
            for text in self.problems:
                print(f"jiobench: error: {text}", file=sys.stderr)
            if self.collector.misplaced:
                code = max(code, 1)
        return self.exit_code(code)

    def forks_to_add(self) -> list[str]:
        """-i auto: the forks rank 0 adds (Collector.forks_to_add), the same for every rank; none
        when the run ends here."""
        results = self.round(self.status(), self.collector.forks_to_add() if self.collector is not None else None)
        return [] if self.ending is not None else results[0][1]

    def exit_code(self, code: int) -> int:
        """The run's code, or 128 + the signal that stopped it (SIGUSR1 is how `jiobench run`
        passes on a SIGTERM), or 1 when a rank failed."""
        if self.ending is None:
            return code
        if self.ending["signal"]:
            return 128 + (signal.SIGTERM if self.ending["signal"] == "SIGUSR1" else signal.Signals[self.ending["signal"]])
        return 1

    def context(self, ready: dict, hosts: list[str], per_host: dict) -> dict:
        environment, warnings = run_environment(ready, per_host)
        return {
            "parameters": ready["parameters"],
            "environment": environment,
            "hosts": hosts,
            "ranks_per_host": per_host,
            "ranks": self.size,
            "launcher": self.options.launcher,
            "command_line": shlex.split(self.options.command_line) if self.options.command_line
            else self.runner_args,
            "mpi": {"library": MPI.Get_library_version().strip().strip("\0").strip(),
                    "standard": "%d.%d" % MPI.Get_version()},
            "started": runfile.now(),
            "run_id": self.options.run_id,
            "slurm": slurm_environment(),
            "warnings": warnings,
            "load_average": self.load_average,
        }

    def remove_created(self) -> None:
        """Removes the files this rank's first JVM created, unless --keep. A file system that
        failed under the run (a lost server, a dead mount) must not cost the phases measured:
        the file stays, and the user is told where."""
        if self.keep:
            return
        for path in self.created:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            except OSError as problem:
                print(f"jiobench: rank {self.rank}: cannot remove {path}: {problem.strerror}",
                      file=sys.stderr, flush=True)

    def write_results(self, ending: Optional[dict]) -> None:
        with self.lock:
            try:
                self.collector.finish(ending)
            except OSError as problem:
                print(f"jiobench: error: cannot write the run file: {problem}", file=sys.stderr, flush=True)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="jiobench.run.rank", description=__doc__.splitlines()[0])
    parser.add_argument("--java", default="java")
    parser.add_argument("--jar", required=True)
    parser.add_argument("--jvm-args", default="")
    parser.add_argument("--launcher", default="mpirun")
    parser.add_argument("--ranks", type=int, default=None, help="ranks the launcher was asked for")
    parser.add_argument("--run-id", default=None, help="the run file's name, instead of a time stamp")
    parser.add_argument("--command-line", default="", help="the user's command, for the run file")
    parser.add_argument("runner_args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    runner_args = options.runner_args[1:] if options.runner_args[:1] == ["--"] else options.runner_args
    comm = MPI.COMM_WORLD
    if options.ranks is not None and comm.Get_size() != options.ranks:
        # Every process thinks it is alone: mpi4py's MPI is not the one that started it.
        if launcher_rank() in ("0", None):
            print(f"jiobench: error: started {options.ranks} ranks but MPI sees {comm.Get_size()}: mpi4py uses "
                  f"{MPI.Get_library_version().splitlines()[0].strip()}, not the MPI of the launcher; install "
                  "mpi4py for that MPI (or run the launcher of mpi4py's MPI)", file=sys.stderr, flush=True)
        return 2
    code = Rank(comm, options, runner_args).run()
    if comm.Get_rank() == 0:
        sys.stdout.flush()
        sys.stdout.buffer.write(EXIT_CODE_MARKER + b"%d\n" % code)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
