"""Whether every rank is still there, and word of a rank that failed, between the rounds of a run.

MPI's collectives have no deadline: when a node is lost (its link cut, its power gone) the ranks
elsewhere wait in their next barrier until Slurm notices, minutes later, and kills the job with
nothing measured kept. So the launchers send each other a heartbeat on a communicator of their
own, and take in what came whenever they wait (for a round, for their JVM). A rank silent for
LOST_AFTER_SECONDS is lost: the survivors end the run together, with no collective call left to
hang in. The same channel carries a failure at once: a rank whose JVM failed says so, and every
other rank asks its own JVM to end its phase instead of measuring on to the phase's deadline.

Heartbeats go by node, so that no rank's share grows with the rank count. The lowest rank on each
node leads it: it beats with its node's other ranks and with rank 0, which leads its own node and
beats with every other leader. Each second rank 0 sends and takes in one beat a node and one a
rank of its own node; another leader one a rank of its node and one for rank 0; any other rank
one, with its leader. A rank keeps when it last heard each rank it beats with, nothing more.

What a silence blames is what the silent rank was the only way to hear:
- a rank of one's own node (a leader's rank, a rank's leader): that rank alone. Ranks of one node
  hear each other through the node's own memory, which no cut link parts: the launcher itself was
  killed or frozen. A leader so passes on exactly the launcher it lost. The ranks of a node whose
  leader was lost blame it alone, though they now hear no one: they are alive, and so are their
  node mates.
- the leader of another node (rank 0, for the other leaders): its whole node. Each of the node's
  ranks was heard only through its leader: cut off or not, they can no longer be heard, and they
  are named as what they are to the rest of the run, ranks that stopped answering. A leader lost
  alone, on a node whose other ranks live, so has its whole node named by every rank off it.
Blaming only the silent rank's node keeps every rank of another node unnamed.

A silence counts only while the rank that hears it is listening. Between two looks it may be away
for long: in a blocking collective (the other ranks with it, waiting on rank 0 to reduce a phase),
or on a node crowded with JVMs, where the scheduler leaves it seconds apart. The ranks it beats with
were most often away with it, and their beats are still to come: a look after such a gap counts
the time since the last one as heard from every peer, less the beat a look is allowed to take.

Word of lost ranks goes on at once: a rank tells every rank it beats with but the lost ones and
the one it heard it from, so that it goes up to rank 0 and from it through every leader to every
rank, as each takes in what came: two looks after the first rank found them, not another ten
seconds. Every survivor thus names ranks of the same nodes, whoever found them first, and
`survivor_writing`, which goes by node, picks the same writer on each (a network cut in two leaves
each side naming the other; the driver sorts out whose run file stands). A failing rank tells every
leader, one message a node and once; each leader passes it on to its node's ranks as it takes it in.
"""
from __future__ import annotations

import time
from enum import IntEnum
from typing import Callable, Optional, Union

from mpi4py import MPI

from .placement import Placement

BEAT_SECONDS = 1.0
# Ten beats: a launcher busy between two looks (a JVM given its grace to exit takes five
# seconds) is not taken for lost.
LOST_AFTER_SECONDS = 10.0



class Tag(IntEnum):
    """What a rank's message to another says: a heartbeat, a rank that failed, ranks found lost."""
    BEAT = 1
    FAILED = 2
    LOST = 3


class Lost(Exception):
    """Some ranks stopped answering."""

    def __init__(self, ranks: list[int]):
        super().__init__(f"ranks {ranks} stopped answering")
        self.ranks = ranks


