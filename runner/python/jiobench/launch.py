"""One MPI rank of a run: starts this rank's JVM and serves it over two pipes.

Each fork of the run is one JVM child (org.jiobench.runner.LauncherWorld), started in turn; it
sends JSON lines: ready, barrier, record, wear-out, error, failed, finished. This side answers
with plain lines and does all the MPI: barriers, the gather of records to rank 0, the agreements
after a stonewall, and the abort that takes the whole job down when a rank fails, so no rank is
left waiting. Rank 0 hands the records to `jiobench.collect`, which reduces, prints and writes
the run file.

Started by `jiobench run` under mpirun or srun as `python -m jiobench.launch [options] -- RUNNER-ARGS`.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Optional

from mpi4py import MPI

from . import collect, runfile
from .launching import fork_tasks, slurm_environment

# Polling keeps a waiting launcher off the CPU its JVM (or another rank's) is measuring with;
# MPI's own blocking calls spin. 0.2 ms adds that much skew between the ranks' barrier exits.
POLL_SECONDS = 0.0002


def quiet_barrier(comm) -> None:
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(POLL_SECONDS)


class StderrRelay(threading.Thread):
    """Holds the JVM's error output until the rank has started, then passes it through.

    Held back, the start-up complaints of all ranks can be reported once instead of N times.
    """

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.held: list[str] = []
        self.passing = False
        self.lock = threading.Lock()

    def run(self):
        for line in self.stream:
            with self.lock:
                if self.passing:
                    sys.stderr.write(line)
                    sys.stderr.flush()
                else:
                    self.held.append(line)

    def pass_through(self):
        with self.lock:
            self.passing = True
            for line in self.held:
                sys.stderr.write(line)
            sys.stderr.flush()
            self.held.clear()

    def held_text(self) -> str:
        self.join(timeout=5)
        with self.lock:
            return "".join(self.held).strip()


class RankJvm:
    """One JVM child of this rank (one fork of the run) and its two control pipes."""

    def __init__(self, command: list[str], rank: int, size: int, reorder_shift: int, task: str):
        reply_read, reply_write = os.pipe()
        message_read, message_write = os.pipe()
        env = dict(os.environ)
        env["JIOBENCH_CONTROL"] = f"{rank},{size},{reorder_shift},{reply_read},{message_write},{task}"
        self.process = subprocess.Popen(command, env=env, pass_fds=(reply_read, message_write),
                                        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        os.close(reply_read)
        os.close(message_write)
        self.replies = os.fdopen(reply_write, "w", buffering=1)
        self.messages = os.fdopen(message_read, "r")
        self.stderr = StderrRelay(self.process.stderr)
        self.stderr.start()

    def receive(self) -> Optional[dict]:
        line = self.messages.readline()
        return json.loads(line) if line else None

    def answer(self, text) -> None:
        self.replies.write(f"{text}\n")
        self.replies.flush()

    def exit_code(self) -> int:
        return self.process.wait()


def describe_hosts(comm) -> tuple[list[str], dict[str, int], int]:
    """Hosts of all ranks, ranks per host, and the reorder shift: one node's worth of ranks."""
    hosts = comm.allgather(MPI.Get_processor_name())
    per_host = dict(Counter(hosts))
    shift = per_host[hosts[0]] if len(per_host) > 1 else 1
    return hosts, per_host, shift


def start_status(jvm: RankJvm, first: Optional[dict]) -> tuple[int, str, Optional[dict]]:
    """(exit code, message, ready message): how this rank's JVM came up."""
    if first is None:
        code = jvm.exit_code()
        return code, jvm.stderr.held_text(), None
    if first["type"] == "error":
        jvm.exit_code()
        return first.get("exit", 2), first["message"], None
    if first["type"] == "ready":
        return 0, "", first
    return 1, f"unexpected first message {first!r}", None


def report_start_failure(statuses: list[tuple[int, str]]) -> int:
    """Says once what stopped the ranks; the same complaint from every rank is one line."""
    failed = [(rank, code, message) for rank, (code, message) in enumerate(statuses) if code != 0]
    messages = {message for _, _, message in failed}
    if len(messages) == 1 and len(failed) == len(statuses):
        text = messages.pop()
        if text:
            print(text if text.startswith("jiobench") else f"jiobench: error: {text}", file=sys.stderr)
    else:
        for rank, code, message in failed:
            print(f"jiobench: rank {rank}: {message or f'exited with code {code}'}", file=sys.stderr)
    return max(code for _, code, _ in failed)


