"""The driver that both launch paths share: its pieces, as plain functions over plain data, and the
whole driver over a transport that yields scripted events, ended each way a run can end."""
from __future__ import annotations

import dataclasses
import json
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Union

import pytest

from testing import HOME
from jiobench.model import perrank, reduce, stats
from jiobench.run import driver, endings, incomplete, wire
from jiobench.run.driver import FIRST, Driver, error_lines
from jiobench.run.start_checks import memory_refusal, shared_file_refusal
from jiobench.run.mpi import RANK_OVERHEAD_BYTES
from jiobench.run.processes import PASSED_ON_STOP, STOP_NOTE_VARIABLE, STOP_SIGNALS
from jiobench.run.request import RunRequest
from jiobench.run.startup import StartDeadline
from jiobench.run.transport import (Agreed, Ended, Finished, NotStarted, PhaseRecords, PhaseReduced, Ready, Started,
                                    StartLate, TaskEvent, TaskEvents)

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
    assert error_lines(["Error occurred during initialization of VM\nToo small maximum heap", "",
                      "jiobench: rank 1: gone"]) == [
        "jiobench: error: Error occurred during initialization of VM Too small maximum heap", "jiobench: rank 1: gone"]


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
# A step of a script: an event, or a function of the transport (the driver's answers so far, the
# task's start deadline) that gives one, or None where it is something that happens between two.
Step = Union[TaskEvent, Callable[["ScriptedTransport"], Optional[TaskEvent]]]


class ScriptedTransport:
    """A transport that yields the events a test gives it, task by task, and notes the driver's
    answers and the stops it was asked to pass on. As rank 0 it checks for every rank and writes;
    as another mpi4py rank, neither until the test makes it the writer."""

    def __init__(self, scripts: dict[str, list[Step]], hosts: list[str], rank: int = 0):
        self.scripts = scripts
        self.hosts = hosts
        self.speaks_for = range(rank, rank + 1)
        self.writer = 0
        self.answers: list = []
        self.stops: list[str] = []
        self.deadline: Optional[StartDeadline] = None
        self.tended: list[Callable[[], None]] = []  # the work done while the other ranks were answered
        self.tasks: list[str] = []  # each task as the driver passed it on
        self.stop_said = 0  # how often the driver said it had said why the run stopped

    def mpi(self) -> dict:
        return {"library": "scripted", "standard": "none"}

    def loads(self) -> dict:
        return {host: None for host in self.hosts}

    def stop(self, signal_name: str) -> None:
        self.stops.append(signal_name)

    def said_stop(self) -> None:
        self.stop_said += 1

    def tending(self, work: Callable[[], None]) -> None:
        self.tended.append(work)
        work()

    def agree(self, value) -> Agreed:
        return Agreed(value)

    def task(self, task: str, label: str, unable: Optional[str], deadline: StartDeadline) -> TaskEvents:
        self.tasks.append(task)
        if unable is not None:
            # As the transports end a task whose JVMs cannot start: this rank's reason why.
            yield NotStarted(exit=1, messages=[unable])
            return
        self.deadline = deadline
        # A later task as the driver writes it for the JVM: fork, approach and the created files' identities.
        for step in self.scripts[task if task == FIRST else ":".join(task.split(":")[:2])]:
            event = step(self) if callable(step) else step
            if event is not None:
                self.answers.append((yield event))


@dataclass
class ScriptedRun:
    request: RunRequest
    ready: dict
    phases: list[list[dict]]  # each phase's records, every rank's
    test_file: Path
    results: Path

    def drive(self, *steps: Step, rank: int = 0, later: Optional[dict] = None) -> tuple[int, ScriptedTransport]:
        """The driver's exit code over a transport of the first task's steps (and `later` tasks')."""
        transport = ScriptedTransport({FIRST: list(steps), **(later or {})}, ["vm"] * self.request.ranks, rank)
        return Driver(self.request, transport).run(), transport

    @property
    def created(self) -> dict[str, str]:
        return self.ready["created"]

    def run_file(self) -> dict:
        (path,) = self.results.glob("*.json")
        return json.loads(path.read_text())

    def started(self) -> list[TaskEvent]:
        """A start every rank agreed to: its JVMs up, the checks passed."""
        return [Ready(self.ready, memory=[(None, None)] * self.request.ranks), Started(self.ready, "scripted")]

    def measured(self, count: int) -> list[PhaseRecords]:
        return [PhaseRecords(records) for records in self.phases[:count]]


