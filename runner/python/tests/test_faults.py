"""Faults with real processes: signals, a killed JVM, a killed mpirun, a full file system, a
full results directory, two runs on one file, a file truncated or removed under the run. Each
ends with the exit code and the message a user needs (rank and phase named), leaves no process
of the run behind, and keeps the phases completed before in the run file."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

import pytest

from testing import (EVERY_LAUNCH_PATH, JIOBENCH, KILLED_LAUNCHER_AFTER, KILLED_LAUNCHER_RUN, phases_kept_after_a_lost_rank,
                     records, wait_for_first_phase_of_next_jvms, wait_until_dead)
from jiobench.model import perrank, reduce
from jiobench.run import collect
from jiobench.run.progress import Silent

pytestmark = pytest.mark.runs


class Job:
    """`jiobench run` in the background, its output read as it comes, its processes known."""

    def __init__(self, tmp_path: Path, *args: str, ranks: int = 2, results: Path = None, launcher: str = "mpirun",
                 env: dict = None, own: tuple[str, ...] = ()):
        self.results = results or tmp_path / "results"
        self.process = subprocess.Popen([str(JIOBENCH), "run", "-n", str(ranks), f"--launcher={launcher}", *own, "--",
                                         *args,
                                         "--results", str(self.results)], cwd=tmp_path, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True)
        self.reader.start()
        self.seen: set[int] = set()

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            assert self.process.poll() is None, f"ended before '{text}': {self.process.stderr.read()}"
            assert time.monotonic() < deadline, f"no '{text}' in {self.lines}"
            time.sleep(0.05)
        self.note_members()

    def children(self) -> list[int]:
        return [int(pid) for pid in subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.process.pid)],
                                                   capture_output=True, text=True).stdout.split()]

    def members(self) -> list[int]:
        """Processes of the run: jiobench run's children (the MPI launcher, the guardian) and
        everything in their sessions."""
        found = []
        for child in self.children():
            found += subprocess.run(["ps", "-o", "pid=", "--sid", str(child)], capture_output=True,
                                    text=True).stdout.split()
        return [int(pid) for pid in found]

    def note_members(self) -> None:
        self.seen.update(self.members())

    def wait_for_first_phase_of_next_jvms(self, test_file: Path) -> None:
        wait_for_first_phase_of_next_jvms(test_file, lambda: len(self.jvms()) == 2)

    def jvms(self) -> list[int]:
        return [pid for pid in self.members()
                if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"java")]

    def finish(self, timeout: float = 60) -> tuple[int, str, float]:
        started = time.monotonic()
        self.process.wait(timeout=timeout)
        self.reader.join(timeout=5)
        return self.process.returncode, self.process.stderr.read(), time.monotonic() - started

    def assert_nothing_left(self) -> None:
        alive = [pid for pid in self.seen if Path(f"/proc/{pid}").exists()
                 and "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]]
        assert not alive, f"left running: {alive}"

    def run_file(self) -> dict:
        (path,) = self.results.glob("*.json")
        return json.loads(path.read_text())

    def records(self) -> list[dict]:
        (path,) = self.results.glob("*.json")
        return records(path)


SLOW = ["-a", "raw-bytes,data-stream", "-b", "16MiB", "-t", "1MiB", "-i", "1"]
RAW_BYTES_DONE = "raw-bytes              read  fork 1 rep 1"
DATA_STREAM_WRITE = "data-stream write fork 1 rep 0 (warm-up)"


@pytest.mark.parametrize("name", [pytest.param("SIGTERM", marks=pytest.mark.smoke), "SIGINT", "SIGHUP"])
def test_a_signal_stops_every_rank_and_keeps_the_completed_phases(tmp_path, name):
    job = Job(tmp_path, *SLOW, "-o", str(tmp_path / "f.dat"))
    job.wait_for(RAW_BYTES_DONE)
    job.wait_for_first_phase_of_next_jvms(tmp_path / "f.dat")
    job.note_members()
    assert len(job.jvms()) == 2
    job.process.send_signal(signal.Signals[name])
    code, stderr, seconds = job.finish()
    assert code == 128 + signal.Signals[name], stderr
    assert seconds < 10, f"stopped after {seconds:.1f} s"
    assert f"stopped by {name} during {DATA_STREAM_WRITE}; the run file keeps the 4 phases completed before" \
        in stderr, stderr
    run = job.run_file()
    assert run["incomplete"]["reason"] == "stopped" and run["incomplete"]["signal"] == name
    assert [(p["approach"], p["op"]) for p in run["phases"]] == [("raw-bytes", "write"), ("raw-bytes", "read")] * 2
    records = job.records()
    assert list(dict.fromkeys(map(reduce.phase_key, records))) == [reduce.phase_key(p) for p in run["phases"]], \
        "the per-rank file holds the phases the JSON lists, no more"
    assert len(records) == run["per_rank_rows"] == 2 * 4
    assert not (tmp_path / "f.dat").exists(), "the file the run created is removed"
    job.assert_nothing_left()


def test_a_signal_the_moment_the_launcher_starts_stops_it_and_every_rank(tmp_path):
    """SIGTERM as soon as jiobench run has a child: the launcher's session, which no signal to
    jiobench run reaches by itself, is stopped with it."""
    job = Job(tmp_path, *SLOW, "-o", str(tmp_path / "f.dat"))
    deadline = time.monotonic() + 30

    def launcher_started() -> bool:  # not bin/jiobench's children before its exec, nor the MPI's version probe
        for child in subprocess.run(["ps", "-o", "pid=", "--ppid", str(job.process.pid)], capture_output=True,
                                    text=True).stdout.split():
            try:
                if b"jiobench.run.rank" in Path(f"/proc/{child}/cmdline").read_bytes():
                    return True
            except OSError:
                pass
        return False

    while not launcher_started():
        assert time.monotonic() < deadline and job.process.poll() is None, "no launcher started"
        time.sleep(0.002)
    job.process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    while time.monotonic() < signalled + 15 and job.process.poll() is None:
        job.note_members()  # what the launcher started before the stop reached it
        time.sleep(0.05)
    code, stderr, _ = job.finish()
    # The ranks read the stop from jiobench run's note: no waiting for its escalation at 10 s.
    assert time.monotonic() - signalled < 5, f"stopped after {time.monotonic() - signalled:.1f} s"
    assert code == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr, stderr
    assert stderr.splitlines().count("jiobench: stopped by SIGTERM before any phase; no run file was written") == 1, \
        stderr
    job.assert_nothing_left()
    assert not (tmp_path / "f.dat").exists()


def test_a_signal_in_the_first_seconds_removes_the_file_the_run_created(tmp_path):
    """Ctrl-C while the ranks start: after a JVM created the test file and before every rank is
    ready, the file goes with the run (it was left 8 times in 8, and the next run refused it)."""
    for delay in (0.0, 0.05, 0.2):  # after the file appears
        job = Job(tmp_path, *SLOW, "-o", str(tmp_path / "f.dat"))
        while not (tmp_path / "f.dat").exists():
            assert job.process.poll() is None, job.process.stderr.read()
            time.sleep(0.002)
        time.sleep(delay)
        job.note_members()
        job.process.send_signal(signal.SIGINT)
        code, stderr, _ = job.finish()
        assert code == 128 + signal.SIGINT, stderr
        assert "Traceback" not in stderr, stderr
        assert not (tmp_path / "f.dat").exists(), f"the file the run created is left after a stop at {delay} s: {stderr}"
        job.assert_nothing_left()
        for run_file in job.results.glob("*"):
            run_file.unlink()


def test_a_kill_9_of_jiobench_run_ends_the_run_as_a_stop_does(tmp_path):
    """`jiobench run` killed outright (kill -9, the OOM killer) cannot pass a stop on: its
    guardian does, so the ranks end their phase, write the run file and remove the test file,
    and nothing of the run, nor its notes, outlives it."""
    notes = tmp_path / "tmp"
    notes.mkdir()
    job = Job(tmp_path, *SLOW, "-o", str(tmp_path / "f.dat"), env=dict(os.environ, TMPDIR=str(notes)))
    job.wait_for(RAW_BYTES_DONE)
    job.wait_for_first_phase_of_next_jvms(tmp_path / "f.dat")
    job.note_members()
    assert len(job.jvms()) == 2
    job.process.kill()
    job.finish()
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{pid}").exists() for pid in job.seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    job.assert_nothing_left()
    run = job.run_file()
    assert run["incomplete"]["reason"] == "stopped" and run["incomplete"]["signal"] == "SIGKILL", run["incomplete"]
    assert len(run["phases"]) == 4
    assert not (tmp_path / "f.dat").exists()
    assert list(notes.iterdir()) == [], "the run's notes are removed"


@pytest.mark.parametrize("launcher", EVERY_LAUNCH_PATH)
def test_bytes_that_are_not_utf8_in_a_jvm_s_output_are_passed_on(tmp_path, launcher):
    """A JVM's output is relayed as bytes: a byte that is no UTF-8 once stopped the relay, the
    JVM then blocked on a full pipe and the run waited out its start-up deadline; under MPJ
    Express it ended the reader of the job's output, and the run waited for good."""
    env = dict(os.environ, JAVA_TOOL_OPTIONS="-Dx=\udcff -Xlog:gc*=trace:stderr")
    done = subprocess.run([str(JIOBENCH), "run", "-n", "2", "--start-timeout", "30", f"--launcher={launcher}", "--",
                           "-a", "raw-bytes", "-b", "4MiB", "-t", "1MiB", "-i", "1", "-o", str(tmp_path / "f.dat"), "--results", str(tmp_path / "results")],
                          env={key: os.fsencode(value) for key, value in env.items()}, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert b"Traceback" not in done.stderr, done.stderr[-2000:]
    assert b"-Dx=\xff" in done.stderr, "the JVM's own line is passed on, byte for byte"
    assert not (tmp_path / "f.dat").exists()


def test_a_java_wrapper_that_ignores_stops_is_ended_at_the_start_timeout(tmp_path):
    """A wrapper that ignores signals and waits in a child of its own: the whole group of the
    JVM is ended at --start-timeout, not its leader alone (its child held the output open for
    half a minute)."""
    java = tmp_path / "java"
    java.write_text('#!/bin/sh\ntrap "" TERM INT HUP USR1\necho waiting\nsleep 600\n')
    java.chmod(0o755)
    started = time.monotonic()
    job = Job(tmp_path, "-a", "c-posix", "-b", "1MiB", "-o", str(tmp_path / "f.dat"),
              env=dict(os.environ, JIOBENCH_JAVA=str(java)), own=["--start-timeout", "5"])
    job.note_members()
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    assert time.monotonic() - started < 15, f"answered after {time.monotonic() - started:.1f} s: {stderr}"
    assert "not ready within --start-timeout 5 s; its JVM printed: waiting" in stderr, stderr
    job.assert_nothing_left()


@pytest.mark.parametrize("then_stopped", [False, True], ids=["", "then-stopped"])
def test_a_killed_jvm_ends_the_run_naming_its_rank_and_phase(tmp_path, then_stopped):
    """then-stopped: `jiobench run` stopped once the JVM is gone, before its rank may have seen it:
    the failure says more than the stop, as under MPJ Express (test_mpj) and srun (test_slurm)."""
    job = Job(tmp_path, *SLOW, "-D", "3", "-o", str(tmp_path / "f.dat"))
    job.wait_for(RAW_BYTES_DONE)
    job.wait_for_first_phase_of_next_jvms(tmp_path / "f.dat")
    job.note_members()
    victim = job.jvms()[-1]
    rank = control_rank(victim)
    os.kill(victim, signal.SIGKILL)
    if then_stopped:
        wait_until_dead(victim)
        job.process.send_signal(signal.SIGTERM)
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    assert f"rank {rank} failed during {DATA_STREAM_WRITE}: the JVM was killed by SIGKILL" in stderr, stderr
    run = job.run_file()
    assert run["incomplete"] == {"reason": "failed", "signal": None, "rank": rank, "phase": DATA_STREAM_WRITE,
                                 "when": "during", "message": "the JVM was killed by SIGKILL"}
    assert len(run["phases"]) == 4
    assert not (tmp_path / "f.dat").exists()
    job.assert_nothing_left()


def test_a_crashed_jvm_s_report_goes_to_a_directory_of_its_rank_s_own_never_through_a_planted_link(tmp_path):
    job = Job(tmp_path, *SLOW, "-D", "3", "-o", str(tmp_path / "f.dat"))
    job.wait_for(RAW_BYTES_DONE)
    job.wait_for_first_phase_of_next_jvms(tmp_path / "f.dat")
    jvm = job.jvms()[-1]
    (error_file,) = [arg[len(b"-XX:ErrorFile="):].decode() for arg in Path(f"/proc/{jvm}/cmdline").read_bytes().split(b"\0")
                     if arg.startswith(b"-XX:ErrorFile=")]
    reports = Path(error_file).parent
    assert reports.parent == Path(tempfile.gettempdir()) and reports.name.startswith("jiobench-")
    assert stat.S_IMODE(reports.stat().st_mode) == 0o700
    # Where another user of the temporary directory would expect a crash report, a link to a file of root's.
    victim = tmp_path / "victim"
    victim.write_text("root's own")
    planted = Path(tempfile.gettempdir(), f"jiobench-hs_err_pid{jvm}.log")
    planted.symlink_to(victim)
    try:
        os.kill(jvm, signal.SIGSEGV)
        code, stderr, _ = job.finish()
    finally:
        planted.unlink()
    try:
        assert code == 1, stderr
        assert victim.read_text() == "root's own"
        report = reports / f"hs_err_pid{jvm}.log"
        assert report.is_file() and not report.is_symlink(), stderr
        assert str(report) in "".join(job.lines) + stderr, "the rank passes on where the JVM said its report is"
    finally:
        shutil.rmtree(reports, ignore_errors=True)
    job.assert_nothing_left()


def test_a_killed_jvm_ends_the_other_ranks_phase_at_once(tmp_path):
    """Not at the phase's deadline: on a cluster that is minutes of an allocation."""
    job = Job(tmp_path, "-a", "raw-bytes,data-stream", "-b", "64MiB", "-t", "1MiB", "-i", "1", "-D", "60",
              "-o", str(tmp_path / "f.dat"))
    job.wait_for(RAW_BYTES_DONE, timeout=120)
    job.wait_for_first_phase_of_next_jvms(tmp_path / "f.dat")
    job.note_members()
    (victim,) = [pid for pid in job.jvms() if control_rank(pid) == 1]
    os.kill(victim, signal.SIGKILL)
    killed = time.monotonic()
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    assert time.monotonic() - killed < 10, stderr
    assert f"rank 1 failed during {DATA_STREAM_WRITE}: the JVM was killed by SIGKILL" in stderr, stderr
    assert job.run_file()["incomplete"]["rank"] == 1
    job.assert_nothing_left()


def control_rank(pid: int) -> int:
    """The rank of a runner JVM, from what its launcher passed it."""
    environment = dict(item.split("=", 1) for item in Path(f"/proc/{pid}/environ").read_bytes().decode().split("\0")
                       if "=" in item)
    return int(environment["JIOBENCH_CONTROL"].split(",")[0])


def test_a_killed_mpirun_leaves_the_ranks_to_end_the_run_on_their_own(tmp_path):
    job = Job(tmp_path, *SLOW, "-o", str(tmp_path / "f.dat"))
    job.wait_for(RAW_BYTES_DONE)
    job.wait_for_first_phase_of_next_jvms(tmp_path / "f.dat")
    job.note_members()
    (mpirun,) = [pid for pid in job.children() if b"jiobench.run.guardian" not in Path(f"/proc/{pid}/cmdline").read_bytes()]
    os.kill(mpirun, signal.SIGKILL)
    code, stderr, _ = job.finish()
    assert code == 128 + signal.SIGKILL and "mpirun was killed by SIGKILL" in stderr, stderr
    run = job.run_file()
    assert run["incomplete"]["message"] == "the MPI launcher ended before the run did" and len(run["phases"]) == 4
    assert not (tmp_path / "f.dat").exists()
    job.assert_nothing_left()


@pytest.fixture
def tmpfs(tmp_path):
    """Small tmpfs mounts, unmounted at the end whatever happened."""
    mounts = []

    def mount(name: str, size: str) -> Path:
        point = tmp_path / name
        point.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], check=True)
        mounts.append(point)
        return point

    yield mount
    for point in mounts:
        subprocess.run(["umount", "-l", str(point)], check=False)


