"""Every way a run ends, through the driver (jiobench.run.driver) over a transport that yields
scripted events: the exit code, the lines said and the files left, whichever way the ranks start."""
from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Callable, Optional, Union

import pytest

from jiobench.model import perrank, reduce
from jiobench.run import collect, driver, endings
from jiobench.run.driver import FIRST, Driver
from jiobench.run.processes import PASSED_ON_STOP, STOP_NOTE_VARIABLE, STOP_SIGNALS
from jiobench.run.request import RunRequest
from jiobench.run.startup import StartDeadline
from jiobench.run.transport import (Agreed, Ended, Finished, NotStarted, PhaseRecords, PhaseReduced, Ready, Started,
                                    StartLate, TaskEvent, TaskEvents)

GIB = 2 ** 30
HOSTS = ["a", "b"]
READ = "raw-bytes read rep 0"
# A step of a script: an event, or a function of the transport (the driver's answers so far, the
# task's start deadline) that gives one, or None where it is something that happens between two.
Step = Union[TaskEvent, Callable[["ScriptedTransport"], Optional[TaskEvent]]]


class ScriptedTransport:
    """The ranks of a run as a transport tells of them, each task a script of events. It keeps the
    driver's answers, and the stops it was asked to pass on."""

    def __init__(self, scripts: dict[str, list[Step]], rank: int = 0):
        self.scripts = scripts
        self.hosts = HOSTS
        self.checks_every_rank = rank == 0
        self.writes_as: Optional[int] = 0 if rank == 0 else None
        self.whose_files = f"rank {rank}"
        self.answers: list = []
        self.stops: list[str] = []
        self.deadline: Optional[StartDeadline] = None

    def task(self, task: str, label: str, unable: Optional[str], deadline: StartDeadline) -> TaskEvents:
        self.deadline = deadline
        for step in self.scripts[task]:
            event = step(self) if callable(step) else step
            if event is not None:
                self.answers.append((yield event))

    def agree(self, value) -> Agreed:
        return Agreed(value)

    def stop(self, signal_name: str) -> None:
        self.stops.append(signal_name)

    def mpi(self) -> dict:
        return {"library": "a scripted MPI", "standard": "3.1"}

    def loads(self) -> dict:
        return {host: [0.0, 0.0, 0.0] for host in HOSTS}


@pytest.fixture(autouse=True)
def signals_as_they_were(monkeypatch):
    """The driver takes the stop signals over: the test process gets its own handlers back."""
    monkeypatch.delenv(STOP_NOTE_VARIABLE, raising=False)
    handlers = {number: signal.getsignal(number) for number in (*STOP_SIGNALS, PASSED_ON_STOP)}
    yield
    for number, handler in handlers.items():
        signal.signal(number, handler)


def request(**fields) -> RunRequest:
    return RunRequest(**{"ranks": 2, "launcher": "mpirun", "launcher_args": (), "jvm_args": (), "java": "java",
                         "jar": "/j.jar", "run_id": None, "command_line": ("jiobench", "run", "-n", "2"),
                         "runner_args": (), **fields})


def ready_message(tmp_path: Path, forks: int = 0) -> dict:
    """What a JVM says once it is up, as the runner says it (LauncherWorld.ready): its test file,
    created, and the run's results directory under tmp_path."""
    test_file = tmp_path / "f.dat"
    test_file.write_bytes(b"\0" * 1024)
    parameters = {
        "approaches": ["raw-bytes"], "block_size": 1 << 20, "transfer_size": 1 << 16, "segments": 1,
        "file_per_process": False, "file": str(test_file), "write": True, "read": True, "repetitions": 1,
        "warmup": 0, "forks": forks, "fsync": False, "drop_cache": False, "deadline_s": None, "wear_out": False,
        "reorder": False, "reorder_offset": None, "read_block_of": None, "stripe_count": None, "stripe_size": None,
        "object_size": None, "stripe_ignore": False, "type": "int", "order": "sequential", "verify": False, "seed": 1,
        "keep": False, "overwrite": False, "results": str(tmp_path / "results"), "byte_order": "big",
        "direct": False, "buffer_size": 8192, "calibrate_rate": 268435456, "approach_options": {}}
    environment = {
        "jvm": {"name": "OpenJDK 64-Bit Server VM", "vendor": "Debian", "version": "17.0.15", "args": [],
                "jiobench_args": [], "available_processors": 2, "threads": 19,
                "heap": {"collector": "G1", "max_bytes": 4 * GIB, "region_bytes": 4 << 20,
                         "transfer_array_bytes": 1 << 16, "transfer_array_humongous": False}},
        "os": "Linux", "filesystem": {"path": str(tmp_path), "type": "ext4"}, "cpu": {"model": "x", "count": 2},
        "plan_memory_bytes": 1 << 20}
    return {"type": "ready", "parameters": parameters, "environment": environment, "created": [str(test_file)]}


