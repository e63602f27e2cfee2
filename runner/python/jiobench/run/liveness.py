"""Whether every rank is still there, and word of a rank that failed, between the rounds of a run.

MPI's collectives have no deadline: when a node is lost (its link cut, its power gone) the ranks
elsewhere wait in their next barrier until Slurm notices, minutes later, and kills the job with
nothing measured kept. So the launchers send each other a heartbeat on a communicator of their
own, rank 0 to every rank and every rank to rank 0, and take in what came whenever they wait (for
a round, for their JVM). A rank silent for LOST_AFTER_SECONDS is lost: the survivors end the run
together, with no collective call left to hang in. The same channel carries a failure at once: a
rank whose JVM died tells every rank, and each asks its own JVM to end its phase instead of
measuring on to the phase's deadline.
"""
from __future__ import annotations

import time
from typing import Callable, Optional

from mpi4py import MPI

BEAT_SECONDS = 1.0
# Ten beats: a launcher busy between two looks (a JVM given its grace to exit takes five
# seconds) is not taken for lost.
LOST_AFTER_SECONDS = 10.0

BEAT, FAILED, LOST = 1, 2, 3  # message tags


class Lost(Exception):
    """Some ranks stopped answering."""

    def __init__(self, ranks: list[int]):
        super().__init__(f"ranks {ranks} stopped answering")
        self.ranks = ranks


class Liveness:
    """This rank's heartbeats and what it heard of the others."""

    def __init__(self, comm, hosts: list[str], on_peer_failure: Callable[[int], None], beat: float = BEAT_SECONDS,
                 lost_after: float = LOST_AFTER_SECONDS, clock: Callable[[], float] = time.monotonic):
        self.comm = comm.Dup()
        self.hosts = hosts
        self.clock = clock
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.on_peer_failure = on_peer_failure
        self.beat, self.lost_after = beat, lost_after
        # Rank 0 hears every rank; every other rank hears rank 0, which passes on whom it lost.
        self.peers = list(range(1, self.size)) if self.rank == 0 else [0]
        now = self.clock()
        self.heard = dict.fromkeys(self.peers, now)
        self.next_beat = now
        self.sending: list = []
        self.lost: list[int] = []

    def tend(self) -> None:
        """Sends a heartbeat when one is due and takes in what came; raises Lost once a rank is."""
        if self.lost:
            raise Lost(self.lost)
        if self.size == 1:
            return
        now = self.clock()
        if now >= self.next_beat:
            self.next_beat = now + self.beat
            self.sending = [request for request in self.sending if not request.Test()]
            for peer in self.peers:
                self.sending.append(self.comm.isend(None, dest=peer, tag=BEAT))
        status = MPI.Status()
        while self.comm.iprobe(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status):
            source, tag = status.Get_source(), status.Get_tag()
            message = self.comm.recv(source=source, tag=tag)
            self.heard[source] = now
            if tag == FAILED:
                self.on_peer_failure(source)
            elif tag == LOST:
                self.lost = message
        if not self.lost:
            silent = {peer for peer in self.peers if now - self.heard[peer] > self.lost_after}
            # The ranks of a lost node fall silent together, though the last beats of some may
            # have come a little later: the node's other silent ranks go with them.
            lost_hosts = {self.hosts[peer] for peer in silent}
            self.lost = sorted(silent | {peer for peer in self.peers if self.hosts[peer] in lost_hosts
                                         and now - self.heard[peer] > 2 * self.beat})
            if self.lost and self.rank == 0:
                for peer in set(self.peers) - set(self.lost):
                    self.sending.append(self.comm.isend(self.lost, dest=peer, tag=LOST))
        if self.lost:
            raise Lost(self.lost)

    def announce_failure(self) -> None:
        """Tells every other rank at once that this rank's JVM failed."""
        for peer in range(self.size):
            if peer != self.rank:
                self.sending.append(self.comm.isend(None, dest=peer, tag=FAILED))


def survivor_writing(hosts: list[str], lost: list[int]) -> Optional[int]:
    """The rank that writes the run file once ranks were lost: the first rank on a host none of
    the lost ranks was on (a lost rank most often means a lost node), else the first not lost."""
    lost_hosts = {hosts[rank] for rank in lost}
    for candidates in ([rank for rank, host in enumerate(hosts) if host not in lost_hosts],
                       [rank for rank in range(len(hosts)) if rank not in lost]):
        if candidates:
            return candidates[0]
    return None

