"""The seam between the driver (`jiobench.run.driver`) and the ways a run's ranks start: the events
a transport yields while one task's JVMs run, what the driver answers, and the `Transport` every
launch path implements.

Two transports: `jiobench.run.rank.MpiRanks`, one mpi4py rank of a run started by mpirun,
mpiexec or srun (the driver runs on every rank alike), and `jiobench.run.mpj.MpjRanks`, every rank
of an MPJ Express job (one driver speaks for all of them).

A task's events come from a generator, which the driver answers through `send`: a refusal to
`Ready`, the reduced phase to `PhaseRecords`, the approaches that go on to `RepeatAsked`; None
to every other event. `NotStarted`, `StartLate`, `Finished` and `Ended` are a task's last event.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Mapping, Optional, Protocol, Union

from .placement import RankHosts
from .startup import StartDeadline


@dataclass(frozen=True)
class Ready:
    """Every rank's JVM is up: `ready` is the ready message of this process's JVM (parameters,
    environment, created). Where this process checks for every rank, `memory` holds each rank's
    (plan, available bytes of its host), and `files`, where the ranks are on several hosts, each
    rank's inode number of the test file. The driver answers with a refusal (one line) or None."""
    ready: dict[str, Any]
    memory: Optional[list[tuple[Optional[int], Optional[int]]]] = None
    files: Optional[list[Optional[int]]] = None


@dataclass(frozen=True)
class Started:
    """The checks passed on every rank; the first phase comes next. `run_id` is the run's name
    where --run-id gives none, the same on every rank."""
    ready: dict[str, Any]
    run_id: str


@dataclass(frozen=True)
class NotStarted:
    """The task's JVMs did not start, or were refused: `exit` their code, `messages` why, `rank`
    where one rank alone failed, `created` what its JVM created all the same."""
    exit: int
    messages: list[str]
    rank: Optional[int] = None
    created: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StartLate:
    """Ranks not ready within --start-timeout: `ranks` names them and their hosts, `what` says
    what they did not do in time, `printed` what a late JVM printed; `rank` where one rank alone
    was late. The driver says the line (`jiobench.run.startup.StartDeadline.missed`)."""
    ranks: str
    what: str
    printed: str = ""
    rank: Optional[int] = None
    created: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PhaseRecords:
    """A phase ended, and this process collects: every rank's record. The driver answers with the
    phase they reduce to."""
    records: list[dict[str, Any]]


@dataclass(frozen=True)
class PhaseReduced:
    """A phase ended, as the process that collects reduced it."""
    phase: dict[str, Any]


@dataclass(frozen=True)
class RepeatAsked:
    """-i auto asks which of the approaches a JVM still runs go on after `fork`; the driver answers
    with the list, decided where the collector is."""
    fork: int
    approaches: list[str]


@dataclass(frozen=True)
class Finished:
    """The task's JVMs are done: `exit` their code, `messages` what went wrong."""
    exit: int
    messages: list[str]


@dataclass(frozen=True)
class Ended:
    """The run ends here, failed or stopped: `ending` is what the run file's `incomplete` holds,
    `created` what this process's JVM of the task created."""
    ending: dict[str, Any]
    created: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Agreed:
    """What the process that collects decided, the same on every rank."""
    value: Any


TaskEvent = Union[Ready, Started, NotStarted, StartLate, PhaseRecords, PhaseReduced, RepeatAsked, Finished, Ended]
TaskEvents = Generator[TaskEvent, Any, None]


class Transport(Protocol):
    """How one run's ranks start and meet, as the driver sees it."""

    @property
    def hosts(self) -> RankHosts:
        """Every rank's host, as `hosts[rank]` reads it, known once the ranks are up."""

    @property
    def speaks_for(self) -> range:
        """The ranks this process speaks for: its own under mpi4py, every one under MPJ Express.
        The process that speaks for rank 0 checks the run for every rank before its first phase,
        and says why JVMs did not start."""

    @property
    def writer(self) -> Optional[int]:
        """The rank in whose name the run's progress is printed and its run file written: rank 0,
        or a rank that survived lost ones in its stead (None where none is left to)."""

    def task(self, task: str, label: str, unable: Optional[str], deadline: StartDeadline) -> TaskEvents:
        """Runs one task's JVMs on every rank (`label` says which, in the user's words; `unable`
        why this process cannot start its JVM), yielding what happens. Their ranks not ready by
        the deadline end the task (`StartLate`); their output is held back until the driver has
        taken `Started`."""

    def agree(self, value: Any) -> Union[Agreed, Ended]:
        """The collecting process's value, the same on every rank, or the run's end."""

    def stop(self, signal_name: str) -> None:
        """Asks the JVMs to end their phase: a signal stops the run."""

    def mpi(self) -> dict[str, Any]:
        """The MPI the ranks run on, as the run file names it."""

    def loads(self) -> dict[str, Optional[list[float]]]:
        """Every host's load average in sight, by host."""

    def said_stop(self) -> None:
        """This process has said why the run stopped, in its own line: `jiobench run` need not."""

    def tending(self, work: Callable[[], None]) -> None:
        """Does `work` while this process goes on answering the other ranks (their heartbeats), so
        that a slow piece of work on a crowded node does not pass for a lost rank."""
