"""What holds while a task's JVMs start, alike on every launch path: the --start-timeout deadline,
and their output, held back until every rank has started.

The driver sets the deadline of each task and says the one line of ranks that missed it; the
transports wait against it, and hold their JVMs' output in a `HeldOutput` until the driver has
taken the task's start. `jiobench run`'s own supervisor of mpirun keeps the same deadline for the
ranks to get into MPI.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Generic, TypeVar

Line = TypeVar("Line")


class StartDeadline:
    """--start-timeout: how long a task's ranks have to start and their JVMs to be ready."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def passed(self) -> bool:
        return time.monotonic() > self.at

    def left(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def missed(self, ranks: str, what: str) -> str:
        """The line that ends a run whose ranks (`ranks`, in words) did not do `what` in time."""
        return f"{ranks} {what} within --start-timeout {self.seconds:g} s"


class HeldOutput(Generic[Line]):
    """The lines a task's JVMs print before every rank has started, held back: a complaint that
    every rank makes as it starts is then said once, not once a rank. Once released, lines are
    written as they come."""

    def __init__(self, write: Callable[[Line], None]):
        self.write = write
        self.held: list[Line] = []
        self.passing = False
        self.lock = threading.Lock()

    def add(self, line: Line) -> None:
        with self.lock:
            if self.passing:
                self.write(line)
            else:
                self.held.append(line)

    def release(self) -> None:
        """The ranks have started: what was held is written, and every line after it."""
        with self.lock:
            self.passing = True
            for line in self.held:
                self.write(line)
            self.held.clear()

    def lines(self) -> list[Line]:
        """What is held still."""
        with self.lock:
            return list(self.held)
