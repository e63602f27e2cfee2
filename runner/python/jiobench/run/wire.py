"""Everything that crosses between `jiobench run`, its ranks and their JVMs, defined here alone
(docs/protocol.md): the markers the ranks print to `jiobench run`, the JVM's JSON messages (built by
the runner's Wire.java alone) and their fields, a rank's record's fields, the launcher's answers,
the variable that tells a JVM its rank, pipes and task, the task and its MPJ Express option, each
rank's host in runs, the property that counts jiobench's own JVM options, and the tag of MPJ
Express's rank 0. Wire.java holds the runner's side; tests/test_wire.py runs both and fails where
they differ.
"""
from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from typing import Any, Iterable, Optional, Union

# The markers begin with the record separator, which no other output of a rank does.
# Each rank's first line, before MPI starts ("RANK HOST"), and rank 0's once every rank is in MPI:
# `jiobench run` names the ranks that never got there.
RANK_UP_MARKER = b"\x1ejiobench-rank-up "
ALL_UP_MARKER = b"\x1ejiobench-all-up\n"
# The last line of the rank that writes the run file: the run's exit code. After an orderly end
# every launcher exits 0, because MPI launchers take a rank's non-zero exit for a crash, kill the
# others and take seconds to do it; a launcher that does crash exits non-zero and still takes the
# job down.
EXIT_CODE_MARKER = b"\x1ejiobench-exit-code "
# Printed by the rank that said why the run stopped (a signal), after its line: `jiobench run`
# then does not say it again.
STOP_SAID_MARKER = b"\x1ejiobench-stop-said\n"

# Tells a JVM its rank, the rank count, each rank's host number, its two pipes and its task:
# "RANK,SIZE,HOST-RUNS,REPLY-FD,MESSAGE-FD,TASK".
CONTROL_VARIABLE = "JIOBENCH_CONTROL"
CONTROL_SEPARATOR = ","
# Each rank's host number in runs of ranks in a row on one host, "HOST*COUNT" (or "HOST" for one),
# joined by ".": "0*2.1*2" for two nodes of two ranks each (Placement.runs).
RUN_SEPARATOR = "."
COUNT_SEPARATOR = "*"
# What begins each of MPJ Express's rank 0's messages among the job's other output.
MPJ_TAG = "@jiobench "
# What goes before the runner's options under MPJ Express: the JVM's task.
TASK_OPTION = "--task="
# The system property whose value counts the JVM options before it that are jiobench's own: the
# runner reports them apart from the user's (environment.jvm.jiobench_args and args).
OWN_OPTIONS_PROPERTY = "jiobench.own.options"
# The key of the ready message's environment that holds what the JVM's plan needs of memory.
PLAN_MEMORY_BYTES = "plan_memory_bytes"

# A JVM's task (CONTROL_VARIABLE's last field, MPJ Express's --task=): the run's first JVM, or
# "FORK:APPROACH-INDEX:IDENTITIES" for a later one, IDENTITIES being those of the files its rank
# created ("DEV.INO", joined by "+"), which the JVM's own file must be one of (Task.parse).
TASK_FIRST = "first"
TASK_SEPARATOR = ":"
IDENTITY_SEPARATOR = "+"
DEVICE_INODE_SEPARATOR = "."


class Kind(StrEnum):
    """The `type` of a JVM's message."""
    CREATED = "created"
    READY = "ready"
    BARRIER = "barrier"
    WEAR_OUT = "wear-out"
    PHASE = "phase"
    REPEAT = "repeat"
    REFUSED = "error"
    FAILED = "failed"
    FINISHED = "finished"
    RANKS = "ranks"  # MPJ Express only
    ABORT = "abort"  # MPJ Express only


# The fields of each message besides its type (those that may be left out, where the runner's
# message leaves them out, in OPTIONAL_FIELDS).
FIELDS = {
    Kind.CREATED: ("files",),
    Kind.READY: ("parameters", "environment", "created"),
    Kind.BARRIER: ("phase",),
    Kind.WEAR_OUT: ("bytes",),
    Kind.PHASE: ("records", "block_read"),
    Kind.REPEAT: ("fork", "approaches"),
    Kind.REFUSED: ("exit", "ranks", "messages"),
    Kind.FAILED: ("ranks", "messages"),
    Kind.FINISHED: ("exit", "messages"),
    Kind.RANKS: ("hosts", "pids"),
    Kind.ABORT: ("rank", "message"),
}
# A refusal or failure names the ranks only where MPJ Express's rank 0 speaks for several; every
# rank's records of a phase (MPJ Express) come without the block read next.
OPTIONAL_FIELDS = {Kind.REFUSED: ("ranks",), Kind.FAILED: ("ranks",), Kind.PHASE: ("block_read",)}

