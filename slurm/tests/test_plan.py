"""The points `jiobench sweep` makes of its lists (jiobench_sweep.plan), without running any."""
from __future__ import annotations

import pytest

from jiobench.errors import UsageError
from jiobench_sweep.cli import parse
from jiobench_sweep.plan import plan


def placements(*argv: str) -> list[tuple]:
    points, _ = plan(parse([*argv, "--", "-a", "c-posix"]), [])
    return [(point["id"], point["nodes"], point["procs"]) for point in points]


def test_nodes_and_tasks_per_node_without_procs_fill_each_node_count():
    assert placements("--nodes", "1,2,3", "--tasks-per-node", "2") == [
        ("p1-n2-N1", 1, 2), ("p2-n4-N2", 2, 4), ("p3-n6-N3", 3, 6)]


def test_procs_given_with_nodes_keep_the_pairs_the_nodes_hold():
    assert placements("--procs", "2,4", "--nodes", "1,2", "--tasks-per-node", "2") == [
        ("p1-n2-N1", 1, 2), ("p2-n2-N2", 2, 2), ("p3-n4-N2", 2, 4)]


def test_without_nodes_a_point_is_one_process():
    assert placements() == [("p1-n1", None, 1)]
    assert placements("--tasks-per-node", "4") == [("p1-n1", None, 1)]


def test_nodes_without_tasks_per_node_still_need_procs_that_fill_them():
    with pytest.raises(UsageError, match="--nodes 2: no --procs count fills 2 nodes"):
        placements("--nodes", "1,2")
