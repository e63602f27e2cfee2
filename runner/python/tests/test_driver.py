"""The pieces of the driver that both launch paths share, as plain functions over plain data."""
from __future__ import annotations

from jiobench.run.driver import memory_refusal, said_once
from jiobench.run.mpi import RANK_OVERHEAD_BYTES
from jiobench.run.request import RunRequest

GIB = 2 ** 30


def test_a_request_reaches_every_rank_as_it_was_built():
    request = RunRequest(ranks=2, launcher="mpirun", launcher_args=("--tag-output",), jvm_args=("-Xmx1g", "-Dx=a b"),
                         java="java", jar="/j.jar", run_id=None, command_line=("jiobench", "run", "-n", "2"),
                         runner_args=("-a", "raw-bytes", "-o", "f é.dat"))
    assert RunRequest.from_json(request.to_json()) == request
    assert request.jvm_command() == ["java", "-Xmx1g", "-Dx=a b", "-jar", "/j.jar", "-a", "raw-bytes", "-o", "f é.dat"]


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