class Liveness:
    """This rank's heartbeats and what it heard of the others."""

    def __init__(self, comm: MPI.Comm, placement: Placement, on_peer_failure: Callable[[int], None],
                 beat: float = BEAT_SECONDS, lost_after: float = LOST_AFTER_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.comm = comm.Dup()
        self.placement = placement
        self.clock = clock
        self.rank = comm.Get_rank()
        self.node = placement.node_of(self.rank)
        self.on_peer_failure = on_peer_failure
        self.beat, self.lost_after = beat, lost_after
        leader = placement.leader_of(self.rank)
        # The ranks this one leads, which it hears and passes word on to; none unless it leads.
        self.led = [rank for rank in placement.ranks_of(self.node) if rank != self.rank] if leader == self.rank else []
        # And whom it beats with besides: rank 0 every other leader, a leader rank 0, any other rank its leader.
        if self.rank == 0:
            upward = [other for other in placement.leaders if other != 0]
        elif leader == self.rank:
            upward = [0]
        else:
            upward = [leader]
        now = self.clock()
        self.heard = dict.fromkeys(self.led + upward, now)  # every rank it beats with
        self.next_beat = now
        self.looked = now  # this rank's last look
        self.sending: list[MPI.Request] = []
        self.lost: list[int] = []

    def tend(self) -> None:
        """Sends a heartbeat when one is due and takes in what came; raises Lost once a rank is."""
        if self.lost:
            raise Lost(self.lost)
        if not self.heard:
            return  # a run of one rank
        now = self.clock()
        away = now - self.looked - self.beat
        if away > 0:
            self.heard = {peer: heard + away for peer, heard in self.heard.items()}
        self.looked = now
        if now >= self.next_beat:
            self.next_beat = now + self.beat
            self.sending = [request for request in self.sending if not request.Test()]
            for peer in self.heard:
                self.send(peer, Tag.BEAT)
        status = MPI.Status()
        while self.comm.iprobe(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status):
            source, tag = status.Get_source(), status.Get_tag()
            message = self.comm.recv(source=source, tag=tag)
            if source in self.heard:  # a failing rank of another node tells this leader too
                self.heard[source] = now
            if tag == Tag.FAILED:
                self.on_peer_failure(message)
                self.pass_on_failure(message)
            elif tag == Tag.LOST and not self.lost:
                self.declare_lost(message, told_by=source)
        if not self.lost:
            silent = [peer for peer, heard in self.heard.items() if now - heard > self.lost_after]
            if silent:
                self.declare_lost(sorted({rank for peer in silent for rank in self.blamed_with(peer)}))
        if self.lost:
            raise Lost(self.lost)

    def blamed_with(self, peer: int) -> list[int]:
        """The ranks a silent peer takes with it: itself on this rank's node, else its whole node,
        whose other ranks this rank heard only through it."""
        node = self.placement.node_of(peer)
        return [peer] if node == self.node else list(self.placement.ranks_of(node))

    def declare_lost(self, lost: list[int], told_by: Optional[int] = None) -> None:
        """Takes the ranks as lost and tells every rank it beats with that is not, but the teller."""
        self.lost = lost
        gone = set(lost)
        for peer in self.heard:
            if peer not in gone and peer != told_by:
                self.send(peer, Tag.LOST, lost)

    def announce_failure(self) -> None:
        """Tells every other rank at once that this rank's JVM failed: every leader, which passes
        it on to its node."""
        for leader in self.placement.leaders:
            if leader != self.rank:
                self.send(leader, Tag.FAILED, self.rank)
        self.pass_on_failure(self.rank)

    def pass_on_failure(self, failed: int) -> None:
        """A leader tells the ranks it leads, but the one that failed."""
        for rank in self.led:
            if rank != failed:
                self.send(rank, Tag.FAILED, failed)

    def send(self, peer: int, tag: int, message: Union[int, list[int], None] = None) -> None:
        self.sending.append(self.comm.isend(message, dest=peer, tag=tag))


def survivor_writing(placement: Placement, lost: list[int]) -> Optional[int]:
    """The rank that writes the run file once ranks were lost: the first rank on a node none of
    the lost ranks was on (a lost rank most often means a lost node), else the first not lost."""
    lost_nodes = {placement.node_of(rank) for rank in lost}
    # A node's first rank is its leader.
    untouched = [leader for node, leader in enumerate(placement.leaders) if node not in lost_nodes]
    if untouched:
        return min(untouched)
    gone = set(lost)
    return next((rank for rank in range(placement.size) if rank not in gone), None)