@pytest.fixture
def scripted(tmp_path, monkeypatch) -> ScriptedRun:
    """The kept run as its JVMs told it, on a test file of this test's that the run created. The
    driver takes the stop signals over: the test process gets its own handlers back."""
    monkeypatch.delenv(STOP_NOTE_VARIABLE, raising=False)
    handlers = {number: signal.getsignal(number) for number in (*STOP_SIGNALS, PASSED_ON_STOP)}
    kept = json.loads(KEPT_RUN.read_text())
    test_file, results = tmp_path / "f.dat", tmp_path / "results"
    test_file.write_bytes(b"written by the run")
    parameters = dict(kept["parameters"], file=str(test_file), results=str(results))
    environment = {key: value for key, value in kept["environment"].items()
                   if key not in ("command_line", "launcher", "ranks", "hosts", "ranks_per_host", "mpi", "slurm")}
    ready = {"type": "ready", "parameters": parameters, "environment": environment,
             "created": {str(test_file): wire.identity(test_file.stat())}}
    frame = perrank.frame(KEPT_RUN)
    phases = [group.astype(object).where(group.notna(), None).to_dict("records")
              for _, group in frame.groupby(["approach", "op", "fork", "rep"], sort=False)]
    request = RunRequest(ranks=kept["environment"]["ranks"], launcher="mpj-multicore", launcher_args=(), jvm_args=(),
                         java="java", jar="runner.jar", run_id=None, command_line=("jiobench", "run"), runner_args=())
    yield ScriptedRun(request, ready, phases, test_file, results)
    for number, handler in handlers.items():
        signal.signal(number, handler)


def test_a_run_to_its_end_writes_every_phase_and_removes_its_file(scripted, capsys):
    code, transport = scripted.drive(*scripted.started(), *scripted.measured(len(scripted.phases)), Finished(0, []))
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out
    run = scripted.run_file()
    assert "incomplete" not in run or run["incomplete"] is None
    assert len(run["phases"]) == len(scripted.phases) and run["summary"]
    assert run["writer"]["rank"] == 0 and run["per_rank_file"] == "scripted" + perrank.SUFFIX
    # Answered up to the last phase: `Finished` ends the task, and the driver takes nothing more.
    assert len(transport.answers) == 2 + len(scripted.phases)
    assert transport.answers[0] is None, "no refusal"
    assert all(answer["approach"] == "calibrate" for answer in transport.answers[2:]), \
        "each phase answered with what its records reduce to"
    assert not scripted.test_file.exists(), "the file the run created is removed"
    assert "Summary of measured phases" in out and out.splitlines()[-1] == str(scripted.results / "scripted.json")


@pytest.mark.parametrize("repetitions, forks, loaded", [(6, 1, True), ("auto", 1, True), (5, 1, False),
                                                       (1, 0, False)])
def test_the_statistics_are_loaded_while_the_ranks_are_answered_only_where_an_interval_can_come(
        scripted, repetitions, forks, loaded):
    """scipy takes a second of CPU to load, which a small run need not pay; where it is loaded, the
    transport goes on answering the other ranks meanwhile."""
    scripted.ready["parameters"].update(repetitions=repetitions, forks=forks)
    if repetitions == "auto":
        scripted.ready["parameters"].update(ci_target=0.05, time_budget_s=60.0, max_reps=20)
    code, transport = scripted.drive(*scripted.started(), Finished(0, []))
    assert code == 0
    assert transport.tended == ([stats.load_libraries] if loaded else [])


def test_a_stop_keeps_the_phases_completed_before_and_exits_128_and_the_signal(scripted, capsys):
    phase = "calibrate write fork 1 rep 2"
    code, transport = scripted.drive(*scripted.started(), *scripted.measured(3),
                                     lambda _: signal.raise_signal(signal.SIGTERM),
                                     Ended(incomplete.stop("SIGTERM", f"stopped by SIGTERM during {phase}", 0, phase)))
    assert code == 128 + signal.SIGTERM
    assert transport.stops == ["SIGTERM"], "the stop is passed on to the JVMs"
    assert capsys.readouterr().err.splitlines() == [
        f"jiobench: stopped by SIGTERM during {phase}; the run file keeps the 3 phases completed before"]
    assert transport.stop_said == 1, "jiobench run is told that the stop was said"
    run = scripted.run_file()
    assert run["incomplete"]["reason"] == "stopped" and run["incomplete"]["signal"] == "SIGTERM"
    assert len(run["phases"]) == 3 and not scripted.test_file.exists()


def test_a_stop_before_the_first_phase_writes_no_run_file(scripted, capsys):
    code, transport = scripted.drive(lambda _: signal.raise_signal(signal.SIGINT),
                                     Ended(incomplete.stop("SIGINT", "stopped by SIGINT"), created=scripted.created))
    out, err = capsys.readouterr()
    assert (code, out, transport.stop_said) == (128 + signal.SIGINT, "", 1)
    assert err.splitlines() == ["jiobench: stopped by SIGINT before any phase; no run file was written"]
    assert not scripted.results.exists() and not scripted.test_file.exists()


