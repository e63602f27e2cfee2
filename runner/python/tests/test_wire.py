"""The words on the wire (jiobench.run.wire) are the runner's (Wire.java): each side defines them
once, and here they are held to be the same."""
from __future__ import annotations

import re

from jiobench.paths import HOME
from jiobench.run import wire

WIRE_JAVA = (HOME / "runner" / "src" / "main" / "java" / "org" / "jiobench" / "runner" / "Wire.java").read_text()


def java_string(name: str) -> str:
    return re.search(rf'static final String {name} = "([^"]*)";', WIRE_JAVA).group(1)


def test_a_task_and_a_file_s_identity_are_spelled_alike():
    assert {name: getattr(wire, name) for name in ("TASK_FIRST", "TASK_SEPARATOR", "IDENTITY_SEPARATOR",
                                                   "DEVICE_INODE_SEPARATOR")} == {
        name: java_string(name) for name in ("TASK_FIRST", "TASK_SEPARATOR", "IDENTITY_SEPARATOR",
                                             "DEVICE_INODE_SEPARATOR")}
    # As Task.parse reads it (MainTest): fork, approach, each created file's device and inode.
    assert wire.task(1, 0, ["2049.17", "2049.18"]) == "1:0:2049.17+2049.18"
    assert wire.task(2, 5, []) == "2:5:"


def test_every_message_the_runner_builds_is_one_python_reads_and_no_other():
    built = set(re.findall(r'message\("([a-z-]+)"', WIRE_JAVA)) | set(re.findall(r'\\"type\\":\\"([a-z-]+)', WIRE_JAVA))
    assert built == {kind.value for kind in wire.Kind}


def test_the_answers_the_tag_and_the_control_variable_are_spelled_alike():
    assert {answer.name: answer.value for answer in wire.Answer} == {
        name: java_string(name) for name in ("START", "GO", "STOP")}
    assert java_string("MPJ_TAG") == wire.MPJ_TAG
    assert java_string("CONTROL_VARIABLE") == wire.CONTROL_VARIABLE


def test_a_marker_is_read_back_as_written_and_other_lines_are_none():
    assert wire.read_rank_up(wire.rank_up("3", "node2")) == (3, "node2")
    assert wire.read_rank_up(wire.rank_up(None, "node2")) is None
    assert wire.read_exit_code(wire.exit_code_line(130)) == 130
    assert wire.read_exit_code(b"jiobench: exit code 1\n") is None
    assert wire.mpj_message(wire.MPJ_TAG + '{"type": "ranks"}') == {"type": "ranks"}
    assert wire.mpj_message("MPJ Express (0.44) is started") is None
