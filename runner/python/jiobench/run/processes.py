"""The signals that stop a run, and the processes of a run as /proc shows them."""
from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Optional

# What a user (Ctrl-C, kill, a terminal closing) or a batch system sends to stop a run.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# How `jiobench run` passes a stop on to the ranks: the one signal every MPI launcher forwards
# and survives.
PASSED_ON_STOP = signal.SIGUSR1
# Where the ranks on this host read which signal `jiobench run` got before passing it on.
STOP_NOTE_VARIABLE = "JIOBENCH_STOP_NOTE"

# Fields of /proc/PID/stat after the command's closing parenthesis.
STATE, PARENT, SESSION = 0, 1, 3


def stat(pid: int) -> Optional[list[str]]:
    """/proc/PID/stat's fields after the command name (which may hold spaces), or None when gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def processes_where(field: int, value: int) -> list[int]:
    """The processes whose stat field holds the value (their parent, their session), this one aside."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            fields = stat(int(entry))
            if fields is not None and int(fields[field]) == value:
                found.append(int(entry))
    return found


def session_members(session: int) -> list[int]:
    return processes_where(SESSION, session)


def children_of(pid: int) -> list[int]:
    return processes_where(PARENT, pid)


def descendants_of(pid: int) -> list[int]:
    found = []
    for child in children_of(pid):
        found += [child, *descendants_of(child)]
    return found


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie, which its parent has yet to reap, does not)."""
    fields = stat(pid)
    return fields is not None and fields[STATE] != "Z"


def kill(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