def records(op: str) -> list[dict]:
    """Both ranks' records of one phase, as the runner sends them (RankRecord)."""
    return [{"approach": "raw-bytes", "op": op, "fork": 0, "rep": 0, "warmup": False, "rank": rank, "host": HOSTS[rank],
             "bytes": 1 << 20, "transfers": 16, "open_s": 0.001, "transfer_s": 0.1, "close_s": 0.001,
             "elapsed_s": 0.102, "bookkeeping_s": 0.0001, "stonewalled": False, "stonewall_bytes": None,
             "stonewall_s": None, "verified": None, "error": None, "array_page_offset": 0, "array_copy_crawls": False}
            for rank in range(2)]


def up(ready: dict, memory: Optional[list] = None) -> list[Step]:
    """Every rank's JVM up and started: what every script begins with."""
    return [Ready(ready, memory=memory or [(1 << 20, 8 * GIB)] * 2), Started(ready, "scripted")]


def run(capsys, transport: ScriptedTransport, **fields) -> tuple[int, list[str], list[str]]:
    """The driver's exit code and the lines it said: on standard output, on standard error."""
    code = Driver(request(**fields), transport).run()
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def run_file(tmp_path: Path) -> dict:
    (path,) = (tmp_path / "results").glob("*.json")
    return json.loads(path.read_text())


def test_a_clean_run_writes_its_run_file_and_exits_0(tmp_path, capsys):
    ready = ready_message(tmp_path)
    transport = ScriptedTransport({FIRST: [*up(ready), PhaseRecords(records("write")), PhaseRecords(records("read")),
                                           Finished(0, [])]})
    code, out, err = run(capsys, transport)
    assert (code, err) == (0, [])
    assert out[0].startswith("jiobench: 2 ranks via mpirun"), out
    assert out[-1] == str(tmp_path / "results" / "scripted.json")
    run_ = run_file(tmp_path)
    assert run_["incomplete"] is None and [phase["op"] for phase in run_["phases"]] == ["write", "read"]
    assert run_["writer"]["rank"] == 0 and run_["environment"]["ranks_per_host"] == {"a": 1, "b": 1}
    assert run_["per_rank_file"] == "scripted" + perrank.SUFFIX and (tmp_path / "results" / run_["per_rank_file"]).exists()
    # The driver's answers: no refusal, then each phase reduced.
    assert transport.answers[0] is None and transport.answers[2]["op"] == "write"
    assert not (tmp_path / "f.dat").exists(), "what the run created goes"


def test_a_stop_by_signal_keeps_the_phases_completed_and_exits_128_plus_the_signal(tmp_path, capsys):
    ready = ready_message(tmp_path)
    transport = ScriptedTransport({FIRST: [
        *up(ready), PhaseRecords(records("write")), lambda _: signal.raise_signal(signal.SIGTERM),
        Ended(collect.stop("SIGTERM", f"stopped by SIGTERM during {READ}", 0, READ))]})
    code, out, err = run(capsys, transport)
    assert code == 128 + signal.SIGTERM
    assert transport.stops == ["SIGTERM"], "the stop is passed on to the JVMs"
    assert err == [f"jiobench: stopped by SIGTERM during {READ}; the run file keeps the 1 phase completed before"]
    incomplete = run_file(tmp_path)["incomplete"]
    assert (incomplete["reason"], incomplete["signal"], incomplete["phase"]) == ("stopped", "SIGTERM", READ)
    assert out[-1].endswith(".json") and not (tmp_path / "f.dat").exists()


def test_a_stop_before_any_phase_writes_no_run_file(tmp_path, capsys):
    ready = ready_message(tmp_path)
    transport = ScriptedTransport({FIRST: [
        lambda _: signal.raise_signal(signal.SIGINT),
        Ended(collect.stop("SIGINT", "stopped by SIGINT"), created=ready["created"])]})
    code, out, err = run(capsys, transport)
    assert (code, out) == (128 + signal.SIGINT, [])
    assert err == ["jiobench: stopped by SIGINT before any phase; no run file was written"]
    assert not (tmp_path / "results").exists() and not (tmp_path / "f.dat").exists()


def test_a_failed_rank_ends_the_run_naming_it_and_its_phase_and_exits_1(tmp_path, capsys):
    ready = ready_message(tmp_path)
    transport = ScriptedTransport({FIRST: [*up(ready), PhaseRecords(records("write")),
                                           Ended(collect.failure("No space left on device", 1, READ))]})
    code, out, err = run(capsys, transport)
    assert code == 1
    assert err == [f"jiobench: rank 1 failed during {READ}: No space left on device; the run file keeps the 1 phase "
                   "completed before"]
    incomplete = run_file(tmp_path)["incomplete"]
    assert (incomplete["reason"], incomplete["rank"], incomplete["signal"]) == ("failed", 1, None)
    assert not (tmp_path / "f.dat").exists()