# A rank's record of a phase, as the runner's RankRecord writes it (docs/run-file.md, per_rank), and
# what the rank's launcher adds: its host, and when it let the phase start and heard it end.
RECORD_FIELDS = ("approach", "op", "fork", "rep", "warmup", "rank", "bytes", "transfers", "open_s", "transfer_s",
                 "close_s", "elapsed_s", "bookkeeping_s", "stalled_s", "stonewalled", "stonewall_bytes", "stonewall_s",
                 "verified", "error", "array_page_offset", "array_copy_crawls")
LAUNCHER_RECORD_FIELDS = ("host", "began_at", "ended_at")


class Answer(StrEnum):
    """The launcher's answers to a JVM that are words, not numbers."""
    START = "start"
    GO = "go"
    STOP = "stop"


def say(marker: bytes) -> None:
    """Writes a marker on standard output, after whatever was printed before it."""
    sys.stdout.flush()
    sys.stdout.buffer.write(marker)
    sys.stdout.flush()


def rank_up(rank: Optional[str], host: str) -> bytes:
    """A rank's first line; `rank` as its launcher numbers it (None where it does not say)."""
    return RANK_UP_MARKER + f"{rank} {host}\n".encode()


def read_rank_up(line: bytes) -> Optional[tuple[int, str]]:
    """(rank, host) of a rank's first line; None for any other line, or a rank not numbered."""
    if not line.startswith(RANK_UP_MARKER):
        return None
    rank, _, host = line[len(RANK_UP_MARKER):].decode(errors="replace").strip().partition(" ")
    return (int(rank), host) if rank.isdigit() else None


def exit_code_line(code: int) -> bytes:
    return EXIT_CODE_MARKER + b"%d\n" % code


def read_exit_code(line: bytes) -> Optional[int]:
    return int(line[len(EXIT_CODE_MARKER):]) if line.startswith(EXIT_CODE_MARKER) else None


def task(fork: int, approach_index: int, created: Iterable[str]) -> str:
    """A later JVM's task; `created`: the identities of the files its rank created."""
    return TASK_SEPARATOR.join([str(fork), str(approach_index), IDENTITY_SEPARATOR.join(created)])


def task_option(task: str) -> str:
    """The task as MPJ Express's job passes it, before the runner's options."""
    return TASK_OPTION + task


def host_runs(runs: Iterable[tuple[int, int]]) -> str:
    """Runs of (host number, rank count), in rank order, as the JVMs read them: "0*2.1*2"."""
    return RUN_SEPARATOR.join(f"{host}{COUNT_SEPARATOR}{count}" if count > 1 else str(host) for host, count in runs)


def own_options_count(count: int) -> str:
    """The JVM option that says that the `count` options before it are jiobench's own."""
    return f"-D{OWN_OPTIONS_PROPERTY}={count}"


def read_identity(text: str) -> tuple[int, int]:
    """(device, inode) of an identity as the runner writes it; modulo 2**64, as stat gives them."""
    device, inode = text.split(DEVICE_INODE_SEPARATOR)
    return int(device) % (1 << 64), int(inode) % (1 << 64)


def identity(status: os.stat_result) -> str:
    """What a file is, as the runner writes it in its created and ready messages: device and inode."""
    return f"{status.st_dev}{DEVICE_INODE_SEPARATOR}{status.st_ino}"


def control(rank: int, size: int, runs: str, reply_fd: int, message_fd: int, task: str) -> str:
    """The value of CONTROL_VARIABLE, as Wire.control reads it; `runs` as `host_runs` gives them."""
    return CONTROL_SEPARATOR.join(map(str, (rank, size, runs, reply_fd, message_fd, task)))


def message(line: Union[bytes, str]) -> dict[str, Any]:
    """A JVM's message, from its line (less MPJ_TAG, where MPJ Express's rank 0 printed it)."""
    parsed: dict[str, Any] = json.loads(line)
    return parsed


def mpj_message(line: str) -> Optional[dict[str, Any]]:
    """The message an MPJ Express job's line holds, None for other output."""
    return message(line[len(MPJ_TAG):]) if line.startswith(MPJ_TAG) else None
