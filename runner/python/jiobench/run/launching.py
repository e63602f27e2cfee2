"""The forks of a run after its first JVM, alike on every launch path (mpi4py or MPJ Express): the
tasks they run, in turn, and the files emptied before each.

Kept apart from `jiobench.run.rank`, whose import starts MPI through mpi4py.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from .filesystems import NETWORK_TYPES


class Fork(NamedTuple):
    """A JVM of the run after its first: fork `number` (from 1) of the approach at `approach` in
    the run's list of approaches."""
    number: int
    approach: int

    def label(self, parameters: dict[str, Any]) -> str:
        """The fork's start, in the user's words."""
        return f"the start of {parameters['approaches'][self.approach]} fork {self.number}"


def fork_tasks(parameters: dict[str, Any]) -> list[Fork]:
    """The JVMs of the run after the first: fork 1 of every approach, then fork 2 of every
    approach, ... so a slow spell falls on all approaches alike."""
    if parameters["forks"] == 0:
        return []
    forks = [Fork(number, index) for number in range(1, parameters["forks"] + 1)
             for index in range(len(parameters["approaches"]))]
    return forks[1:]  # fork 1 of the first approach is the first JVM


def files_to_empty(ready: dict[str, Any]) -> list[str]:
    """The files to empty before every JVM of the run after the first (its first JVM's ready
    message says what it created and where): those this rank created, as they were for the first
    approach, so that no approach writes into what another left. The page cache keeps the shape
    the last writes gave a file (a file written in 8 MiB calls is held in large folios, into which
    a 1-byte pwrite costs 15 times what it costs in an empty file, on Linux 6.18 ext4). A file the
    run did not create is never touched, nor one on a network file system, where a truncation
    reaches the servers later (GlusterFS removes shards in the background: a file rewritten at
    once came out 256 KiB too long)."""
    filesystem = ready["environment"].get("filesystem") or {}
    return [] if NETWORK_TYPES.match(filesystem.get("type") or "") else list(ready["created"])