def test_a_rank_that_survives_lost_rank_0_writes_the_run_file_from_the_phases_it_was_told(tmp_path, capsys,
                                                                                          monkeypatch):
    monkeypatch.setattr(driver, "RANK_0_FIRST_SECONDS", 0)
    ready = ready_message(tmp_path)
    transport = ScriptedTransport({}, rank=1)
    lost = collect.failure(f"rank 0 on a stopped answering for 10 s during {READ} (a node lost, or its launcher "
                           "killed)", phase=READ)

    def rank_0_lost(_):
        transport.writes_as = 1  # as MpiRanks picks a survivor on a node none of the lost ranks was on

    transport.scripts[FIRST] = [*up(ready), PhaseReduced(reduce.reduce_phase(records("write"), None)), rank_0_lost,
                                Ended(lost)]
    code, out, err = run(capsys, transport)
    assert code == 1
    assert out[0] == "", "no header nor progress line: what rank 0 printed stands; then the summary"
    assert out[-1] == str(tmp_path / "results" / "scripted.json")
    assert err == [f"jiobench: {lost['message']}; the run file keeps the 1 phase completed before"]
    run_ = run_file(tmp_path)
    assert run_["writer"]["rank"] == 1 and run_["per_rank_file"] is None
    assert any("rank 0, which was lost" in warning for warning in run_["warnings"]), run_["warnings"]
    assert not (tmp_path / "f.dat").exists()


def test_a_refused_run_says_why_once_writes_nothing_and_exits_2(tmp_path, capsys):
    ready = ready_message(tmp_path)
    more_than_a_has = [(5 * GIB, 4 * GIB), (GIB, 4 * GIB)]

    transport = ScriptedTransport({FIRST: [
        Ready(ready, memory=more_than_a_has),
        # As both transports answer a refusal: the JVMs are ended, and the refusal is why they did not start.
        lambda transport: NotStarted(exit=2, messages=[transport.answers[-1]], created=ready["created"])]})
    code, out, err = run(capsys, transport)
    assert (code, out) == (2, [])
    assert len(err) == 1 and err[0].startswith("jiobench: error: 1 ranks on a need about 5.1 GiB"), err
    assert not (tmp_path / "results").exists() and not (tmp_path / "f.dat").exists()


def wait_out_the_deadline(transport: ScriptedTransport) -> None:
    while not transport.deadline.passed():
        time.sleep(0.01)


def test_a_start_past_the_deadline_is_said_once_naming_the_late_ranks_and_exits_1(tmp_path, capsys):
    ready = ready_message(tmp_path)
    transport = ScriptedTransport({FIRST: [
        wait_out_the_deadline, StartLate("rank 1 on b", "not ready", "waiting\nfor a lock", rank=1,
                                         created=ready["created"])]})
    started = time.monotonic()
    code, out, err = run(capsys, transport, start_timeout=0.25)
    assert time.monotonic() - started >= 0.25
    assert (code, out) == (1, [])
    assert err == ["jiobench: error: rank 1 on b not ready within --start-timeout 0.25 s; its JVM printed: waiting "
                   "for a lock"]
    assert not (tmp_path / "results").exists() and not (tmp_path / "f.dat").exists()


def test_jvms_that_did_not_start_are_said_once_each_in_the_runner_s_words_and_their_code_is_the_run_s(capsys):
    transport = ScriptedTransport({FIRST: [NotStarted(exit=2, messages=[
        "jiobench: rank 0: -b 1MiB is not a multiple of -t 3MiB", "Error occurred during initialization of VM"])]})
    code, out, err = run(capsys, transport)
    assert (code, out) == (2, [])
    assert err == ["jiobench: rank 0: -b 1MiB is not a multiple of -t 3MiB",
                   "jiobench: error: Error occurred during initialization of VM"]


def test_a_later_fork_that_cannot_start_ends_the_run_as_a_failure_of_its_start(tmp_path, capsys):
    ready = ready_message(tmp_path, forks=2)
    transport = ScriptedTransport({
        FIRST: [*up(ready), PhaseRecords(records("write")), PhaseRecords(records("read")), Finished(0, [])],
        "2:0": [NotStarted(exit=1, messages=["Error occurred during initialization of VM"], rank=1)]})
    code, out, err = run(capsys, transport)
    assert code == 1
    assert err == ["jiobench: rank 1 failed during the start of raw-bytes fork 2: Error occurred during "
                   "initialization of VM; the run file keeps the 2 phases completed before"]
    incomplete = run_file(tmp_path)["incomplete"]
    assert (incomplete["reason"], incomplete["phase"]) == ("failed", "the start of raw-bytes fork 2")


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
