"""How every verb of jiobench ends, in codes (the runner's ExitCode.java holds the same, and
jiobench.run.endings decides a run's own from them): 0 done, 1 failed, 2 a user's mistake,
128 + the signal that stopped it; and the two a shell gives besides."""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    DONE = 0
    FAILED = 1
    MISTAKE = 2
    # A JVM not ready by the start-up deadline, as timeout(1) says it: a rank's start, never a run's end.
    LATE = 124
    # What was to be run (java, the MPI launcher) is not there, as a shell says it.
    NOT_FOUND = 127


# What a signal that stopped a run adds its number to.
SIGNALLED = 128
