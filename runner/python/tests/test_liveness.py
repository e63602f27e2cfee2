"""The heartbeats between the ranks' launchers (jiobench.run.liveness), over a communicator that
delivers at once between the ranks of one process, on a clock the test moves: who is taken for
lost, when, who is told, and who writes the run file then. test_faults.py and
test_node_loss.py hold the same with real processes, a frozen launcher and a cut link."""
from __future__ import annotations

import mpi4py
import pytest

# No MPI in this process (Open MPI would start a daemon for it): only its constants are used.
mpi4py.rc.initialize = False
from jiobench.run.liveness import Liveness, Lost, survivor_writing  # noqa: E402


class Network:
    """Messages in flight between ranks, and the ranks that no longer send or receive."""

    def __init__(self):
        self.queues: dict[int, list[tuple[int, int, object]]] = {}
        self.cut: set[int] = set()

    def comm(self, rank: int, size: int) -> "Comm":
        self.queues[rank] = []
        return Comm(self, rank, size)


class Request:
    def Test(self) -> bool:
        return True


class Comm:
    def __init__(self, network: Network, rank: int, size: int):
        self.network, self.rank, self.size = network, rank, size

    def Dup(self) -> "Comm":
        return self

    def Get_rank(self) -> int:
        return self.rank

    def Get_size(self) -> int:
        return self.size

    def isend(self, message, dest: int, tag: int) -> Request:
        if self.rank not in self.network.cut and dest not in self.network.cut:
            self.network.queues[dest].append((self.rank, tag, message))
        return Request()

    def iprobe(self, source, tag, status) -> bool:
        queue = self.network.queues[self.rank]
        if queue:
            status.source, status.tag = queue[0][0], queue[0][1]
        return bool(queue)

    def recv(self, source: int, tag: int):
        return self.network.queues[self.rank].pop(0)[2]


class Status:
    def Get_source(self) -> int:
        return self.source

    def Get_tag(self) -> int:
        return self.tag


@pytest.fixture(autouse=True)
def plain_status(monkeypatch):
    monkeypatch.setattr("jiobench.run.liveness.MPI.Status", Status)


class Ranks:
    """Every rank's Liveness, all on one clock."""

    def __init__(self, hosts: list[str]):
        self.now = 0.0
        self.network = Network()
        self.failures: dict[int, list[int]] = {rank: [] for rank in range(len(hosts))}
        self.ranks = [Liveness(self.network.comm(rank, len(hosts)), hosts, self.failures[rank].append,
                               clock=lambda: self.now) for rank in range(len(hosts))]

    def run(self, seconds: float, step: float = 0.5) -> dict[int, list[int]]:
        """Every rank not cut tends every `step` seconds; what each rank found lost, and when."""
        lost: dict[int, list[int]] = {}
        for _ in range(int(seconds / step)):
            self.now += step
            for rank, liveness in enumerate(self.ranks):
                if rank in self.network.cut or rank in lost:
                    continue
                try:
                    liveness.tend()
                except Lost as found:
                    lost[rank] = found.ranks
        return lost


HOSTS = ["n1", "n1", "n2", "n2"]


def test_ranks_that_beat_are_never_lost():
    assert Ranks(HOSTS).run(60) == {}


def test_a_node_cut_off_is_lost_after_ten_silent_seconds_and_every_survivor_hears_it():
    ranks = Ranks(HOSTS)
    ranks.run(5)
    ranks.network.cut |= {2, 3}
    assert ranks.run(9.5) == {}
    found = ranks.run(1.5)
    assert found == {0: [2, 3], 1: [2, 3]}


def test_a_lost_rank_takes_only_the_silent_ranks_of_its_own_node_with_it():
    """Rank 3 fell silent a second after rank 2 (its last beat came late): they go together; rank
    1, on the node that survives, was heard a moment ago and is not named."""
    ranks = Ranks(HOSTS)
    ranks.run(5)
    ranks.network.cut.add(2)
    ranks.run(1)
    ranks.network.cut.add(3)
    assert ranks.run(11)[0] == [2, 3]


def test_rank_0_lost_is_found_by_every_other_rank():
    ranks = Ranks(HOSTS)
    ranks.run(3)
    ranks.network.cut |= {0, 1}
    assert ranks.run(11) == {2: [0], 3: [0]}


def test_a_failure_is_heard_by_every_rank_at_once():
    ranks = Ranks(HOSTS)
    ranks.run(2)
    ranks.ranks[2].announce_failure()
    ranks.run(0.5)
    assert ranks.failures == {0: [2], 1: [2], 2: [], 3: [2]}


@pytest.mark.parametrize("hosts, lost, writer", [
    (HOSTS, [2, 3], 0),  # rank 0 survives: it writes, as ever
    (HOSTS, [0], 2),  # rank 0's node is taken for lost: the first rank of another node
    (["n1", "n1", "n1"], [0], 1),  # one node: the first rank that is not lost
    (["n1", "n2", "n1", "n2"], [0], 1),  # ranks placed round-robin
])
def test_the_run_file_is_written_by_a_rank_that_survives(hosts, lost, writer):
    assert survivor_writing(hosts, lost) == writer

