"""Which node each rank is on (jiobench.run.placement), kept in runs a node: the same answers as a
list of every rank's host, and the runs the JVMs read (LauncherWorld.hostsOf)."""
from __future__ import annotations

import pytest

from jiobench.run import wire
from jiobench.run.placement import Placement

NODE_BY_NODE = ["n1", "n1", "n1", "n2", "n2", "n3"]
ROUND_ROBIN = ["n1", "n2", "n1", "n2"]


@pytest.mark.parametrize("hosts", [NODE_BY_NODE, ROUND_ROBIN, ["solo"]])
def test_a_placement_answers_as_the_list_of_every_ranks_host_would(hosts):
    placement = Placement.of_hosts(hosts)
    assert len(placement) == len(hosts)
    assert list(placement) == hosts
    assert [placement[rank] for rank in range(len(hosts))] == hosts
    for rank, host in enumerate(hosts):
        assert placement.leader_of(rank) == hosts.index(host)
        assert list(placement.ranks_of(placement.node_of(rank))) == [r for r, h in enumerate(hosts) if h == host]
    assert placement.ranks_per_host() == {host: hosts.count(host) for host in dict.fromkeys(hosts)}
    with pytest.raises(IndexError):
        placement[len(hosts)]


def test_ranks_placed_node_by_node_take_one_run_a_node():
    assert wire.host_runs(Placement.of_hosts(NODE_BY_NODE).runs) == "0*3.1*2.2"
    assert wire.host_runs(Placement.of_hosts(ROUND_ROBIN).runs) == "0.1.0.1"
    thousands = Placement.of_hosts([f"node{rank // 128}" for rank in range(10_000)])
    assert len(thousands.runs) == len(thousands.names) == 79
    assert thousands.leader_of(9_999) == 9_984 and thousands[9_999] == "node78"