def fill(directory: Path) -> None:
    """Writes into the directory until its file system is full."""
    with open(directory / "filler", "wb") as filler:
        try:
            while True:
                filler.write(b"\0" * (1 << 20))
                filler.flush()
        except OSError:
            pass


CALIBRATE_FIRST = ["-a", "calibrate,raw-bytes", "--calibrate-rate", "16MiB", "-b", "16MiB", "-t", "1MiB", "-i", "1"]


def test_a_full_file_system_mid_run_fails_the_phase_and_keeps_the_ones_before(tmp_path, tmpfs):
    small = tmpfs("small", "48m")
    job = Job(tmp_path, *CALIBRATE_FIRST, "-o", str(small / "f.dat"))
    job.wait_for("calibrate              write fork 1 rep 0")
    fill(small)
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    assert re.search(r"rank [01] failed during raw-bytes write fork 1 rep 0 \(warm-up\): .*No space left on device",
                     stderr), stderr
    run = job.run_file()
    assert run["incomplete"]["reason"] == "failed" and "No space left on device" in run["incomplete"]["message"]
    assert {p["approach"] for p in run["phases"]} == {"calibrate"} and len(run["phases"]) == 4
    assert not (small / "f.dat").exists()
    job.assert_nothing_left()


@pytest.mark.parametrize("launcher", EVERY_LAUNCH_PATH)
def test_a_file_that_cannot_be_removed_at_the_end_costs_no_phase(tmp_path, launcher):
    """A lost server or a dead mount refuses the removal; an immutable directory does the same here."""
    directory = tmp_path / "data"
    directory.mkdir()
    job = Job(tmp_path, *CALIBRATE_FIRST, "--warmup", "0", "-o", str(directory / "f.dat"), launcher=launcher)
    job.wait_for("calibrate              write fork 1 rep 0")
    subprocess.run(["chattr", "+i", str(directory)], check=True)
    try:
        code, stderr, _ = job.finish()
    finally:
        subprocess.run(["chattr", "-i", str(directory)], check=True)
    assert code == 0, stderr
    # Under MPJ Express one process removes every rank's files: it names no rank.
    who = "rank 0: " if launcher == "mpirun" else ""
    assert f"jiobench: {who}cannot remove {directory / 'f.dat'}: Operation not permitted" in stderr, stderr
    assert "Traceback" not in stderr, stderr
    run = job.run_file()
    assert run["incomplete"] is None and [p["approach"] for p in run["phases"]] == ["calibrate"] * 2 + ["raw-bytes"] * 2
    assert (directory / "f.dat").stat().st_size == 2 * 16 * 2**20, "the file is left whole"
    job.assert_nothing_left()