@pytest.mark.parametrize("message", ["rank 1: No space left on device",
                                     "rank 1 on vm stopped answering for 10 s during calibrate read fork 1 rep 2 "
                                     "(a node lost, or its launcher killed)"], ids=["failure", "lost-rank"])
def test_a_failure_or_a_lost_rank_keeps_the_phases_completed_before_and_exits_1(scripted, capsys, message):
    failed = incomplete.failure(message, 1, "calibrate read fork 1 rep 2")
    code, _ = scripted.drive(*scripted.started(), *scripted.measured(2), Ended(failed))
    assert code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"jiobench: rank 1 failed during calibrate read fork 1 rep 2: {message}; the run file keeps the 2 phases "
        "completed before"]
    run = scripted.run_file()
    assert run["incomplete"]["reason"] == "failed" and message in run["incomplete"]["message"]
    assert len(run["phases"]) == 2 and not scripted.test_file.exists()


def test_a_rank_that_survives_lost_rank_0_writes_the_run_file_from_the_phases_it_was_told(scripted, capsys,
                                                                                          monkeypatch):
    monkeypatch.setattr(driver, "RANK_0_FIRST_SECONDS", 0)
    phase = "calibrate read fork 1 rep 1"
    lost = incomplete.failure(f"rank 0 on vm stopped answering for 10 s during {phase} (a node lost, or its "
                              "launcher killed)", phase=phase)

    def rank_0_lost(transport):
        transport.writer = 1  # as MpiRanks picks a survivor, on a node none of the lost ranks was on

    reduced = [PhaseReduced(reduce.reduce_phase(records, None)) for records in scripted.phases[:3]]
    code, _ = scripted.drive(*scripted.started(), *reduced, rank_0_lost, Ended(lost), rank=1)
    out, err = capsys.readouterr()
    assert code == 1
    assert out.splitlines()[0] == "", "no header nor progress line: rank 0 printed them; the summary alone"
    assert out.splitlines()[-1] == str(scripted.results / "scripted.json")
    assert err.splitlines() == [f"jiobench: {lost['message']}; the run file keeps the 3 phases completed before"]
    run = scripted.run_file()
    assert run["writer"]["rank"] == 1 and run["per_rank_file"] is None
    assert any("rank 0, which was lost" in warning for warning in run["warnings"]), run["warnings"]
    assert not scripted.test_file.exists()


def test_a_refusal_before_the_first_phase_is_one_line_exit_2_and_no_run_file(scripted, capsys):
    scripted.results.mkdir()
    (scripted.results / "taken.json").write_text("{}")
    scripted.request = dataclasses.replace(scripted.request, run_id="taken")
    code, transport = scripted.drive(
        Ready(scripted.ready, memory=[(None, None)] * scripted.request.ranks),
        # As both transports answer a refusal: the JVMs are ended, and the refusal is why they did not start.
        lambda transport: NotStarted(exit=2, messages=[transport.answers[-1]], created=scripted.created))
    said = capsys.readouterr().err.splitlines()
    assert code == 2 and said == [f"jiobench: error: {transport.answers[0]}"] and "--run-id taken" in said[0], said
    assert [p.name for p in scripted.results.iterdir()] == ["taken.json"] and not scripted.test_file.exists()


def wait_out_the_deadline(transport: ScriptedTransport) -> None:
    while not transport.deadline.passed():
        time.sleep(0.01)


def test_jvms_not_ready_in_time_end_the_run_in_one_line_with_no_run_file(scripted, capsys):
    scripted.request = dataclasses.replace(scripted.request, start_timeout=0.25)
    started = time.monotonic()
    code, _ = scripted.drive(wait_out_the_deadline, StartLate("rank 1 on vm", "not ready", "waiting\nfor a lock",
                                                              rank=1, created=scripted.created))
    assert time.monotonic() - started >= 0.25
    assert code == 1 and capsys.readouterr().err.splitlines() == [
        "jiobench: error: rank 1 on vm not ready within --start-timeout 0.25 s; its JVM printed: waiting for a lock"]
    assert not scripted.results.exists() and not scripted.test_file.exists()


