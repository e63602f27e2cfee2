"""The signals that stop a run, and the processes of a run as /proc shows them."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Callable, Iterable, Optional

# What a user (Ctrl-C, Ctrl-\\, kill, a terminal closing) or a batch system sends to stop a run.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
# How `jiobench run` passes a stop on to the ranks: the one signal every MPI launcher forwards
# and survives.
PASSED_ON_STOP = signal.SIGUSR1
# Where the ranks on this host read which signal `jiobench run` got before passing it on.
STOP_NOTE_VARIABLE = "JIOBENCH_STOP_NOTE"


def stop_name(number: int) -> str:
    """The name of the signal that stops a rank; for SIGUSR1, the one `jiobench run` got and
    passed on as SIGUSR1, as its note says."""
    if number == PASSED_ON_STOP:
        try:
            with open(os.environ[STOP_NOTE_VARIABLE]) as note:
                return note.read().strip() or PASSED_ON_STOP.name
        except (KeyError, OSError):
            pass
    return signal.Signals(number).name


# After a stop was passed on to the MPI launcher: how long the ranks get before the launcher is
# told to end them, and then before everything of the run still alive is killed.
STOP_SECONDS, KILL_SECONDS = 10.0, 15.0

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


def kill(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def escalate(launcher_alive: Callable[[], bool], signal_launcher: Callable[[int], None],
             kill_session: Callable[[], None]) -> None:
    """Once a stop was passed on to the MPI launcher: a SIGTERM to it after STOP_SECONDS (the
    ranks had their chance to end their phase), and the launcher's whole session killed after
    KILL_SECONDS. Returns as soon as the launcher has ended."""
    started = time.monotonic()
    steps: list[tuple[float, Callable[[], None]]] = [(STOP_SECONDS, lambda: signal_launcher(signal.SIGTERM)),
                                                      (KILL_SECONDS, kill_session)]
    for seconds, last_step in steps:
        while launcher_alive() and time.monotonic() - started < seconds:
            time.sleep(0.1)
        if not launcher_alive():
            return
        last_step()


def end_session(session: int) -> None:
    """What is left of a launcher's session once the launcher ended (ranks orphaned by it get the
    grace to write what they have): killed after KILL_SECONDS."""
    deadline = time.monotonic() + KILL_SECONDS
    while session_members(session) and time.monotonic() < deadline:
        time.sleep(0.1)
    kill(session_members(session))