@pytest.mark.parametrize("launcher", EVERY_LAUNCH_PATH)
def test_a_full_results_directory_puts_the_run_file_elsewhere_and_says_where(tmp_path, tmpfs, launcher):
    results = tmpfs("results", "1m")
    job = Job(tmp_path, "-a", "calibrate", "-b", "4MiB", "-t", "1MiB", "--calibrate-rate", "4MiB", "-i", "1",
              results=results, launcher=launcher)
    job.wait_for("calibrate              write fork 1 rep 0")
    fill(results)
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    line = next(line for line in stderr.splitlines() if "written to" in line)
    assert (f"cannot write the per-rank file in {results} (No space left on device), which the run file goes with: "
            f"written to {tempfile.gettempdir()}/") in line, stderr
    written = Path(line.rsplit("written to ", 1)[1])
    try:
        run = json.loads(written.read_text())
        assert run["incomplete"] is None and len(run["phases"]) == 4
        # The ranks' records, which no row group of the per-rank file in the results directory
        # took, follow the JSON.
        assert "the ranks' records go where the run file goes" in stderr, stderr
        assert run["per_rank_file"] == run["run_id"] + perrank.SUFFIX and run["per_rank_rows"] == 4 * 2
        assert not any("per-rank" in warning for warning in run["warnings"]), run["warnings"]
        assert len(records(written)) == 4 * 2
        assert sorted(path.name for path in written.parent.iterdir()) == [
            f"{run['run_id']}.json", run["per_rank_file"]], \
            "a directory of its own, which no file planted in the temporary directory blocks"
    finally:
        shutil.rmtree(written.parent)
    job.assert_nothing_left()


