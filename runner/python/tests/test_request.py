"""How each rank starts its JVM (jiobench.run.request): sized for its share of the node, its crash
report out of the working directory, the runner's class archive where it fits the java."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from testing import HOME, JIOBENCH
from jiobench.run import appcds, crashreports, request, wire
from jiobench.run.request import RunRequest

JAR = HOME / "runner" / "target" / "jiobench-runner.jar"


def asked(jvm_args=(), jvm_cpus=request.AUTO, java="java", jar="/nowhere/jiobench-runner.jar") -> RunRequest:
    return RunRequest(ranks=8, launcher="mpirun", launcher_args=(), jvm_args=tuple(jvm_args), java=java, jar=str(jar),
                      run_id=None, command_line=("jiobench", "run"), runner_args=("-a", "calibrate"),
                      jvm_cpus=jvm_cpus)


def own(command: list[str]) -> list[str]:
    """jiobench's options in a JVM command, as the runner takes them apart (Environment.ownOptions)."""
    counted = [arg for arg in command if arg.startswith(f"-D{wire.OWN_OPTIONS_PROPERTY}=")]
    if not counted:
        return []
    at = command.index(counted[0])
    return command[at - int(counted[0].split("=")[1]):at]


@pytest.fixture
def cpus(monkeypatch):
    """A node of 16 processors for this process."""
    monkeypatch.setattr(request, "cpus_available", lambda: 16)


@pytest.mark.parametrize("ranks_on_node, processors", [(1, 16), (2, 8), (3, 5), (8, 2), (16, 2), (128, 2)])
def test_each_jvm_is_sized_for_its_share_of_the_node_and_never_below_two(cpus, ranks_on_node, processors):
    command = asked().jvm_command(ranks_on_node)
    assert f"-XX:ActiveProcessorCount={processors}" in own(command)
    assert asked().jvm_processors(ranks_on_node) == processors


def test_a_node_of_one_processor_keeps_the_jvm_s_own_count(monkeypatch):
    # HotSpot picks the Serial collector there in any case; a share of two would claim what is not.
    monkeypatch.setattr(request, "cpus_available", lambda: 1)
    assert "-XX:ActiveProcessorCount=1" in own(asked().jvm_command(4))


def test_until_the_rank_says_how_many_share_its_node_the_jvm_has_it_all(cpus):
    assert "-XX:ActiveProcessorCount=16" in asked().jvm_command()


def test_jvm_cpus_sets_the_count_or_leaves_it_to_the_jvm(cpus):
    assert "-XX:ActiveProcessorCount=6" in own(asked(jvm_cpus=6).jvm_command(8))
    left = asked(jvm_cpus=request.ALL)
    assert not any(arg.startswith("-XX:ActiveProcessorCount") for arg in left.jvm_command(8))
    assert left.jvm_processors(8) == 16


def test_the_user_s_own_jvm_options_win(cpus):
    mine = asked(["-XX:ActiveProcessorCount=3", "-XX:ErrorFile=/mine/hs_err_%p.log", "-Xmx1g"], jvm_cpus=6)
    command = mine.jvm_command(8)
    assert not any(arg.startswith(("-XX:ActiveProcessorCount", "-XX:ErrorFile")) for arg in own(command))
    assert mine.jvm_processors(8) == 3
    # jiobench's before the user's, which HotSpot reads last; the jar and the runner's options after.
    assert command[command.index("-jar") - 3:command.index("-jar")] == list(mine.jvm_args)
    assert command[command.index("-jar"):] == ["-jar", mine.jar, "-a", "calibrate"]


