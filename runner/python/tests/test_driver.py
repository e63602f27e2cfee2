"""The pieces of the driver that both launch paths share, as plain functions over plain data."""
from __future__ import annotations

import pytest

from jiobench.run.driver import memory_refusal, said_once, shared_file_refusal
from jiobench.run.launching import shared_reads
from jiobench.run.mpi import RANK_OVERHEAD_BYTES
from jiobench.run.request import RunRequest

GIB = 2 ** 30


def test_a_request_reaches_every_rank_as_it_was_built():
    request = RunRequest(ranks=2, launcher="mpirun", launcher_args=("--tag-output",), jvm_args=("-Xmx1g", "-Dx=a b"),
                         java="java", jar="/j.jar", run_id=None, command_line=("jiobench", "run", "-n", "2"),
                         runner_args=("-a", "raw-bytes", "-o", "f é.dat"))
    assert RunRequest.from_json(request.to_json()) == request
    # jiobench's own JVM options (test_request.py) come first, the user's after them, so that the user's win.
    command = request.jvm_command()
    assert command[0] == "java"
    assert command[-8:] == ["-Xmx1g", "-Dx=a b", "-jar", "/j.jar", "-a", "raw-bytes", "-o", "f é.dat"]


def test_ranks_are_refused_per_host_where_their_plans_together_exceed_its_memory():
    hosts = ["a", "a", "b"]
    fits = [(GIB, 4 * GIB), (GIB, 4 * GIB), (3 * GIB, 4 * GIB)]
    assert memory_refusal(fits, hosts) is None
    too_much = [(2 * GIB, 4 * GIB), (2 * GIB, 4 * GIB), (GIB, 4 * GIB)]
    assert memory_refusal(too_much, hosts).startswith("2 ranks on a need about 4.2 GiB")
    assert "run at most 1 per node" in memory_refusal(too_much, hosts)


def test_a_host_whose_memory_is_out_of_sight_is_not_judged():
    assert memory_refusal([(100 * GIB, None), (100 * GIB, None)], ["far", "far"]) is None
    assert memory_refusal([(None, RANK_OVERHEAD_BYTES)], ["here"]) is None


def test_why_jvms_did_not_start_is_one_line_each_in_the_runner_s_words_or_as_an_error():
    assert said_once(["Error occurred during initialization of VM\nToo small maximum heap", "",
                      "jiobench: rank 1: gone"]) == [
        "jiobench: error: Error occurred during initialization of VM Too small maximum heap", "jiobench: rank 1: gone"]


def test_reads_that_cannot_each_take_a_different_block_are_warned_of():
    # 3+1: the lone rank's block is read by the three others, and one of theirs by nobody.
    assert shared_reads([3, 3, 3, 0], {"a": 3, "b": 1}) == [
        "-C: a holds 3 of the 4 ranks, more than half, so each rank reads a block written on another node but not "
        "each a different one: 1 block read by several ranks, 2 by none (parameters.read_block_of says whose each "
        "rank read)"]
    assert "2 blocks read by several ranks, 2 by none" in shared_reads([4, 5, 4, 5, 0, 1], {"a": 4, "b": 1, "c": 1})[0]


def test_reads_that_each_take_a_different_block_or_no_reorder_say_nothing():
    assert shared_reads([2, 3, 0, 1], {"a": 2, "b": 2}) == []
    assert shared_reads(None, {"a": 3, "b": 1}) == []


SHARED = {"file": "/tmp/jio.dat", "file_per_process": False}


@pytest.mark.parametrize("identities, hosts, refused", [
    ([7, 7, 7, 7], ["a", "a", "b", "b"], False),  # one file seen by every node
    ([7, 7, 9, 9], ["a", "a", "b", "b"], True),  # each node a file of its own
    ([7, 7, None, None], ["a", "a", "b", "b"], True),  # a node sees none
    ([7, 9], ["a", "a"], False),  # one node: nothing to compare across nodes
    (None, ["a", "b"], False),  # a transport that cannot see every rank's file
])
def test_the_ranks_of_several_nodes_must_see_one_file(identities, hosts, refused):
    refusal = shared_file_refusal(identities, hosts, SHARED)
    assert (refusal is not None) == refused
    if refused:
        assert refusal.startswith("-o /tmp/jio.dat: the ranks on a and b do not see one file there"), refusal


def test_a_file_per_process_may_be_local_to_each_node():
    assert shared_file_refusal([7, 9], ["a", "b"], dict(SHARED, file_per_process=True)) is None
