"""The driver that both launch paths share: its pieces, as plain functions over plain data, and the
whole driver over a transport that yields scripted events, ended each way a run can end."""
from __future__ import annotations

import dataclasses
import json
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import pytest

from conftest import HOME
from jiobench.model import perrank
from jiobench.run import collect
from jiobench.run.driver import FIRST, Driver, memory_refusal, said_once, shared_file_refusal
from jiobench.run.processes import STOP_NOTE_VARIABLE
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


# The driver over a scripted transport: the events of a real run (the kept 2-rank calibrate run the
# analysis tests read), in the order a transport yields them, ended each way a run can end.
KEPT_RUN = next((HOME / "docs" / "runs" / "analysis-tests" / "faster").glob("*.json"))


class ScriptedTransport:
    """A transport that yields the events a test gives it for the first task, as one driver
    speaking for every rank (MPJ Express's way), and notes the driver's answers."""

    rank = writer = 0
    who = None

    def __init__(self, events: list, hosts: list[str]):
        self.events = events  # each an event, or a function of the driver's last answer that makes one
        self.hosts = hosts
        self.answers: list[tuple[str, object]] = []
        self.stopped_by: Optional[str] = None

    def mpi(self) -> dict:
        return {"library": "scripted", "standard": "none"}

    def loads(self) -> dict:
        return {host: None for host in self.hosts}

    def stop(self, signal_name: str) -> None:
        self.stopped_by = signal_name

    def agree(self, value) -> dict:
        return {"type": "agreed", "value": value}

    def task(self, task: str, label: str, unable: Optional[str]) -> Iterator[dict]:
        assert task == FIRST and unable is None, (task, unable)
        answer = None
        for event in self.events:
            event = event(answer) if callable(event) else event
            answer = yield event
            self.answers.append((event["type"], answer))


@dataclass
class ScriptedRun:
    request: RunRequest
    ready: dict
    phases: list[list[dict]]  # each phase's records, every rank's
    test_file: Path
    results: Path

    def drive(self, *events) -> tuple[int, ScriptedTransport]:
        transport = ScriptedTransport(list(events), ["vm"] * self.request.ranks)
        return Driver(self.request, transport).run(), transport

    def run_file(self) -> dict:
        (path,) = self.results.glob("*.json")
        return json.loads(path.read_text())

    def started(self) -> list[dict]:
        """A start every rank agreed to: its JVMs up, the checks passed."""
        return [{"type": "ready", "ready": self.ready, "memory": [(None, None)] * self.request.ranks},
                {"type": "started", "ready": self.ready, "run_id": "scripted"}]

    def measured(self, count: int) -> list[dict]:
        return [{"type": "phase", "records": records} for records in self.phases[:count]]


@pytest.fixture
def scripted(tmp_path, monkeypatch) -> ScriptedRun:
    """The kept run as its JVMs told it, on a test file of this test's that the run created."""
    monkeypatch.delenv(STOP_NOTE_VARIABLE, raising=False)
    kept = json.loads(KEPT_RUN.read_text())
    test_file, results = tmp_path / "f.dat", tmp_path / "results"
    test_file.write_bytes(b"written by the run")
    parameters = dict(kept["parameters"], file=str(test_file), results=str(results))
    environment = {key: value for key, value in kept["environment"].items()
                   if key not in ("command_line", "launcher", "ranks", "hosts", "ranks_per_host", "mpi", "slurm")}
    ready = {"type": "ready", "parameters": parameters, "environment": environment, "created": [str(test_file)]}
    frame = perrank.frame(KEPT_RUN)
    phases = [group.astype(object).where(group.notna(), None).to_dict("records")
              for _, group in frame.groupby(["approach", "op", "fork", "rep"], sort=False)]
    request = RunRequest(ranks=kept["environment"]["ranks"], launcher="mpj-multicore", launcher_args=(), jvm_args=(),
                         java="java", jar="runner.jar", run_id=None, command_line=("jiobench", "run"), runner_args=())
    return ScriptedRun(request, ready, phases, test_file, results)


