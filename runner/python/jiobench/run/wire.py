"""The words on the wire between `jiobench run`, its ranks and their JVMs, defined here alone
(docs/protocol.md): the markers the ranks print to `jiobench run`, the JVM's JSON messages (built by
the runner's Wire.java alone) and the launcher's answers, the variable that tells a JVM its pipes,
and the tag of MPJ Express's rank 0.
"""
from __future__ import annotations

import json
import os
from enum import StrEnum
from typing import Iterable, Optional, Union

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

# Tells a JVM its rank, the rank count, each rank's host number, its two pipes and its task.
CONTROL_VARIABLE = "JIOBENCH_CONTROL"
# What begins each of MPJ Express's rank 0's messages among the job's other output.
MPJ_TAG = "@jiobench "

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


class Answer(StrEnum):
    """The launcher's answers to a JVM that are words, not numbers."""
    START = "start"
    GO = "go"
    STOP = "stop"


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


def identity(status: os.stat_result) -> str:
    """What a file is, as the runner writes it in its created and ready messages: device and inode."""
    return f"{status.st_dev}{DEVICE_INODE_SEPARATOR}{status.st_ino}"


def control(rank: int, size: int, host_runs: str, reply_fd: int, message_fd: int, task: str) -> str:
    """The value of CONTROL_VARIABLE, as LauncherWorld.fromControl reads it."""
    return f"{rank},{size},{host_runs},{reply_fd},{message_fd},{task}"


def message(line: Union[bytes, str]) -> dict:
    """A JVM's message, from its line (less MPJ_TAG, where MPJ Express's rank 0 printed it)."""
    return json.loads(line)


def mpj_message(line: str) -> Optional[dict]:
    """The message an MPJ Express job's line holds, None for other output."""
    return message(line[len(MPJ_TAG):]) if line.startswith(MPJ_TAG) else None