def test_a_crash_report_goes_to_a_directory_of_the_rank_s_own_never_to_a_name_another_user_can_guess(
        cpus, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(crashreports.tempfile, "tempdir", None)
    reports = Path(crashreports.new_directory())
    other = Path(crashreports.new_directory())
    assert reports.parent == tmp_path and reports != other
    assert reports.name.startswith("jiobench-crash-reports-")
    assert stat.S_IMODE(reports.stat().st_mode) == 0o700 and reports.stat().st_uid == os.getuid()
    assert {f"-XX:ErrorFile={reports}/hs_err_pid%p.log", f"-XX:ReplayDataFile={reports}/replay_pid%p.log"} <= set(
        own(asked().jvm_command(8, str(reports))))
    assert not any(arg.startswith(("-XX:ErrorFile", "-XX:ReplayDataFile")) for arg in asked().jvm_command(8))
    crashreports.remove_if_empty(str(reports))
    (other / "hs_err_pid7.log").write_text("a crash")
    crashreports.remove_if_empty(str(other))
    assert not reports.exists() and (other / "hs_err_pid7.log").exists()


def test_the_request_travels_to_the_ranks_whole():
    for jvm_cpus in (request.AUTO, request.ALL, 6):
        sent = asked(["-Xmx1g"], jvm_cpus=jvm_cpus)
        assert RunRequest.from_json(sent.to_json()) == sent


@pytest.fixture
def archive(tmp_path):
    """A jar with an archive stamped as made for it by this machine's java."""
    if appcds.identity("java", tmp_path) is None:
        pytest.skip("needs a HotSpot java on PATH")
    jar = tmp_path / "jiobench-runner.jar"
    jar.write_bytes(b"jar")
    appcds.archive_of(jar).write_bytes(b"archive")
    appcds.stamp_of(jar).write_text(json.dumps(appcds.identity("java", jar)))
    return jar


def test_the_archive_is_used_by_the_java_that_made_it_for_the_jar_it_was_made_from(archive, cpus):
    assert own(asked(jar=archive).jvm_command(8))[-2:] == [f"-XX:SharedArchiveFile={archive.with_suffix('.jsa')}",
                                                           appcds.QUIET]
    archive.write_bytes(b"rebuilt")  # another size and time: HotSpot would refuse it, and lose even the JDK's
    assert not any("SharedArchiveFile" in arg for arg in asked(jar=archive).jvm_command(8))


def test_another_java_does_not_get_the_archive(archive, cpus, tmp_path):
    other = tmp_path / "bin" / "java"
    other.parent.mkdir()
    other.symlink_to(shutil.which("true"))
    assert not any("SharedArchiveFile" in arg for arg in asked(jar=archive, java=str(other)).jvm_command(8))


@pytest.mark.parametrize("jvm_args", [["-Xshare:off"], ["-XX:SharedArchiveFile=/mine.jsa"], ["-Xmx32g"], ["-Xmx64g"],
                                      ["-XX:-UseCompressedOops"], ["-XX:-UseCompressedClassPointers"]])
def test_an_archive_the_jvm_could_not_map_is_not_given(archive, cpus, jvm_args):
    # A JVM that could not map it would go without the JDK's default archive too.
    assert not any("SharedArchiveFile=" in arg and "/mine" not in arg
                   for arg in asked(jvm_args, jar=archive).jvm_command(8))
    assert appcds.jvm_options("java", archive, ["-Xmx31g"])


@pytest.mark.skipif(shutil.which("java") is None, reason="needs java")
def test_an_archive_the_jvm_refuses_leaves_the_rank_s_output_as_it_was(tmp_path):
    """HotSpot's words on an archive it cannot map (here one made from a jar since rebuilt) go to
    standard output, where the runner's own output is."""
    jar = tmp_path / "runner.jar"
    shutil.copy(JAR, jar)
    archive = tmp_path / "runner.jsa"
    subprocess.run(["java", f"-XX:ArchiveClassesAtExit={archive}", appcds.QUIET, "-jar", str(jar), "--version"],
                   check=True, capture_output=True)
    os.utime(jar, (0, 0))
    loud = subprocess.run(["java", f"-XX:SharedArchiveFile={archive}", "-jar", str(jar), "--version"],
                          capture_output=True, text=True)
    assert "Unable to use shared archive" in loud.stdout, loud  # what QUIET silences
    done = subprocess.run(["java", f"-XX:SharedArchiveFile={archive}", appcds.QUIET, "-jar", str(jar), "--version"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "" and done.stdout.startswith("jiobench ") \
        and len(done.stdout.splitlines()) == 1, done


@pytest.mark.runs
@pytest.mark.smoke
def test_the_run_file_says_how_the_jvm_was_sized_and_started(tmp_path):
    """environment.jvm: the user's options apart from jiobench's, the processors and threads the
    JVM had when it was ready, and whether it mapped the runner's class archive."""
    done = subprocess.run([str(JIOBENCH), "run", "-n", "2", "--jvm-cpus", "3", "--jvm-args=-Xmx256m", "--", "-a",
                           "calibrate", "-b", "64KiB", "-t", "16KiB", "-i", "1", "--warmup", "0", "-w",
                           "-o", str(tmp_path / "f.dat"), "--results", str(tmp_path / "results")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "shared archive" not in done.stdout + done.stderr
    jvm = json.loads(Path(done.stdout.strip().splitlines()[-1]).read_text())["environment"]["jvm"]
    assert jvm["args"] == ["-Xmx256m"]
    assert jvm["jiobench_args"][0] == "-XX:ActiveProcessorCount=3"
    reports = re.fullmatch(rf"-XX:ErrorFile=({re.escape(tempfile.gettempdir())}/jiobench-crash-reports-\w+)/"
                           "hs_err_pid%p.log", jvm["jiobench_args"][1])
    assert reports, jvm["jiobench_args"]
    assert not Path(reports.group(1)).exists(), "none crashed: none left"
    assert jvm["available_processors"] == 3
    assert 10 <= jvm["threads"] <= 40
    made = appcds.made_for("java", JAR)
    assert jvm["class_sharing"]["app"] is made
    assert jvm["class_sharing"]["archive"] == (str(appcds.archive_of(JAR).resolve()) if made else
                                               jvm["class_sharing"]["archive"])
    assert made == (f"-XX:SharedArchiveFile={appcds.archive_of(JAR)}" in jvm["jiobench_args"])