def test_jvms_that_did_not_start_are_said_once_each_and_their_code_is_the_run_s(scripted, capsys):
    code, _ = scripted.drive(NotStarted(exit=2, messages=["rank 0: -b 1MiB is not a multiple of -t 3MiB",
                                                          "rank 1: Error occurred during initialization of VM"]))
    assert code == 2 and capsys.readouterr().err.splitlines() == [
        "jiobench: error: rank 0: -b 1MiB is not a multiple of -t 3MiB",
        "jiobench: error: rank 1: Error occurred during initialization of VM"]


def test_the_one_rank_whose_jvm_did_not_start_is_named(scripted, capsys):
    code, _ = scripted.drive(NotStarted(exit=1, messages=["Error occurred during initialization of VM"], rank=1))
    assert code == 1 and capsys.readouterr().err.splitlines() == [
        "jiobench: error: rank 1: Error occurred during initialization of VM"]


def test_a_later_fork_that_cannot_start_ends_the_run_as_a_failure_of_its_start(scripted, capsys):
    scripted.ready["parameters"]["forks"] = 2
    code, _ = scripted.drive(*scripted.started(), *scripted.measured(len(scripted.phases)), Finished(0, []), later={
        "2:0": [NotStarted(exit=1, messages=["Error occurred during initialization of VM"], rank=1)]})
    assert code == 1
    assert capsys.readouterr().err.splitlines() == [
        "jiobench: rank 1 failed during the start of calibrate fork 2: Error occurred during initialization of VM; "
        f"the run file keeps the {len(scripted.phases)} phases completed before"]
    assert scripted.run_file()["incomplete"]["phase"] == "the start of calibrate fork 2"


def test_a_file_replaced_between_forks_ends_the_run_and_is_neither_emptied_nor_removed(scripted, capsys, tmp_path):
    scripted.ready["parameters"]["forks"] = 2
    victim = tmp_path / "victim"
    victim.write_text("root's own")

    def replace_the_file(transport):
        scripted.test_file.unlink()
        scripted.test_file.symlink_to(victim)

    code, _ = scripted.drive(*scripted.started(), *scripted.measured(len(scripted.phases)), replace_the_file,
                             Finished(0, []), later={"2:0": [Finished(0, [])]})
    assert code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"jiobench: failed during the start of calibrate fork 2: {scripted.test_file} is now a symbolic link to "
        f"{victim}, not the file the run created (the run ends, and leaves it as it is); the run file keeps the "
        f"{len(scripted.phases)} phases completed before",
        f"jiobench: rank 0: {scripted.test_file} is now a symbolic link to {victim}, not the file the run created: "
        "left as it is"]
    assert victim.read_text() == "root's own" and scripted.test_file.is_symlink()


def test_a_later_jvm_is_told_what_the_files_its_rank_created_are(scripted):
    scripted.ready["parameters"]["forks"] = 2
    identity = wire.identity(scripted.test_file.stat())
    code, transport = scripted.drive(*scripted.started(), *scripted.measured(len(scripted.phases)), Finished(0, []),
                                     later={"2:0": [Finished(0, [])]})
    assert code == 0 and transport.tasks == [FIRST, f"2:0:{identity}"]


@pytest.mark.parametrize("facts, code", [
    ({"code": 0}, 0),
    ({"code": 2}, 2),
    ({"code": 0, "stop_signal": "SIGINT"}, 130),
    ({"code": 0, "stop_signal": "SIGUSR1"}, 143),  # how `jiobench run` passes a SIGTERM on
    ({"code": 0, "failed": True, "stop_signal": "SIGTERM"}, 1),  # the failure says more than the stop
    ({"code": -signal.SIGKILL}, 137),  # a launcher killed, as Popen gives its code
], ids=["done", "mistake", "stopped", "passed-on", "failed", "killed"])
def test_one_rule_decides_every_run_s_exit_code(facts, code):
    assert endings.run_exit_code(**facts) == code


@pytest.mark.parametrize("code, stop", [
    (143, signal.SIGTERM), (130, signal.SIGINT), (129, signal.SIGHUP),  # the runner ended its phase
    (-signal.SIGTERM, signal.SIGTERM),  # killed before its handler was in place
    (-signal.SIGUSR1, signal.SIGUSR1),  # srun passes the stop on to every process of the step
    (-signal.SIGKILL, None), (137, None), (-signal.SIGSEGV, None), (1, None), (0, None), (2, None),
], ids=["term", "int", "hup", "term-unhandled", "passed-on", "killed", "killed-wrapped", "crashed", "failed",
        "done", "mistake"])
def test_a_jvm_ended_by_a_stop_is_told_from_one_that_failed_as_it_was_asked(code, stop):
    """What a rank counts as its JVM's stop: a JVM that ended otherwise, a stop asked or not, is a
    failure of the run on every launch path."""
    assert endings.stopped_by(code) == stop