def start_fork(comm, command: list[str], shift: int, task: str) -> tuple[Optional[RankJvm], Optional[dict], int]:
    """Starts this rank's JVM for one task and waits until every rank's JVM is ready.

    Returns (jvm, ready message, 0), or (None, None, exit code) when some rank's JVM did not come
    up; then rank 0 has said why, once. A ready message of None with code 0 is a JVM that had
    nothing to run (--help, --version).
    """
    rank, size = comm.Get_rank(), comm.Get_size()
    try:
        jvm = RankJvm(command, rank, size, shift, task)
    except OSError as problem:
        jvm, status, ready = None, (127, f"cannot start {command[0]}: {problem.strerror}"), None
    else:
        code, text, ready = start_status(jvm, jvm.receive())
        status = (code, text)
    statuses = comm.allgather(status)
    if any(code != 0 for code, _ in statuses):
        if ready is not None:
            jvm.answer("stop")
            jvm.exit_code()
        code = report_start_failure(statuses) if rank == 0 else max(code for code, _ in statuses)
        return None, None, code
    return jvm, ready, 0


def abort(comm, rank: int, message: str) -> None:
    print(f"jiobench: rank {rank} failed: {message}", file=sys.stderr, flush=True)
    comm.Abort(1)


def serve(comm, jvm: RankJvm, host: str, collector: Optional[collect.Collector]) -> tuple[int, list[str]]:
    """Answers one JVM until it finishes; returns its rank's exit code and (on rank 0) the
    messages of every rank's JVM about what went wrong."""
    rank = comm.Get_rank()
    while True:
        message = jvm.receive()
        if message is None:
            code = jvm.exit_code()
            abort(comm, rank, f"the JVM exited with code {code} in the middle of the run")
        kind = message["type"]
        if kind == "barrier":
            quiet_barrier(comm)
            jvm.answer("go")
        elif kind == "record":
            record = dict(message["record"], host=host)
            quiet_barrier(comm)
            records = comm.gather(record, root=0)
            if collector is not None:
                collector.phase(records)
            jvm.answer(json.dumps(comm.allgather(record["bytes"])))
        elif kind == "wear-out":
            jvm.answer(comm.allreduce(message["bytes"], op=MPI.MAX))
        elif kind == "failed":
            abort(comm, rank, message["message"])
        elif kind == "finished":
            code = jvm.exit_code()
            outcomes = comm.gather((message["exit"], message.get("message")), root=0)
            if rank != 0:
                return code, []
            return max(code, *(exit_code for exit_code, _ in outcomes)), [text for _, text in outcomes if text]
        else:
            abort(comm, rank, f"unexpected message from the JVM: {message!r}")


def remove_created(comm, created: list[str], keep: bool) -> None:
    """Removes the files this rank's first JVM created, once every rank is done with them."""
    quiet_barrier(comm)
    if keep:
        return
    for path in created:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="jiobench.launch", description=__doc__.splitlines()[0])
    parser.add_argument("--java", default="java")
    parser.add_argument("--jar", required=True)
    parser.add_argument("--jvm-args", default="")
    parser.add_argument("--launcher", default="mpirun")
    parser.add_argument("--run-id", default=None, help="the run file's name, instead of a time stamp")
    parser.add_argument("--command-line", default="", help="the user's command, for the run file")
    parser.add_argument("runner_args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    runner_args = options.runner_args[1:] if options.runner_args[:1] == ["--"] else options.runner_args

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    hosts, per_host, shift = describe_hosts(comm)
    command = [options.java, *shlex.split(options.jvm_args), "-jar", options.jar, *runner_args]
    jvm, ready, code = start_fork(comm, command, shift, "first")
    if jvm is None:
        return code
    if not all(comm.allgather(ready is not None)):
        return 0  # the JVM had nothing to run (--help, --version)
    parameters = ready["parameters"]
    context = {
        "parameters": parameters,
        "environment": ready["environment"],
        "hosts": hosts,
        "ranks_per_host": per_host,
        "ranks": size,
        "launcher": options.launcher,
        "command_line": shlex.split(options.command_line) if options.command_line else runner_args,
        "mpi": {"library": MPI.Get_library_version().strip().strip("\0").strip(),
                "standard": "%d.%d" % MPI.Get_version()},
        "started": runfile.now(),
        "run_id": options.run_id,
        "slurm": slurm_environment(),
    }
    collector = collect.Collector(context) if rank == 0 else None
    if collector is not None:
        collector.start()
    code, problems = 0, []
    tasks = iter(fork_tasks(parameters))
    while jvm is not None:
        jvm.stderr.pass_through()
        jvm.answer("start")
        fork_code, fork_problems = serve(comm, jvm, hosts[rank], collector)
        code, problems = max(code, fork_code), problems + fork_problems
        task = next(tasks, None)
        if task is None:
            break
        jvm, _, start_code = start_fork(comm, command, shift, task)
        code = max(code, start_code)
    remove_created(comm, ready["created"], parameters["keep"])
    if collector is not None:
        collector.finish()
        for text in problems:
            print(f"jiobench: error: {text}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