def test_a_run_file_that_no_directory_can_hold_follows_on_standard_error(jiobench, tmp_path, tmpfs, monkeypatch,
                                                                         capsys):
    """The results directory and the temporary directory both full: rank 0's collector says so,
    leaves no half of the run file, and writes its JSON on standard error, where the user's log
    keeps it (the run then exits 1, as a misplaced run file does). A real run's records are fed
    to it as the launcher feeds them; the temporary directory is the one Python's tempfile uses."""
    measured = jiobench("-a", "calibrate", "-b", "4MiB", "-t", "1MiB", "--calibrate-rate", "64MiB", "-i", "1")
    assert measured.code == 0, measured
    results, temporary = tmpfs("full-results", "1m"), tmpfs("full-tmp", "1m")
    fill(results)
    fill(temporary)
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    run, records = measured.file, measured.records
    environment = run["environment"]
    context = dict({key: environment[key] for key in ("ranks", "launcher", "command_line", "mpi", "ranks_per_host")},
                   environment=environment, started=run["started"], run_id=run["run_id"],
                   parameters=dict(run["parameters"], results=str(results)))
    collector = collect.Collector(context, Silent())
    for start in range(0, len(records), 2):
        collector.phase(records[start:start + 2])
    assert collector.finish() is None
    stderr = capsys.readouterr().err
    # The per-rank file, which no row group reached, takes the run file with it: neither place holds them.
    assert f"jiobench: error: cannot write the per-rank file in {results} (No space left on device), which the run " \
           f"file goes with, nor in {temporary} (No space left on device): its JSON follows on standard error" in \
           stderr, stderr
    again = json.loads(stderr.splitlines()[-1])
    assert [reduce.phase_key(phase) for phase in again["phases"]] == [reduce.phase_key(phase) for phase in run["phases"]]
    assert again["per_rank_file"] is None and again["warnings"][-1].startswith("no per-rank file: cannot write")
    assert sorted(path.name for path in results.iterdir()) == ["filler"], "no half of the run file is left"
    assert sorted(path.name for path in temporary.iterdir()) == ["filler"]


