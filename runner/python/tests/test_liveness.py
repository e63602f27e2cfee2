"""The heartbeats between the ranks' launchers (jiobench.run.liveness), by node, over a
communicator that delivers at once between the ranks of one process, on a clock the test moves:
who beats with whom, who is taken for lost, when, who is told, and who writes the run file then.
test_faults.py and test_node_loss.py hold the same with real processes, a frozen launcher and a
cut link."""
from __future__ import annotations

import threading
import time
from collections import Counter
from types import SimpleNamespace

import mpi4py
import pytest

# No MPI in this process (Open MPI would start a daemon for it): only its constants are used.
mpi4py.rc.initialize = False
from jiobench.run.liveness import Liveness, Lost, Tag, survivor_writing  # noqa: E402
from jiobench.run.placement import Placement  # noqa: E402
from jiobench.run.rank import MpiRanks  # noqa: E402


class Network:
    """Messages in flight between ranks, the ranks that no longer send or receive, and a count of
    the messages each rank took in and sent, by tag."""

    def __init__(self):
        self.queues: dict[int, list[tuple[int, int, object]]] = {}
        self.cut: set[int] = set()
        self.received: Counter[tuple[int, int]] = Counter()  # (rank, tag)
        self.sent: Counter[tuple[int, int]] = Counter()

    def comm(self, rank: int) -> "Comm":
        self.queues[rank] = []
        return Comm(self, rank)


class Request:
    def Test(self) -> bool:
        return True


class Comm:
    def __init__(self, network: Network, rank: int):
        self.network, self.rank = network, rank

    def Dup(self) -> "Comm":
        return self

    def Get_rank(self) -> int:
        return self.rank

    def isend(self, message, dest: int, tag: int) -> Request:
        if self.rank not in self.network.cut and dest not in self.network.cut:
            self.network.queues[dest].append((self.rank, tag, message))
            self.network.sent[self.rank, tag] += 1
        return Request()

    def iprobe(self, source, tag, status) -> bool:
        queue = self.network.queues[self.rank]
        if queue:
            status.source, status.tag = queue[0][0], queue[0][1]
        return bool(queue)

    def recv(self, source: int, tag: int):
        _, tag, message = self.network.queues[self.rank].pop(0)
        self.network.received[self.rank, tag] += 1
        return message


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
        self.placement = Placement.of_hosts(hosts)
        self.failures: dict[int, list[int]] = {rank: [] for rank in range(len(hosts))}
        self.ranks = [Liveness(self.network.comm(rank), self.placement, self.failures[rank].append,
                               clock=lambda: self.now) for rank in range(len(hosts))]
        self.away: set[int] = set()  # ranks alive but not looking (in a blocking call, starved)

    def run(self, seconds: float, step: float = 0.5) -> dict[int, list[int]]:
        """Every rank not cut tends every `step` seconds, in rank order; what each rank found lost."""
        lost: dict[int, list[int]] = {}
        for _ in range(int(seconds / step)):
            self.now += step
            for rank, liveness in enumerate(self.ranks):
                if rank in self.network.cut or rank in self.away or rank in lost:
                    continue
                try:
                    liveness.tend()
                except Lost as found:
                    lost[rank] = found.ranks
        return lost

    def writers(self, found: dict[int, list[int]]) -> set[int]:
        """Whom the ranks that found ranks lost pick to write the run file."""
        return {survivor_writing(self.placement, lost) for lost in found.values()}


# Three nodes of three ranks: ranks 0, 3 and 6 lead them.
HOSTS = ["n1"] * 3 + ["n2"] * 3 + ["n3"] * 3
N2 = [3, 4, 5]


def every_rank_but(*ranks: int) -> list[int]:
    return [rank for rank in range(len(HOSTS)) if rank not in ranks]


def test_ranks_that_beat_are_never_lost():
    assert Ranks(HOSTS).run(60) == {}


@pytest.mark.parametrize("hosts", [HOSTS, ["n1", "n2", "n3"] * 3], ids=["by-node", "round-robin"])
def test_a_node_cut_off_is_lost_after_ten_silent_seconds_and_every_survivor_hears_it(hosts):
    """Rank 0 finds n2's leader silent and names its node; n3's ranks hear it through their leader."""
    n2 = [rank for rank, host in enumerate(hosts) if host == "n2"]
    ranks = Ranks(hosts)
    ranks.run(5)
    ranks.network.cut |= set(n2)
    assert ranks.run(9.5) == {}
    found = ranks.run(1)
    assert found == dict.fromkeys(every_rank_but(*n2), n2)
    assert ranks.writers(found) == {0}


def test_ranks_away_together_are_not_lost_when_they_come_back():
    """A blocking collective keeps every rank from looking for 30 s while rank 0 reduces a phase,
    and a crowded node keeps n2's ranks from their first look after it 5 s longer: none of them
    was due to beat while the others were away, and none is lost."""
    ranks = Ranks(HOSTS)
    ranks.run(5)
    ranks.now += 30
    ranks.away |= set(N2)
    assert ranks.run(5) == {}
    ranks.away.clear()
    assert ranks.run(30) == {}


def test_a_node_cut_off_while_the_others_were_away_is_lost_after_ten_seconds_of_listening():
    ranks = Ranks(HOSTS)
    ranks.run(5)
    ranks.network.cut |= set(N2)
    ranks.now += 30
    assert ranks.run(9) == {}
    found = ranks.run(2)
    assert found == dict.fromkeys(every_rank_but(*N2), N2)