def test_a_run_to_its_end_writes_every_phase_and_removes_its_file(scripted, capsys):
    code, transport = scripted.drive(*scripted.started(), *scripted.measured(len(scripted.phases)),
                                     {"type": "finished", "exit": 0, "messages": []})
    assert code == 0, capsys.readouterr()
    run = scripted.run_file()
    assert "incomplete" not in run or run["incomplete"] is None
    assert len(run["phases"]) == len(scripted.phases) and run["summary"]
    # Answered up to the last phase: `finished` ends the task, and the driver takes nothing more.
    assert [kind for kind, _ in transport.answers] == ["ready", "started", *["phase"] * len(scripted.phases)]
    assert transport.answers[0][1] is None, "no refusal"
    assert all(answer["approach"] == "calibrate" for kind, answer in transport.answers if kind == "phase"), \
        "each phase answered with what its records reduce to"
    assert not scripted.test_file.exists(), "the file the run created is removed"
    assert "Summary of measured phases" in capsys.readouterr().out


def test_a_stop_keeps_the_phases_completed_before_and_exits_128_and_the_signal(scripted, capsys):
    stopped = collect.stop("SIGTERM", "stopped by SIGTERM during calibrate write fork 1 rep 2")
    code, _ = scripted.drive(*scripted.started(), *scripted.measured(3), {"type": "stopped", "ending": stopped})
    assert code == 128 + signal.SIGTERM, capsys.readouterr()
    run = scripted.run_file()
    assert run["incomplete"]["reason"] == "stopped" and run["incomplete"]["signal"] == "SIGTERM"
    assert len(run["phases"]) == 3 and not scripted.test_file.exists()


@pytest.mark.parametrize("message", ["rank 1: No space left on device",
                                     "rank 1 on vm stopped answering for 10 s during calibrate read fork 1 rep 2 "
                                     "(a node lost, or its launcher killed)"], ids=["failure", "lost-rank"])
def test_a_failure_or_a_lost_rank_keeps_the_phases_completed_before_and_exits_1(scripted, capsys, message):
    failed = collect.failure(message, 1, "calibrate read fork 1 rep 2")
    code, _ = scripted.drive(*scripted.started(), *scripted.measured(2), {"type": "failed", "ending": failed})
    assert code == 1, capsys.readouterr()
    run = scripted.run_file()
    assert run["incomplete"]["reason"] == "failed" and message in run["incomplete"]["message"]
    assert len(run["phases"]) == 2 and not scripted.test_file.exists()


def test_a_refusal_before_the_first_phase_is_one_line_exit_2_and_no_run_file(scripted, capsys):
    scripted.results.mkdir()
    (scripted.results / "taken.json").write_text("{}")
    scripted.request = dataclasses.replace(scripted.request, run_id="taken")
    ready = {"type": "ready", "ready": scripted.ready, "memory": [(None, None)] * scripted.request.ranks}
    code, transport = scripted.drive(ready, lambda refusal: {"type": "error", "exit": 2, "messages": [refusal],
                                                               "rank": None, "created": []})
    said = capsys.readouterr().err.splitlines()
    assert code == 2 and said == [f"jiobench: error: {transport.answers[0][1]}"] and "--run-id taken" in said[0], said
    assert [p.name for p in scripted.results.iterdir()] == ["taken.json"] and not scripted.test_file.exists()


def test_jvms_not_ready_in_time_end_the_run_in_one_line_with_no_run_file(scripted, capsys):
    # The transport says it once for all ranks (rank_jvm.start_failure); the runner's own words stand.
    late = "jiobench: error: rank 1 on vm not ready within --start-timeout 120 s"
    code, _ = scripted.drive({"type": "error", "exit": 1, "messages": [late], "rank": 1, "created": []})
    assert code == 1 and capsys.readouterr().err.splitlines() == [late]
    assert not scripted.results.exists()