def test_of_two_runs_started_on_one_file_only_one_writes_it(tmp_path):
    target = tmp_path / "f.dat"
    jobs = [Job(tmp_path / str(n), "-a", "raw-bytes", "-b", "4MiB", "-t", "1MiB", "--verify", "--keep",
                "-o", str(target)) for n in (1, 2) if (tmp_path / str(n)).mkdir() is None]
    outcomes = sorted(job.finish()[:2] for job in jobs)
    assert [code for code, _ in outcomes] == [0, 2], outcomes
    refusal = outcomes[1][1].strip().splitlines()
    assert len(refusal) == 1 and ("exists; pass --overwrite" in refusal[0]
                                  or "was created by someone else just now" in refusal[0]), refusal
    winner = next(job for job in jobs if job.process.returncode == 0)
    assert all(p["verified"] is True for p in winner.run_file()["phases"])


@pytest.fixture
def written_file(tmp_path) -> Path:
    target = tmp_path / "data.dat"
    done = subprocess.run([str(JIOBENCH), "run", "-n", "2", "--", "-a", "raw-bytes", "-w", "--keep", "-b", "16MiB",
                           "-t", "1MiB", "--warmup", "0", "-o", str(target), "--results", str(tmp_path / "setup")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return target


@pytest.mark.parametrize("change, forks, words", [
    ("truncate", "1", r"failed during raw-bytes read fork 1 rep 0 \(warm-up\): {file}: EOFException"),
    ("remove", "1", r"failed during the start of raw-bytes fork 1: {file} was removed while the run went on"),
    # A file the run cannot look at is said as it is, never taken for a removed one.
    ("loop", "1", r"failed during the start of raw-bytes fork 1: {file} could not be looked at while the run went on "
                  r"\(Too many levels of symbolic links"),
    # In one JVM raw-bytes' read follows calibrate's at once: the removal is found between the
    # phases, or by the read's open if that came first.
    ("remove", "0", r"failed after .*: {file} was removed or replaced while the run went on \(found before |"
                    r"failed during raw-bytes read rep 0 \(warm-up\): {file}: FileNotFoundException"),
])
def test_a_file_changed_under_the_run_is_named_and_never_recreated(tmp_path, written_file, change, forks, words):
    job = Job(tmp_path, *CALIBRATE_FIRST, "-r", "--forks", forks, "-o", str(written_file))
    job.wait_for("calibrate              read  fork")
    # The file is looked at before each phase, a millisecond after the last one's line: the change
    # lands half-way through calibrate's next phase (1 s, 16 MiB at 16 MiB/s), after that look
    # and well before the next, however busy the machine.
    time.sleep(0.5)
    if change == "truncate":
        os.truncate(written_file, 1 << 20)
    else:
        written_file.unlink()
    if change == "loop":
        written_file.symlink_to(written_file.name)
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    assert re.search(words.format(file=re.escape(str(written_file))), stderr), stderr
    run = job.run_file()
    assert run["incomplete"]["reason"] == "failed"
    # Forks apart, the change lands in calibrate's JVM; in one JVM, raw-bytes may have read once before it.
    assert {p["approach"] for p in run["phases"]} == {"calibrate"} if forks == "1" else run["phases"]
    assert written_file.exists() == (change == "truncate"), "a run never creates (nor removes) the user's file"
    assert written_file.is_symlink() == (change == "loop")
    job.assert_nothing_left()


@pytest.mark.parametrize("per_rank", [[], ["-F"]], ids=["shared", "file-per-process"])
def test_a_file_swapped_for_a_link_between_forks_is_never_written_nor_removed(tmp_path, per_rank):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    victim = tmp_path / "victim"
    victim.write_text("root's own")
    test_file = shared / ("f.dat.00000000" if per_rank else "f.dat")
    job = Job(tmp_path, "-a", "data-stream,raw-bytes", "-b", "16MiB", "-t", "1MiB", "-D", "1", "-i", "1", "--warmup",
              "0", *per_rank, "-o", str(shared / "f.dat"), ranks=1)
    job.wait_for("data-stream            write")
    # As another user would, in a directory every user can write: while data-stream reads.
    time.sleep(0.3)
    test_file.unlink()
    test_file.symlink_to(victim)
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    file, target = re.escape(str(test_file)), re.escape(str(victim))
    # Between forks, or before data-stream's read where the swap came first.
    assert re.search(rf"{file} is now a symbolic link to {target}, not the file the run created \(the run ends, and "
                     rf"leaves it as it is\)|{file} was removed or replaced while the run went on \(found before "
                     rf"data-stream read fork 1 rep 0; it is now a symbolic link to {target}\)", stderr), stderr
    assert victim.read_text() == "root's own"
    assert test_file.is_symlink() and os.readlink(test_file) == str(victim), "what took the file's name is left as it is"
    assert [p["approach"] for p in job.run_file()["phases"]][:1] == ["data-stream"]
    job.assert_nothing_left()


SIGNAL_WHILE_WRITING = """
import os, signal
from jiobench.model import runfile

written = runfile.write


def write(*args):
    os.kill(os.getpid(), signal.SIGTERM)
    return written(*args)


runfile.write = write
"""


@pytest.mark.parametrize("launcher", EVERY_LAUNCH_PATH)
def test_a_signal_while_the_run_file_is_written_keeps_the_run_file(tmp_path, launcher):
    """The process that writes the run file gets a SIGTERM the moment it starts to write it: the
    file is written whole all the same, with every phase, and the run ends as a stopped one."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SIGNAL_WHILE_WRITING)
    env = dict(os.environ, PYTHONPATH=str(hook))
    job = Job(tmp_path, "-a", "calibrate", "-b", "4MiB", "-t", "1MiB", "--calibrate-rate", "64MiB", "-i", "1",
              "-o", str(tmp_path / "f.dat"), launcher=launcher, env=env)
    code, stderr, _ = job.finish()
    assert code == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr, stderr
    run = job.run_file()
    assert run["incomplete"] is None and len(run["phases"]) == 4
    assert not (tmp_path / "f.dat").exists()


def test_a_jvm_not_ready_in_time_ends_the_run_naming_its_rank_and_host(tmp_path):
    """A JVM that hangs as it starts (a java wrapper waiting on a lock, a dead mount) would keep
    every other rank waiting for it: --start-timeout ends the run, naming it and showing what it said."""
    java = tmp_path / "java"
    java.write_text('#!/bin/sh\ncase "$JIOBENCH_CONTROL" in 1,*) echo "waiting for a licence"; exec sleep 600;; esac\n'
                    'exec java "$@"\n')
    java.chmod(0o755)
    started = time.monotonic()
    job = Job(tmp_path, "-a", "c-posix", "-b", "1MiB", "-o", str(tmp_path / "f.dat"),
              env=dict(os.environ, JIOBENCH_JAVA=str(java)), own=["--start-timeout", "5"])
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    assert time.monotonic() - started < 30, stderr
    host = os.uname().nodename
    assert f"jiobench: error: rank 1 on {host} not ready within --start-timeout 5 s; its JVM printed: waiting for a " \
           "licence" in stderr, stderr
    assert "Traceback" not in stderr and not (tmp_path / "f.dat").exists(), stderr
    job.assert_nothing_left()


HANG_BEFORE_MPI = """
import os, time
if os.environ.get("OMPI_COMM_WORLD_RANK") == "1":
    time.sleep(600)
"""


def test_a_rank_that_never_gets_into_mpi_ends_the_run_naming_it(tmp_path):
    """Every other rank waits in MPI's start for it: `jiobench run` itself keeps the deadline."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HANG_BEFORE_MPI)
    started = time.monotonic()
    job = Job(tmp_path, "-a", "c-posix", "-b", "1MiB", env=dict(os.environ, PYTHONPATH=str(hook)),
              own=["--start-timeout", "5"])
    job.note_members()
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    assert time.monotonic() - started < 40, stderr
    assert f"jiobench: error: rank 1 was not up within --start-timeout 5 s, or MPI did not start across them " \
           f"(ranks up: 0 on {os.uname().nodename})" in stderr, stderr
    job.assert_nothing_left()


def lost_with_rank_1(job: Job) -> str:
    """Freezes rank 1's launcher, as a lost node leaves it: the run ends within 30 s, exit 1. Its
    standard error."""
    job.note_members()
    (frozen,) = [pid for pid in job.members() if launcher_of_rank(pid) == "1"]
    os.kill(frozen, signal.SIGSTOP)
    lost = time.monotonic()
    code, stderr, _ = job.finish(timeout=60)
    assert time.monotonic() - lost < 30, stderr
    assert code == 1, stderr
    return stderr


def test_a_rank_that_stops_answering_ends_the_run_within_30_s(tmp_path):
    """A lost node, as its launcher frozen: the others would wait in their next barrier for as long
    as Slurm lets them. They end the run, write what was measured and remove the test file."""
    job = Job(tmp_path, "-a", "raw-bytes,data-stream", "-b", "64MiB", "-t", "1MiB", "-i", "1", "-D", "60",
              "-o", str(tmp_path / "f.dat"))
    job.wait_for(RAW_BYTES_DONE, timeout=120)
    time.sleep(2)
    stderr = lost_with_rank_1(job)
    assert f"jiobench: rank 1 on {os.uname().nodename} stopped answering for 10 s" in stderr, stderr
    run = job.run_file()
    assert run["incomplete"]["reason"] == "failed" and len(run["phases"]) == 4, run["incomplete"]
    assert not (tmp_path / "f.dat").exists()
    job.assert_nothing_left()


def test_a_rank_that_stops_answering_before_the_first_phase_ends_the_run_in_one_line(tmp_path):
    """Rank 1's launcher frozen while its JVM starts: rank 0, its JVM up and the test file created,
    finds it silent, says so, and removes the file; there is no phase to keep."""
    java = tmp_path / "java"
    java.write_text('#!/bin/sh\ncase "$JIOBENCH_CONTROL" in 1,*) exec sleep 120;; esac\nexec java "$@"\n')
    java.chmod(0o755)
    test_file = tmp_path / "f.dat"
    job = Job(tmp_path, "-a", "c-posix", "-b", "1MiB", "-o", str(test_file),
              env=dict(os.environ, JIOBENCH_JAVA=str(java)))
    deadline = time.monotonic() + 60
    while not test_file.exists():
        assert time.monotonic() < deadline and job.process.poll() is None, "rank 0's JVM did not create the file"
        time.sleep(0.05)
    stderr = lost_with_rank_1(job)
    assert re.search(f"^jiobench: error: rank 1 on {os.uname().nodename} stopped answering for 10 s .*; no run file "
                     "was written$", stderr, re.MULTILINE), stderr
    assert not job.results.exists() or not list(job.results.glob("*.json"))
    assert not test_file.exists()
    job.assert_nothing_left()


def launcher_of_rank(pid: int) -> Optional[str]:
    """The MPI rank of a rank's launcher (python -m jiobench.run.rank), None for any other process."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    if b"jiobench.run.rank" not in command:
        return None
    return next((item.split(b"=", 1)[1].decode() for item in environment
                 if item.startswith(b"OMPI_COMM_WORLD_RANK=")), None)


def test_a_jvm_stopped_mid_phase_marks_the_phase_as_overrunning_its_deadline(tmp_path):
    """A JVM stopped (SIGSTOP, as a suspended job, or one starved or swapped out) stretches its
    phase past the deadline: the phase is not one the deadline bounded, and says so."""
    # calibrate runs at 256 MiB/s a rank: 1 GiB would take 4 s, the deadline ends each phase at 2 s.
    job = Job(tmp_path, "-a", "calibrate", "-b", "1GiB", "-t", "1MiB", "-D", "2", "-i", "2", "--warmup", "0",
              "-o", str(tmp_path / "f.dat"))
    job.wait_for("calibrate              write fork 1 rep 0")
    (victim,) = [pid for pid in job.jvms() if control_rank(pid) == 1]
    job.wait_for("calibrate              read  fork 1 rep 0")  # the second write's phase begins
    os.kill(victim, signal.SIGSTOP)
    time.sleep(4)
    os.kill(victim, signal.SIGCONT)
    code, stderr, _ = job.finish()
    assert code == 0, stderr
    phases = job.run_file()["phases"]
    assert [p["overran_deadline_s"] is not None for p in phases] == [False, False, True, False], phases
    # Stopped at t s into the phase (t under 2 s), it ended t + 4 s in: t + 2 s past the deadline.
    assert 1.8 < phases[2]["overran_deadline_s"] < 6, phases[2]
    (line,) = [line for line in job.lines if line.startswith("calibrate              write fork 1 rep 1")]
    assert f"stonewalled OVERRAN DEADLINE by {phases[2]['overran_deadline_s']:.1f}s" in line, line
    (row,) = [line for line in job.lines if line.startswith("calibrate              write     2    2")]
    assert "OVERRAN DEADLINE 1 of 2" in row, row
    assert any(line.startswith("OVERRAN DEADLINE: the slowest rank of some phases (calibrate write 1 of 2)")
               for line in job.lines), job.lines
    assert job.run_file()["summary"][0]["overran_deadline"] == 1


def test_a_killed_rank_launcher_leaves_the_others_to_write_the_run_file_and_remove_its_files(tmp_path):
    """kill -9 (or the OOM killer) of rank 0's launcher, which created the test file and writes the
    per-rank file: mpirun once killed the others at once and the run ended 137, silent, its phases
    lost and its files left. Rank 1 finds it silent, writes the run file, removes the test file
    rank 0 created and names what rank 0 left unfinished; the dead launcher's JVM and keeper go."""
    test_file = tmp_path / "f.dat"
    job = Job(tmp_path, *KILLED_LAUNCHER_RUN, "-o", str(test_file))
    job.wait_for(KILLED_LAUNCHER_AFTER)
    (victim,) = [pid for pid in job.members() if launcher_of_rank(pid) == "0"]
    os.kill(victim, signal.SIGKILL)
    killed = time.monotonic()
    code, stderr, _ = job.finish()
    assert code == 1, stderr
    assert time.monotonic() - killed < 30, stderr
    kept = phases_kept_after_a_lost_rank(stderr, 0, os.uname().nodename)
    run = job.run_file()
    assert run["incomplete"]["reason"] == "failed" and len(run["phases"]) == kept < 6 and run["writer"]["rank"] == 1
    (unfinished,) = job.results.glob(f"{run['run_id']}{perrank.SUFFIX}.*.tmp")
    assert f"jiobench: rank 0 was lost as it wrote the per-rank file: {unfinished} is left unfinished" in stderr, stderr
    assert not test_file.exists(), "rank 1 removes the file rank 0 created"
    assert "PMIX ERROR" not in stderr, stderr
    job.assert_nothing_left()


@pytest.mark.parametrize("launcher_args, said", [
    ("--hostfile /nonexistent", "Open RTE was unable to open the hostfile:"),
    ("--map-by nonsense", "The specified mapping policy is not recognized:"),
], ids=["hostfile", "map-by"])
def test_a_launcher_option_mpirun_refuses_is_said_in_its_own_words(tmp_path, launcher_args, said):
    """mpirun's -q once swallowed its own refusal: the run ended 1 with nothing said."""
    done = subprocess.run([str(JIOBENCH), "run", "-n", "2", "--launcher-args", launcher_args, "--", "-a", "raw-bytes",
                           "-b", "64KiB", "-t", "16KiB", "-o", str(tmp_path / "f.dat"), "--results",
                           str(tmp_path / "results")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == f"jiobench: error: mpirun ended (exit code 1) before starting any rank, with --launcher-args " \
                       f"'{launcher_args}'; what it said:", done.stderr
    assert said in lines[1:], done.stderr
    assert done.stdout == "" and sorted(path.name for path in tmp_path.iterdir()) == []


def test_a_stop_the_ranks_cannot_answer_claims_no_run_file(tmp_path):
    """No word from the ranks (as when rank 0 is held in an unlink on a file system that stopped
    answering): the stop ends the run at KILL_SECONDS, and jiobench run says what it does not know,
    where once it said a run file was in --results though none was written. Held here by SIGSTOP
    of the launcher's whole session: mpirun, running, would wake its ranks with a SIGCONT. Fifteen
    phases, over 20 s, follow the one awaited (where one read phase once followed, and the run
    ended before a loaded machine let the test hold it), so the run cannot end on its own first."""
    job = Job(tmp_path, "-a", "data-stream", "-b", "64MiB", "-t", "1MiB", "-D", "2", "-i", "8", "--warmup", "0",
              "-o", str(tmp_path / "f.dat"))
    job.wait_for("data-stream            write fork 1 rep 0")
    (mpirun,) = [pid for pid in job.children() if b"jiobench.run.guardian" not in Path(f"/proc/{pid}/cmdline").read_bytes()]
    for pid in subprocess.run(["ps", "-o", "pid=", "--sid", str(mpirun)], capture_output=True, text=True).stdout.split():
        os.kill(int(pid), signal.SIGSTOP)
    job.process.send_signal(signal.SIGTERM)
    code, stderr, _ = job.finish()
    assert code == 128 + signal.SIGTERM, stderr
    assert stderr.splitlines() == [
        f"jiobench: stopped by SIGTERM; the ranks did not say whether they wrote a run file (look in {job.results}): "
        "a rank may be held by a file system that stopped answering"], stderr
    assert not list(job.results.glob("*.json"))
    job.assert_nothing_left()