def test_a_launcher_killed_on_a_node_whose_leader_lives_is_named_alone_by_every_survivor():
    """n2's leader finds rank 4 silent and passes up exactly that rank: rank 5, its node mate, and
    every other node go on being heard."""
    ranks = Ranks(HOSTS)
    ranks.run(5)
    ranks.network.cut.add(4)
    assert ranks.run(9.5) == {}
    found = ranks.run(1.5)
    assert found == dict.fromkeys(every_rank_but(4), [4])
    assert ranks.writers(found) == {0}


def test_a_leader_lost_alone_takes_its_node_for_the_run_and_only_itself_for_its_node():
    """Rank 0 heard n2's ranks only through rank 3: they are named with it, by every rank off n2.
    Ranks 4 and 5 hear rank 3 fall silent themselves and name it alone; every rank picks rank 0
    to write the run file."""
    ranks = Ranks(HOSTS)
    ranks.run(5)
    ranks.network.cut.add(3)
    found = ranks.run(11)
    assert found == {**dict.fromkeys(every_rank_but(*N2), N2), 4: [3], 5: [3]}
    assert ranks.writers(found) == {0}


def test_a_rank_of_another_node_is_never_blamed():
    """Rank 5 fell silent a second after rank 3 (its last beat came late): n2 goes as one, and
    no rank of n1 or n3, heard a moment ago, is named."""
    ranks = Ranks(HOSTS)
    ranks.run(5)
    ranks.network.cut.add(3)
    ranks.run(1)
    ranks.network.cut |= {4, 5}
    assert ranks.run(11) == dict.fromkeys(every_rank_but(*N2), N2)


@pytest.mark.parametrize("cut, found_off_n1, found_on_n1", [
    ({0, 1, 2}, [0, 1, 2], {}),  # n1 lost: the other leaders name it and tell their ranks
    ({0}, [0, 1, 2], {1: [0], 2: [0]}),  # rank 0's launcher killed: its node mates hear it fall silent
])
def test_rank_0_lost_is_found_by_every_other_rank(cut, found_off_n1, found_on_n1):
    ranks = Ranks(HOSTS)
    ranks.run(3)
    ranks.network.cut |= cut
    found = ranks.run(11)
    assert found == {**dict.fromkeys(range(3, 9), found_off_n1), **found_on_n1}
    assert ranks.writers(found) == {3}


@pytest.mark.parametrize("failing", [0, 3, 4])  # rank 0, another leader, a rank that leads none
def test_a_failure_is_heard_by_every_rank_at_once(failing):
    ranks = Ranks(HOSTS)
    ranks.run(2)
    ranks.ranks[failing].announce_failure()
    ranks.run(0.5)
    assert ranks.failures == {rank: [] if rank == failing else [failing] for rank in range(len(HOSTS))}


def test_rank_0_hears_a_beat_a_node_not_a_beat_a_rank():
    """8 nodes of 8 ranks: each second rank 0 hears the 7 other leaders and the 7 other ranks of
    its own node, not 63 ranks; another leader its 7 ranks and rank 0; any other rank its leader."""
    ranks = Ranks([f"n{node}" for node in range(8) for _ in range(8)])
    seconds = 10
    ranks.run(seconds)
    beats = {rank: ranks.network.received[rank, Tag.BEAT] / seconds for rank in range(64)}
    assert beats == {rank: 14 if rank == 0 else 8 if rank % 8 == 0 else 1 for rank in range(64)}
    assert {rank: ranks.network.sent[rank, Tag.BEAT] / seconds for rank in range(64)} == beats


def test_a_failure_costs_its_rank_a_message_a_node_and_every_other_rank_one():
    ranks = Ranks([f"n{node}" for node in range(8) for _ in range(8)])
    ranks.run(2)
    ranks.ranks[9].announce_failure()
    ranks.run(0.5)
    assert ranks.network.sent[9, Tag.FAILED] == 8
    assert {rank: ranks.network.received[rank, Tag.FAILED] for rank in range(64)} == \
           {rank: 0 if rank == 9 else 1 for rank in range(64)}


@pytest.mark.parametrize("hosts, lost, writer", [
    (["n1", "n1", "n2", "n2"], [2, 3], 0),  # rank 0 survives: it writes, as ever
    (["n1", "n1", "n2", "n2"], [0], 2),  # rank 0's node is taken for lost: the first rank of another node
    (["n1", "n1", "n1"], [0], 1),  # one node: the first rank that is not lost
    (["n1", "n2", "n1", "n2"], [0], 1),  # ranks placed round-robin
])
def test_the_run_file_is_written_by_a_rank_that_survives(hosts, lost, writer):
    assert survivor_writing(Placement.of_hosts(hosts), lost) == writer


def test_work_done_while_tending_keeps_the_heartbeats_up_and_says_its_failure():
    """Rank 0 loads scipy (a second, a minute on a crowded node) while it goes on beating."""
    looks = []
    rank = SimpleNamespace(tend=lambda: looks.append(time.monotonic()))
    began = time.monotonic()
    MpiRanks.tending(rank, lambda: time.sleep(0.5))
    assert time.monotonic() - began >= 0.5
    assert len(looks) >= 5 and max(b - a for a, b in zip([began, *looks], looks)) < 0.3, looks

    def broken():
        raise ImportError("no module named scipy")

    with pytest.raises(ImportError, match="scipy"):
        MpiRanks.tending(rank, broken)


def test_a_rank_lost_while_work_is_done_ends_the_wait_at_once():
    class RankLost(Exception):
        pass

    def tend():
        raise RankLost

    endless = threading.Event()
    began = time.monotonic()
    with pytest.raises(RankLost):
        MpiRanks.tending(SimpleNamespace(tend=tend), endless.wait)
    endless.set()
    assert time.monotonic() - began < 1
