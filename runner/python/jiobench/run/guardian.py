"""Ends a run whose `jiobench run` is gone before it: killed with SIGKILL (`kill -9`, the kernel's
OOM killer), which it cannot handle, it would leave the MPI launcher, the ranks and their JVMs
running to the run's end, and its notes behind.

`jiobench run` starts this as `python -m jiobench.run.guardian LAUNCHER-PID NOTES-DIR OUTPUT-FD...`,
in a session of its own (no terminal's signal reaches it), with a pipe on its standard input that
only `jiobench run` writes, and the launcher's output pipes, which it reads only once `jiobench run`
is gone. `done` on it is the run's own end: nothing to do. The pipe's end without
it means `jiobench run` died: the stop goes to the launcher as a signal to `jiobench run` would
send it (noted as SIGKILL, so the ranks end their phase, write the run file and remove what they
created), the launcher's session is ended as `jiobench run` would end it, and the notes go.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

from .processes import PASSED_ON_STOP, SESSION, STATE, end_session, escalate, kill, session_members, stat

DONE = "done"
STOP_NOTE = "stop-signal"
# What the stop note says when `jiobench run` died: the one signal that ends it unannounced.
DIED_OF = "SIGKILL"


def leads_session(pid: int) -> bool:
    """Whether the launcher runs still, as the leader of the session it was started in (a pid
    taken since by another process leads no session of that number)."""
    fields = stat(pid)
    return fields is not None and fields[STATE] != "Z" and int(fields[SESSION]) == pid


def signal_launcher(pid: int, number: int) -> None:
    if leads_session(pid):
        try:
            os.kill(pid, number)
        except ProcessLookupError:
            pass


def drain(output: int) -> None:
    """Reads one of the launcher's outputs to its end, for nobody: what the ranks say as they end."""
    try:
        while os.read(output, 1 << 16):
            pass
    except OSError:
        pass


def end_run(launcher: int, notes: Path, outputs: list[int]) -> None:
    """The stop `jiobench run` could not pass on, then its escalation, then its clean-up."""
    for output in outputs:
        threading.Thread(target=drain, args=(output,), daemon=True).start()
    note = notes / STOP_NOTE
    try:
        if not note.exists() or not note.read_text().strip():
            note.write_text(DIED_OF)
    except OSError:
        pass  # the ranks then name the stop SIGUSR1; it still ends the run
    signal_launcher(launcher, PASSED_ON_STOP)
    escalate(lambda: leads_session(launcher), lambda number: signal_launcher(launcher, number),
             lambda: kill(session_members(launcher)))
    end_session(launcher)
    shutil.rmtree(notes, ignore_errors=True)


def main(argv: list[str]) -> int:
    launcher, notes, outputs = int(argv[0]), Path(argv[1]), [int(fd) for fd in argv[2:]]
    if sys.stdin.read().strip() != DONE:
        end_run(launcher, notes, outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
