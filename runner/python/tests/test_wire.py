"""Everything on the wire (jiobench.run.wire) is the runner's too (Wire.java): each side defines it
once, and here both sides run, the runner's through its WireSamples (in its test classes), and are
held to be the same: every constant, message type, message's fields, record field and exit code,
and each encoding Python writes read back by Java as Python meant it."""
from __future__ import annotations

import functools
import json
import signal
import subprocess

import pytest

from jiobench.exitcode import ExitCode
from jiobench.model import perrank
from jiobench.paths import HOME, JAR
from jiobench.run import endings, wire
from jiobench.run.placement import Placement
from jiobench.run.request import RunRequest

TEST_CLASSES = HOME / "runner" / "target" / "test-classes"
IDENTITIES = ["2049.17", "53.11138347957301173392"]
TASKS = [wire.TASK_FIRST, wire.task(1, 0, IDENTITIES), wire.task(2, 5, [])]
PLACEMENTS = [Placement.of_hosts(hosts) for hosts in (["a", "a", "b", "b"], ["a", "b", "a", "b"], ["a"] * 3 + ["b"],
                                                      ["n1"])]


@functools.cache
def java_side() -> dict:
    """What the runner's side says of itself, and what it read of Python's samples."""
    if not (TEST_CLASSES / "org" / "jiobench" / "runner" / "WireSamples.class").is_file():
        pytest.fail(f"the runner's test classes are not built ({TEST_CLASSES}): run 'make build'")
    samples = {
        "tasks": TASKS,
        "mpj_arguments": [[wire.task_option(task), "-a", "all"] for task in TASKS] + [["-a", "all"]],
        "controls": [wire.control(1, placement.size, wire.host_runs(placement.runs), 5, 6, task)
                     for placement, task in zip(PLACEMENTS, TASKS * 2)],
        "jvm_options": [own_and_user_options()],
    }
    done = subprocess.run(["java", "-cp", f"{TEST_CLASSES}:{JAR}", "org.jiobench.runner.WireSamples",
                           json.dumps(samples)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return {"samples": samples, **json.loads(done.stdout)}


def own_and_user_options() -> list[str]:
    """A JVM's options as the launcher writes them, the user's after jiobench's own."""
    request = RunRequest(ranks=1, launcher="mpirun", launcher_args=(), jvm_args=("-Xmx1g", "-Dx=y"), java="java",
                         jar="runner.jar", run_id=None, command_line=(), runner_args=(), jvm_cpus=2)
    command = request.jvm_command(1, "/tmp/reports")
    return command[1:command.index("-jar")]


def test_every_constant_of_the_runner_s_wire_is_python_s_alike():
    constants = java_side()["constants"]
    answers = {answer.name: answer.value for answer in wire.Answer}
    assert {name: answers[name] if name in answers else getattr(wire, name, None) for name in constants} == constants
    assert answers.keys() <= constants.keys()


def test_every_message_type_the_runner_builds_is_one_python_reads_and_no_other():
    assert java_side()["kinds"] == {kind.name: kind.value for kind in wire.Kind}


def test_each_message_the_runner_builds_has_the_fields_python_reads_and_no_other():
    built = {}
    for message in java_side()["messages"]:
        kind = wire.Kind(message["type"])
        fields = set(message) - {"type"}
        expected = set(wire.FIELDS[kind])
        assert expected - set(wire.OPTIONAL_FIELDS.get(kind, ())) <= fields <= expected, message
        built[kind] = built.get(kind, set()) | fields
    assert set(built) == set(wire.Kind), "a message of every type is built"


def test_a_rank_s_record_has_the_fields_python_reads_and_the_per_rank_file_keeps_them_all():
    (phase,) = [message for message in java_side()["messages"] if message["type"] == wire.Kind.PHASE
                and "block_read" in message]
    (record,) = phase["records"]
    assert tuple(record) == wire.RECORD_FIELDS
    assert set(perrank.NAMES) == {*wire.RECORD_FIELDS, "host"}, "every column, and every field but the times kept"
    assert set(wire.LAUNCHER_RECORD_FIELDS) - set(perrank.NAMES) == set(perrank.KEPT_IN_THE_PHASES)


def test_a_record_field_the_per_rank_file_does_not_know_is_an_error_not_a_silent_drop():
    record = dict.fromkeys(perrank.NAMES, None) | {"approach": "c-posix", "op": "write", "stalled_ms": 0.5}
    with pytest.raises(KeyError, match="stalled_ms"):
        perrank.table([record])


def test_the_exit_codes_are_python_s_and_a_stop_s_code_is_decided_alike():
    side = java_side()
    assert {name: ExitCode[name].value for name in side["exit_codes"]} == side["exit_codes"]
    assert {name: endings.signal_exit_code(name) for name in side["stopped"]} == side["stopped"]
    assert side["stopped"]["SIGTERM"] == 128 + signal.SIGTERM


def test_tasks_read_as_python_writes_them_under_either_launcher():
    side = java_side()
    expected = [{"first": True, "fork": 1, "approach_index": 0, "created": []},
                {"first": False, "fork": 1, "approach_index": 0, "created": sorted(IDENTITIES)},
                {"first": False, "fork": 2, "approach_index": 5, "created": []}]
    assert side["tasks"] == expected
    assert side["mpj_tasks"] == [*expected, None]


def test_the_control_variable_reads_as_python_writes_it_each_rank_on_its_host():
    side = java_side()
    for placement, control, task in zip(PLACEMENTS, side["controls"], side["tasks"] * 2):
        hosts = [placement.names.index(host) for host in placement]
        assert control == {"rank": 1, "size": placement.size, "host_of_rank": hosts, "reply_fd": 5, "message_fd": 6,
                           "task": task}


def test_jiobench_s_own_jvm_options_are_told_apart_from_the_user_s():
    (options,) = java_side()["samples"]["jvm_options"]
    ((own, users),) = java_side()["own_options"]
    assert users == ["-Xmx1g", "-Dx=y"]
    assert own + [wire.own_options_count(len(own))] + users == options and own, options


def test_identities_the_runner_writes_read_back_as_stat_gives_them():
    (created,) = [message for message in java_side()["messages"] if message["type"] == wire.Kind.CREATED]
    (identity,) = created["files"].values()
    assert wire.read_identity(identity) == (2049, 2 ** 64 - 1)


def test_a_marker_is_read_back_as_written_and_other_lines_are_none():
    assert wire.read_rank_up(wire.rank_up("3", "node2")) == (3, "node2")
    assert wire.read_rank_up(wire.rank_up(None, "node2")) is None
    assert wire.read_exit_code(wire.exit_code_line(130)) == 130
    assert wire.read_exit_code(b"jiobench: exit code 1\n") is None
    assert wire.mpj_message(wire.MPJ_TAG + '{"type": "ranks"}') == {"type": "ranks"}
    assert wire.mpj_message("MPJ Express (0.44) is started") is None
