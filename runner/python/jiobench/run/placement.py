"""Which node each rank of a run is on, kept in the size of the node count, not the rank count;
and ranks named by their hosts, as the run's messages name them (`ranks_on`).

Rank 0 hears every rank's host once, at the start; every other rank is told the placement as
runs of ranks in a row on one node, which is what the JVMs read too ("0*2.1*2": two nodes of two
ranks each; `jiobench.run.wire.host_runs`). Ranks placed node by node, as launchers place them by
default, take one run a node, so that what a rank keeps of the others is a few bytes a node.
"""
from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, groupby
from typing import Iterable, Iterator, Mapping, Protocol, Sequence, Union


class RankHosts(Protocol):
    """Every rank's host, in rank order, as `hosts[rank]` reads it: a list of them, or a Placement."""

    def __getitem__(self, rank: int, /) -> str: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[str]: ...


class Placement:
    """The nodes of a run (`names`, by their number) and runs of (node number, rank count), in rank order."""

    def __init__(self, names: Sequence[str], runs: Sequence[tuple[int, int]]):
        self.names = list(names)
        self.runs = list(runs)
        self.starts = [0, *accumulate(count for _, count in self.runs)]  # each run's first rank, then the size
        self.size = self.starts[-1]
        self.leaders: list[int] = [-1] * len(self.names)  # each node's lowest rank
        for (node, _), start in zip(self.runs, self.starts):
            if self.leaders[node] < 0:
                self.leaders[node] = start

    @classmethod
    def of_hosts(cls, hosts: Sequence[str]) -> "Placement":
        """From every rank's host name, in rank order (as rank 0 gathers them)."""
        numbers: dict[str, int] = {}
        runs = [(node, len(list(ranks))) for node, ranks in groupby(numbers.setdefault(host, len(numbers))
                                                                     for host in hosts)]
        return cls(list(numbers), runs)

    def node_of(self, rank: int) -> int:
        if not 0 <= rank < self.size:
            raise IndexError(f"rank {rank} of {self.size}")
        return self.runs[bisect_right(self.starts, rank) - 1][0]

    def __getitem__(self, rank: int) -> str:
        """The host of a rank, as a list of every rank's host would give it."""
        return self.names[self.node_of(rank)]

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[str]:
        """Every rank's host, in rank order."""
        for node, count in self.runs:
            for _ in range(count):
                yield self.names[node]

    def leader_of(self, rank: int) -> int:
        """The lowest rank on the rank's node: the one that hears its node's ranks."""
        return self.leaders[self.node_of(rank)]

    def ranks_of(self, node: int) -> Iterator[int]:
        for (run_node, count), start in zip(self.runs, self.starts):
            if run_node == node:
                yield from range(start, start + count)

    def ranks_per_host(self) -> dict[str, int]:
        counts = dict.fromkeys(self.names, 0)
        for node, count in self.runs:
            counts[self.names[node]] += count
        return counts


def spans(numbers: list[int]) -> str:
    """Sorted numbers as runs: 0-2, 5."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs)


def ranks_on(ranks: Iterable[int], hosts: Union[Mapping[int, str], RankHosts]) -> str:
    """Ranks by host (`hosts[rank]`): 'rank 1 on vm', 'ranks 0-2 on node1; rank 5 on node2'."""
    by_host: dict[str, list[int]] = {}
    for rank in sorted(ranks):
        by_host.setdefault(hosts[rank], []).append(rank)
    return "; ".join(f"{'rank' if len(group) == 1 else 'ranks'} {spans(group)} on {host}"
                     for host, group in by_host.items())
