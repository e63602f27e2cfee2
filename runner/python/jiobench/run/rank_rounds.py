"""The rounds of an mpi4py rank with the other ranks (`RankRounds`, which `jiobench.run.rank.MpiRanks`
builds on): every exchange between the ranks is a round in which each rank also says how it stands
(going on, stopped by a signal, failed), so a rank that fails or is stopped meets the others in
whatever round they are in: all then end the run together and no rank is left waiting. Lost ranks
(jiobench.run.liveness) end the run at the next look.

What a rank sends or hears in a round does not grow with the rank count: the ranks' states meet in
one reduction to the worst (their detail is asked for only when some rank cannot go on), what
rank 0 needs of every rank is gathered to rank 0 alone, and every rank is told back only what it
needs.

MPI itself is imported here, for every module of a rank: it starts in jiobench.run.rank's main(),
not at import.
"""
from __future__ import annotations

import threading
import time
from array import array
from typing import Any, Callable, Optional, TypeVar, Union, cast

import mpi4py

# MPI starts in jiobench.run.rank's main(), once the rank has said it is up: `jiobench run` can
# then name a rank that never got through MPI's start, where every other rank waits.
mpi4py.rc.initialize = False
mpi4py.rc.finalize = True
from mpi4py import MPI  # noqa: E402

from ..model import runfile
from . import incomplete
from .keeper import Keeper
from .liveness import LOST_AFTER_SECONDS, Liveness, Lost, survivor_writing
from .node import crowding, load_average
from .placement import Placement, ranks_on
from .rank_jvm import LOOK_SECONDS, RankJvm
from .rounds import RankState, RankStatus, RunEnds, worst_ending
from .transport import Agreed, Ended

__all__ = ["MPI", "RankRounds"]

# Polling keeps a waiting launcher off the CPU its JVM (or another rank's) is measuring with;
# MPI's own blocking calls spin. Where the node's processors are free, a waiting rank looks every
# POLL_SECONDS, which is the skew it adds between the ranks' exits from a round. Where they are
# crowded, it looks as much less often, up to SLOW_POLL_SECONDS: at POLL_SECONDS, 64 ranks on 2
# cores (320,000 looks a second between them) took more of the cores than the JVMs still measuring,
# and their heartbeats fell silent long enough to be taken for lost. A rank woken on crowded
# processors waits its turn for one anyway.
POLL_SECONDS = 0.0002
SLOW_POLL_SECONDS = 0.01
# How often a rank hands its keeper the connections MPI opened since (jiobench.run.keeper).
KEEPER_LOOK_SECONDS = 1.0
# What rank 0 says to every rank, which each hands in too.
Value = TypeVar("Value")


def poll_sleep() -> float:
    """How long a waiting rank sleeps between two looks, as crowded as the node's processors are now."""
    return min(SLOW_POLL_SECONDS, POLL_SECONDS * crowding())


def quiet_maximum(comm: MPI.Comm, values: list[int], tend: Callable[[], None]) -> list[int]:
    """The greatest of each value over every rank, reduced as a barrier would wait: asleep between
    looks, as long as the node's crowding asks, and looking at the other ranks (`tend`) every
    LOOK_SECONDS as it does. Every rank has handed in its values when any has the result, so it
    synchronises the ranks as a barrier does."""
    mine, greatest = array("q", values), array("q", values)
    request = comm.Iallreduce(mine, greatest, op=MPI.MAX)
    sleep = poll_sleep()
    looked = time.monotonic()
    while not request.Test():
        time.sleep(sleep)
        if time.monotonic() - looked > LOOK_SECONDS:
            tend()
            sleep = poll_sleep()
            looked = time.monotonic()
    return list(greatest)


def place_ranks(comm: MPI.Comm) -> Placement:
    """Which node each rank is on: rank 0 hears every rank's host once and tells every rank the
    placement, which takes a run of ranks a node where they are placed node by node."""
    hosts = comm.gather(MPI.Get_processor_name(), root=0)
    placement = Placement.of_hosts(hosts) if hosts is not None else None
    names, runs = comm.bcast((placement.names, placement.runs) if placement else None, root=0)
    return Placement(names, runs)


class RankRounds:
    """This rank's place among the ranks, and its rounds with them."""

    def __init__(self, comm: MPI.Comm, keeper: Keeper):
        self.comm = comm
        self.keeper = keeper
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.host = MPI.Get_processor_name()
        # Every rank's host, as `hosts[rank]` reads it, in the size of the node count.
        self.hosts = place_ranks(comm)
        self.jvm: Optional[RankJvm] = None  # this rank's JVM of the task under way
        self.stop_signal: Optional[str] = None
        self.peer_failed = False  # another rank's JVM failed: this one's phase ends at once
        # Once ranks are lost: how the run ended, after which no collective call is made.
        self.lost: Optional[dict[str, Any]] = None
        self.lost_ranks: list[int] = []
        self.writer: Optional[int] = 0  # the rank that writes the run file (None: no rank is left to)
        self.run_id = comm.bcast(runfile.new_run_id() if self.rank == 0 else None)
        # Re-entrant: the signal handler runs on the main thread, perhaps while it holds the lock.
        self.lock = threading.RLock()
        self.liveness = Liveness(comm, self.hosts, self.on_peer_failure)
        self.keeper.hold_new()  # the connections MPI opened to start the run
        self.keeper_looked = time.monotonic()

    def mpi(self) -> dict[str, Any]:
        return {"library": MPI.Get_library_version().strip().strip("\0").strip(),
                "standard": "%d.%d" % MPI.Get_version()}

    def loads(self) -> dict[str, Optional[list[float]]]:
        """Every host's load average (node.load_average), as its ranks see it now; this
        host's alone once ranks were lost."""
        mine = (self.host, load_average())
        try:
            # Every host's, whatever stopped the run: only lost ranks leave it to this host's.
            loads = self.to_rank_0(mine, status=(RankState.GO, None))
            return cast("dict[str, Optional[list[float]]]",
                        self.comm.bcast(dict(loads) if loads is not None else None, root=0))
        except RunEnds:
            return dict([mine])

    def tending(self, work: Callable[[], None]) -> None:
        """Does `work` on a thread of its own while this rank keeps up its heartbeats."""
        done = threading.Event()
        failure: list[BaseException] = []

        def do_work() -> None:
            try:
                work()
            except BaseException as problem:  # said on this thread, below
                failure.append(problem)
            finally:
                done.set()

        threading.Thread(target=do_work, daemon=True).start()
        while not done.wait(LOOK_SECONDS):
            self.tend()
        if failure:
            raise failure[0]

    # Rounds ------------------------------------------------------------------------------------

    def on_peer_failure(self, rank: int) -> None:
        with self.lock:
            self.peer_failed = True
            jvm = self.jvm
        if jvm is not None:
            jvm.ask_to_stop()

    def tend(self) -> None:
        """Looks at the other ranks while waiting: RunEnds once some are lost."""
        if time.monotonic() - self.keeper_looked > KEEPER_LOOK_SECONDS:
            self.keeper.hold_new()
            self.keeper_looked = time.monotonic()
        if self.lost is None:
            try:
                self.liveness.tend()
            except Lost as lost:
                self.lost_ranks = lost.ranks
                jvm = self.jvm
                phase = jvm.phase if jvm else None
                self.lost = incomplete.failure(
                    f"{ranks_on(lost.ranks, self.hosts)} stopped answering for {LOST_AFTER_SECONDS:.0f} s"
                    + (f" {jvm.when} {phase}" if jvm and phase else "") + " (a node lost, or its launcher killed)",
                    phase=phase, when=jvm.when if jvm else "during")
                self.writer = survivor_writing(self.hosts, lost.ranks)
        if self.lost is not None:
            raise RunEnds(self.lost)

    def status(self) -> RankStatus:
        if self.stop_signal is None:
            return RankState.GO, None
        return RankState.STOPPED, {"signal": self.stop_signal, "phase": self.jvm.phase if self.jvm else None}

    def round(self, status: Optional[RankStatus] = None, most: int = 0) -> int:
        """One exchange with every rank, in which each says how it stands: RunEnds on every rank
        when some rank cannot go on, else the greatest `most` any rank handed in."""
        if self.lost is not None:
            raise RunEnds(self.lost)
        state, detail = status or self.status()
        worst, greatest = quiet_maximum(self.comm, [state, most], self.tend)
        if worst != RankState.GO:
            # Rare, and the end of the run: only now does every rank's detail travel, to rank 0.
            states = self.comm.gather((state, detail), root=0)
            raise RunEnds(self.comm.bcast(worst_ending(states) if states is not None else None, root=0))
        return greatest

    def to_rank_0(self, payload: object, status: Optional[RankStatus] = None) -> Optional[list[Any]]:
        """A round, then every rank's payload gathered to rank 0: the list there, None elsewhere."""
        self.round(status)
        return self.comm.gather(payload, root=0)

    def rank_0_says(self, value: Value) -> Value:
        """A round, then rank 0's value, the same on every rank."""
        self.round()
        return cast(Value, self.comm.bcast(value, root=0))

    def agree(self, value: Any) -> Union[Agreed, Ended]:
        """Rank 0's value, the same on every rank."""
        try:
            return Agreed(self.rank_0_says(value))
        except RunEnds as ends:
            return Ended(ends.ending)
