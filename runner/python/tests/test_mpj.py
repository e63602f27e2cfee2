"""The MPJ Express launch path, end to end: real MPJ Express (multicore threads and niodev JVMs
through MPJ's daemon), real JVMs, real files."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from testing import HOME, JIOBENCH, Run, assert_at_calibrated_rate, not_of_the_heap, per_rank, wait_until_dead
from jiobench.model import reduce, runfile
from jiobench.run import collect, mpj, mpj_daemon, mpj_install, mpj_job, wire
from jiobench.run.progress import Silent
from jiobench.run.request import RunRequest

pytestmark = pytest.mark.runs

ALL = ["raw-bytes", "encode-decode", "data-stream", "buffered-data-stream", "byte-array-stream", "bulk-jni",
       "c-posix", "calibrate"]
DEVICES = ["multicore", "niodev"]
JAR = HOME / "runner" / "target" / "jiobench-runner.jar"


def jiobench_mpj(tmp_path: Path, device: str, *args: str, ranks: int = 2, env: dict = None,
                 timeout: float = 120, jvm_args: str = "") -> Run:
    completed = subprocess.run([str(JIOBENCH), "run", "-n", str(ranks), f"--launcher=mpj-{device}",
                                f"--jvm-args={jvm_args}", "--", *args,
                                "--results", str(tmp_path / "results")],
                               capture_output=True, text=True, timeout=timeout, cwd=tmp_path, env=env)
    return Run(completed)


def start_mpj(tmp_path: Path, device: str, *args: str, ranks: int = 2, options: tuple = (),
              env: dict = None) -> subprocess.Popen:
    return subprocess.Popen([str(JIOBENCH), "run", "-n", str(ranks), f"--launcher=mpj-{device}", *options, "--",
                             *args, "--results", str(tmp_path / "results")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            start_new_session=True, env=env)


def end_if_running(job: subprocess.Popen) -> None:
    """Whatever ended the test, nothing of the run outlives it: `jiobench run` leads a session of
    its own."""
    if job.poll() is None:
        os.killpg(job.pid, signal.SIGKILL)


def processes_mentioning(text: str) -> dict[int, str]:
    """Process id → command line of every process whose command line holds the text."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in command:
                found[int(entry.name)] = command
    return found


def status(pid: int) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def parent_of(pid: int) -> int:
    return int(status(pid)["PPid"])


def alive(pid: int) -> bool:
    """Running, as opposed to gone or a zombie awaiting its parent."""
    return status(pid).get("State", "Z").split()[0] != "Z"


def skip_where_a_daemon_runs() -> None:
    home = mpj_install.private_home(JAR.parent / "mpj-home")
    if mpj_daemon.listening(int(mpj_install.configuration(home)["mpjexpress.mpjdaemon.port.1"])):
        pytest.skip("an MPJ daemon runs already, which the run would use and leave running")


def wait_for_line(job: subprocess.Popen, start: str) -> str:
    for line in job.stdout:
        if line.startswith(start):
            return line
    raise AssertionError(f"no line starting with {start!r}; stderr: {job.stderr.read()}")


# Every approach in one job of 4 ranks; and, in a job each, one approach of each kind (Java's
# streams, the JNI library, C) beside calibrate: what a job per approach adds is the jobs' starts
# and ends, which a job for every approach took a minute to show again.
ONE_JOB_EACH = ["raw-bytes", "bulk-jni", "c-posix", "calibrate"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ranks, forks, approaches", [(2, 1, ONE_JOB_EACH), (4, 0, ["all"])],
                         ids=["2-ranks-a-job-per-approach", "4-ranks-one-job"])
def test_every_approach_runs_verified_and_calibrate_reports_its_rate(tmp_path, device, ranks, forks, approaches):
    rate_mib = 4
    run = jiobench_mpj(tmp_path, device, "-a", ",".join(approaches), "-b", "4MiB", "-t", "512KiB", "-D", "1.2",
                       "--verify", "--warmup", "0", "--forks", str(forks), "--calibrate-rate", f"{rate_mib}MiB",
                       "-o", "f.dat", ranks=ranks)
    assert run.code == 0, run
    data = run.file
    env = data["environment"]
    assert env["launcher"] == f"mpj-{device}" and env["ranks"] == ranks and data["incomplete"] is None
    assert env["mpi"] == {"library": "MPJ Express 0.44", "standard": "mpiJava 1.2", "device": device}
    assert data["parameters"]["file"] == str(tmp_path / "f.dat"), "a relative file is the user's working directory's"
    every = data["parameters"]["approaches"]
    if approaches == ["all"]:
        assert set(ALL) <= set(every), "-a all holds the paper's approaches, C and calibrate, and what came after"
    else:
        assert every == approaches
    assert [(p["approach"], p["op"]) for p in data["phases"]] == [(a, op) for a in every for op in ("write", "read")]
    for phase in data["phases"]:
        assert phase["ranks"] == ranks and phase["fork"] == forks, phase
        if phase["approach"] == "calibrate":
            assert_at_calibrated_rate(phase["bw_mib_s"], ranks, rate_mib, phase)
        else:
            assert phase["verified"] is True, phase
    assert {r["rank"] for r in run.records} == set(range(ranks))
    assert not (tmp_path / "f.dat").exists(), "the file the run created is removed"


@pytest.mark.parametrize("device", DEVICES)
def test_wear_out_takes_every_mpj_rank_to_the_most_any_moved(tmp_path, device):
    """The ranks agree through MPJ Express's own collectives: after the deadline each goes on to
    the most any rank moved, and each read covers what its block's writer wrote."""
    run = jiobench_mpj(tmp_path, device, "-a", "data-stream", "-b", "16MiB", "-t", "4MiB", "-D", "1", "--wear-out",
                       "--verify", "-i", "1", "--warmup", "0", "-o", str(tmp_path / "f.dat"))
    assert run.code == 0, run
    write, read = run.file["phases"]
    assert write["stonewalled"] and write["verified"] is True and read["verified"] is True
    written, at_deadline = per_rank(run, "write"), per_rank(run, "write", "stonewall_bytes")
    assert len(set(written)) == 1 and 0 < written[0] < 4 << 20, written
    assert max(at_deadline) == written[0] and write["stonewall_bytes"] == sum(at_deadline), at_deadline
    assert per_rank(run, "read") == written


@pytest.mark.parametrize("device", DEVICES)
def test_reordered_reads_look_one_node_over_as_mpj_express_places_the_ranks(tmp_path, device):
    """-C on one node: each rank reads its neighbour's block, as much of it as the neighbour wrote
    before the deadline, and checks it against the neighbour's elements."""
    run = jiobench_mpj(tmp_path, device, "-a", "data-stream", "-b", "16MiB", "-t", "4MiB", "-D", "1", "-C",
                       "--verify", "-i", "1", "--warmup", "0", "-o", str(tmp_path / "f.dat"), ranks=3)
    assert run.code == 0, run
    written, read = per_rank(run, "write"), per_rank(run, "read")
    assert read == written[1:] + written[:1], (written, read)
    assert run.file["parameters"]["read_block_of"] == [1, 2, 0]
    assert all(p["verified"] is True for p in run.file["phases"])
    assert not_of_the_heap(run.file["warnings"]) == [
        "-C on one node: each rank reads its neighbour's block, which this node's page cache may still hold"]


def test_each_fork_is_one_mpj_job(tmp_path):
    """Every JVM start goes through a `java` that notes it: a multicore job is MPJ's starter and
    the JVM of its threads, so two approaches of two forks each are four jobs, eight starts."""
    log = tmp_path / "starts.log"
    java = tmp_path / "java"
    java.write_text(f"#!/bin/sh\necho \"$$\" >> {log}\nexec {os.path.realpath(shutil.which('java'))} \"$@\"\n")
    java.chmod(0o755)
    completed = subprocess.run([str(JIOBENCH), "run", "-n", "2", "--launcher=mpj-multicore", f"--java={java}", "--",
                                "-a", "calibrate,raw-bytes", "--forks", "2", "--warmup", "0", "-b", "256KiB",
                                "-t", "64KiB", "-o", "f.dat", "--results", str(tmp_path / "results")],
                               capture_output=True, text=True, timeout=120, cwd=tmp_path)
    run = Run(completed)
    assert run.code == 0, run
    assert sorted({p["fork"] for p in run.file["phases"]}) == [1, 2]
    assert len(log.read_text().split()) == 2 * 2 * 2


def test_the_mpi4py_path_and_the_mpj_path_reduce_records_with_the_same_code(jiobench, tmp_path):
    """Both paths hand every phase's records to jiobench.run.collect, whose one reduction makes the
    phases: the same experiment gives run files of the same shape, each the reduction of its own
    records, and the MPJ path's records reduce as the mpi4py launcher reduces what it gathers.
    Both describe the file system and warn of what it changes alike."""
    args = ["-a", "calibrate", "-b", "16MiB", "-t", "1MiB", "--calibrate-rate", "64MiB", "-i", "2",
            "--stripe-count", "2", "--stripe-ignore"]
    through_mpirun = jiobench(*args)
    through_mpj = jiobench_mpj(tmp_path, "multicore", *args)
    assert through_mpirun.code == 0 and through_mpj.code == 0, (through_mpirun, through_mpj)
    mpirun_file, mpj_file = through_mpirun.file, through_mpj.file
    mpirun_records, mpj_records = through_mpirun.records, through_mpj.records
    for data, records in ((mpirun_file, mpirun_records), (mpj_file, mpj_records)):
        assert [reduce.phase_key(p) for p in data["phases"]] == list(dict.fromkeys(map(reduce.phase_key, records)))
    assert [reduce.phase_key(p) for p in mpj_file["phases"]] == \
        [reduce.phase_key(p) for p in mpirun_file["phases"]]
    assert [sorted(r) for r in mpj_records] == [sorted(r) for r in mpirun_records]
    assert [sorted(p) for p in mpj_file["phases"]] == [sorted(p) for p in mpirun_file["phases"]]
    assert mpj_file["environment"]["filesystem"] == mpirun_file["environment"]["filesystem"]
    assert mpj_file["warnings"] == mpirun_file["warnings"]
    assert "--stripe-count, --stripe-size and --object-size ignored" in mpj_file["warnings"][0]
    # The records of the MPJ path's per-rank file, fed phase by phase as the mpi4py launcher feeds
    # rank 0's collector, give the same phases and summary, to the 7 digits the file keeps of times.
    context = {"parameters": dict(mpj_file["parameters"], results=str(tmp_path / "again")),
               "environment": mpj_file["environment"], "ranks_per_host": mpj_file["environment"]["ranks_per_host"],
               "ranks": 2, "launcher": "mpirun", "command_line": [], "mpi": {}, "started": runfile.now(),
               "run_id": "again", "hosts": mpj_file["environment"]["hosts"]}
    collector = collect.Collector(context, Silent())
    for start in range(0, len(mpj_records), 2):
        collector.phase(mpj_records[start:start + 2])
    again = json.loads(Path(collector.finish()).read_text())
    assert_close(again["phases"], mpj_file["phases"])
    # A standard deviation of rates alike is a difference of them: their 7 digits, not its own.
    assert_close(again["summary"], mpj_file["summary"], absolute=1e-4)


def assert_close(found, expected, where: str = "", absolute: float = 0.0) -> None:
    """Alike but for floats, which may differ in their 7th digit (or by `absolute`)."""
    if isinstance(expected, dict):
        assert isinstance(found, dict) and sorted(found) == sorted(expected), where
        for key in expected:
            assert_close(found[key], expected[key], f"{where}.{key}", absolute)
    elif isinstance(expected, list):
        assert isinstance(found, list) and len(found) == len(expected), where
        for index, (one, other) in enumerate(zip(found, expected)):
            assert_close(one, other, f"{where}[{index}]", absolute)
    elif isinstance(expected, float):
        assert found == pytest.approx(expected, rel=1e-6, abs=absolute), where
    else:
        assert found == expected, where


@pytest.mark.parametrize("device", DEVICES)
def test_one_rank_refusing_its_file_stops_every_rank_with_one_line(tmp_path, device):
    """With -F each rank reads its own file: rank 1's is too short, so rank 1 alone refuses."""
    for rank, size in enumerate([64 * 1024, 1000]):
        (tmp_path / f"f.dat.{rank:08d}").write_bytes(b"\0" * size)
    run = jiobench_mpj(tmp_path, device, "-a", "raw-bytes", "-r", "-F", "-b", "64KiB", "-t", "16KiB", "-o", "f.dat")
    assert run.code == 2, run
    lines = run.stderr.strip().splitlines()
    assert lines == ["jiobench: error: rank 1: f.dat.00000001 holds 1000 bytes but the plan reads "
                     "65536 (check -b, -s, -F and the rank count)"], run
    assert not (tmp_path / "results").exists(), "no run file for a run that never started"


@pytest.mark.parametrize("device", DEVICES)
def test_ranks_that_share_one_heap_are_refused_a_plan_only_one_of_them_fits(tmp_path, device):
    """Under multicore the 4 ranks' arrays share the one JVM's heap: 4 plans of 192 MiB (a 64 MiB
    transfer as elements and as bytes, and the read's copy) do not fit in 512 MiB, and the run
    says so before anything is allocated; each of niodev's JVMs holds one."""
    run = jiobench_mpj(tmp_path, device, "-a", "raw-bytes", "-b", "64MiB", "-t", "64MiB", "--warmup", "0",
                       "-o", str(tmp_path / "f.dat"), ranks=4, jvm_args="-Xmx512m")
    if device == "niodev":
        assert run.code == 0, run
        return
    assert run.code == 2, run
    assert run.stderr.strip().splitlines() == [
        "jiobench: error: the plan needs about 192.0 MiB of memory per rank (arrays of -t 64MiB, offsets of 1 "
        "transfer), 768.0 MiB for the 4 ranks of this JVM, more than this JVM may use (512.0 MiB): pass "
        "--jvm-args=-Xmx2g or lower -t, -b or -s"], run
    assert not (tmp_path / "f.dat").exists()


def test_mpj_express_s_own_teardown_trace_is_dropped_and_any_other_is_passed_on():
    """What MPJ's starter printed as a job ended early, beside a trace thrown in the runner."""
    printed = "\n".join([
        "EXIT@Ping#",
        "java.util.NoSuchElementException: No line found",
        "\tat java.base/java.util.Scanner.nextLine(Scanner.java:1651)",
        "\tat runtime.starter.IOMessagesThread.serverSocketInit(IOMessagesThread.java:69)",
        "a rank's line",
        "java.lang.IllegalStateException: broken",
        "\tat java.base/java.util.Objects.requireNonNull(Objects.java:233)",
        "\tat org.jiobench.runner.Runner.main(Runner.java:10)",
        "Caused by: java.io.IOException: gone",
        "\t... 1 more",
    ])
    job = mpj_job.MpjJob(["printf", "%s\n", printed], dict(os.environ), None, JAR, hold_output=True)
    lines = []
    while (line := job.lines.get(timeout=10)) is not None:
        lines.append(line)
    assert [line for line in lines if not mpj_job.MPJ_CHATTER.match(line)] == printed.splitlines()[4:]


def test_rank_0_s_line_inside_a_log_line_written_in_pieces_is_read_and_bytes_not_utf8_pass(tmp_path):
    """HotSpot's -Xlog on standard error, which MPJ's starter joins to the output, wrote its
    decorations before rank 0's tagged line came in one write: the tag was missed (the job then
    seemed to end before its ranks started). A byte that is no UTF-8 once ended the reader."""
    printed = tmp_path / "printed"
    printed.write_bytes(b'[3.160s]@jiobench {"type": "ranks", "hosts": ["vm"], "pids": [7]}\n[trace][gc] the rest\n'
                        b"-Dx=\xff\n")
    job = mpj_job.MpjJob(["cat", str(printed)], dict(os.environ), None, JAR, hold_output=True)
    lines = []
    while (line := job.lines.get(timeout=10)) is not None:
        lines.append(line)
    assert lines == ["[3.160s]", '@jiobench {"type": "ranks", "hosts": ["vm"], "pids": [7]}', "[trace][gc] the rest",
                     "-Dx=\udcff"]
    assert wire.mpj_message(lines[1]) == {"type": "ranks", "hosts": ["vm"], "pids": [7]}


@pytest.mark.parametrize("device", DEVICES)
def test_a_rank_whose_file_goes_bad_mid_run_ends_the_job_and_leaves_no_process(tmp_path, device):
    common = ["-a", "raw-bytes", "-F", "-b", "256KiB", "-t", "64KiB", "--forks", "0", "--warmup", "0",
              "-o", str(tmp_path / "f.dat")]
    assert jiobench_mpj(tmp_path, device, *common, "-w", "--keep").code == 0
    job = start_mpj(tmp_path, device, *common, "-r", "-i", "100000")
    try:
        wait_for_line(job, "raw-bytes")
        processes = processes_mentioning(str(tmp_path / "f.dat"))
        processes.pop(job.pid)  # bin/jiobench itself
        # The process that speaks for MPJ's ranks (python -m jiobench.run.mpj), MPJ's starter and the
        # ranks' JVMs name the file on their command lines; under niodev the ranks' JVMs are
        # children of the MPJ daemon that the run started.
        processes.update({parent_of(pid): "daemon" for pid, command in list(processes.items())
                          if "runtime.daemon.Wrapper" in command})
        assert len(processes) == (5 if device == "niodev" else 3), processes
        os.truncate(tmp_path / "f.dat.00000001", 0)
        out, err = job.communicate(timeout=60)
    finally:
        end_if_running(job)
    assert job.returncode == 1, (out, err)
    assert "jiobench: rank 1: raw-bytes read rep" in err and "EOFException" in err, err
    assert json.loads(Path(out.strip().splitlines()[-1]).read_text())["incomplete"] is not None
    assert not [pid for pid in processes if alive(pid)], processes


def test_a_killed_niodev_rank_is_named_and_ends_the_job_leaving_no_jvm_nor_daemon(tmp_path):
    """Rank 2's JVM is killed in a phase: the ranks that lose it in the next collective end too, and
    say so, but the one named is rank 2."""
    skip_where_a_daemon_runs()
    job = start_mpj(tmp_path, "niodev", "-a", "calibrate", "-b", "64MiB", "-t", "1MiB", "--calibrate-rate", "16MiB",
                    "-i", "3", "-o", str(tmp_path / "f.dat"), ranks=3)
    try:
        wait_for_line(job, "jiobench: 3 ranks via mpj-niodev")
        processes = processes_mentioning(str(tmp_path / "f.dat"))
        ranks = {rank: pid for pid, command in processes.items()
                 if (rank := mpj_daemon.wrapped_rank(command.split())) is not None}
        assert sorted(ranks) == [0, 1, 2], processes
        daemons = {parent_of(pid) for pid in ranks.values()}
        assert len(daemons) == 1, "the ranks' JVMs are children of MPJ's daemon"
        assert "runtime.daemon.MPJDaemon" in Path(f"/proc/{min(daemons)}/cmdline").read_text()
        os.kill(ranks[2], signal.SIGKILL)
        out, err = job.communicate(timeout=60)
    finally:
        end_if_running(job)
    assert job.returncode == 1, (out, err)
    assert f"rank 2's JVM (pid {ranks[2]}) ended in the middle of the run" in err, err
    assert "rank 0's" not in err and "rank 1's" not in err, err
    assert not [pid for pid in [*processes, *daemons] if alive(pid)], (processes, daemons)


@pytest.mark.parametrize("device", DEVICES)
def test_a_stop_that_comes_as_a_rank_fails_ends_the_run_as_the_failure_does(tmp_path, device):
    """A rank's JVM killed and `jiobench run` stopped once it is gone, before the run has seen
    it: the failure says more than the stop."""
    skip_where_a_daemon_runs()
    target = tmp_path / "f.dat"
    job = start_mpj(tmp_path, device, "-a", "calibrate", "-b", "64MiB", "-t", "1MiB", "--calibrate-rate", "16MiB",
                    "-i", "3", "-o", str(target), ranks=3)
    try:
        wait_for_line(job, f"jiobench: 3 ranks via mpj-{device}")
        processes = processes_mentioning(str(target))
        # A rank's JVM: under niodev each rank's, under multicore the one the starter started.
        victim = max(pid for pid in processes if parent_of(pid) in processes or mpj_daemon.wrapped_rank(
            processes[pid].split()) is not None)
        os.kill(victim, signal.SIGKILL)
        wait_until_dead(victim)
        job.send_signal(signal.SIGTERM)
        out, err = job.communicate(timeout=60)
    finally:
        end_if_running(job)
    assert job.returncode == 1, (out, err)
    assert f"(pid {victim}) ended in the middle of the run" in err, err
    (path,) = (tmp_path / "results").glob("*.json")
    assert json.loads(path.read_text())["incomplete"]["reason"] == "failed"
    assert not [pid for pid in processes if alive(pid)], processes


@pytest.mark.parametrize("rank_1_dead, cause", [
    (True, "rank 1's JVM (pid {dead}) ended in the middle of the run"),
    (False, "rank 0: MPJ Express failed in a collective: gone; no rank's JVM died on {here}, and rank 2 on "
            "node2.invalid could not be checked from {here}"),
], ids=["here", "elsewhere"])
def test_the_rank_blamed_is_one_that_ended_without_a_word_never_one_that_lost_it(rank_1_dead, cause):
    """Rank 0 of this host loses a peer and says so (an abort, then MPJ's line as its main
    returns). The cause is rank 1, of this host too, if its JVM ended silently; otherwise it is
    out of sight: rank 2, on another host, said nothing."""
    here = socket.gethostname()
    dead = subprocess.Popen(["true"])
    dead.wait()
    pids = [os.getpid(), dead.pid if rank_1_dead else os.getpid(), 1]
    printed = [wire.MPJ_TAG + json.dumps({"type": "ranks", "hosts": [here, here, "node2.invalid"], "pids": pids}),
               wire.MPJ_TAG + json.dumps({"type": "abort", "rank": 0,
                                     "message": "rank 0: MPJ Express failed in a collective: gone"}),
               f"Stopping Process <0> on <{here}>"]
    job = mpj_job.MpjJob(["printf", "%s\n", *printed], dict(os.environ), None, JAR, hold_output=False, size=3)
    with pytest.raises(mpj_job.JobBroken) as broken:
        list(job.messages())
    assert str(broken.value) == cause.format(dead=dead.pid, here=here)


def request_of(ranks: int, *launcher_args: str) -> RunRequest:
    return RunRequest(ranks=ranks, launcher="mpj-niodev", launcher_args=launcher_args, jvm_args=(), java="java",
                      jar=str(JAR), run_id=None, command_line=(), runner_args=())


def test_a_machines_file_of_this_host_alone_is_taken_as_mpj_reads_it(tmp_path):
    """MPJ's starter takes a machines file's distinct names, as many as there are ranks: those of
    this host, however named, and any past the rank count, leave the run on one node."""
    machines = tmp_path / "machines"
    machines.write_text(f"{socket.gethostname()}\n\n  localhost \n127.0.0.1\n{socket.gethostname()}\n192.0.2.7\n")
    assert mpj.one_node_refusal(request_of(3, "-machinesfile", str(machines))) is None
    refused = mpj.one_node_refusal(request_of(4, "-machinesfile", str(machines)))
    assert refused == f"{mpj.ONE_NODE}, and {machines} names 192.0.2.7; use --launcher srun or mpirun across nodes"
    assert mpj.one_node_refusal(request_of(2)) is None


@pytest.mark.parametrize("launcher_args, said", [
    ("-machinesfile machines", "and machines names 192.0.2.7, node2.invalid"),
    ("-yarn", "and -yarn places the ranks on a Hadoop YARN cluster"),
], ids=["machines-file", "yarn"])
def test_niodev_ranks_on_other_hosts_are_refused_before_anything_starts(tmp_path, launcher_args, said):
    (tmp_path / "machines").write_text(f"{socket.gethostname()}\n192.0.2.7\nnode2.invalid\n")
    (tmp_path / "tmp").mkdir()
    started = time.monotonic()
    completed = subprocess.run([str(JIOBENCH), "run", "-n", "3", "--launcher=mpj-niodev",
                                f"--launcher-args={launcher_args}", "--", "-a", "calibrate", "-b", "1MiB",
                                "-o", "f.dat", "--results", str(tmp_path / "results")],
                               capture_output=True, text=True, timeout=60, cwd=tmp_path,
                               env=dict(os.environ, TMPDIR=str(tmp_path / "tmp")))
    run = Run(completed)
    assert run.code == 2, run
    assert run.stderr.splitlines() == [
        "jiobench: error: --launcher mpj-niodev runs on one node only (MPJ Express's daemons would have to be "
        f"started on every node, and the run's MPJ copy is local to this one), {said}; use --launcher srun or "
        "mpirun across nodes"], run
    assert time.monotonic() - started < 10
    assert sorted(path.name for path in tmp_path.iterdir()) == ["machines", "tmp"]
    assert not list((tmp_path / "tmp").iterdir()), "no scratch of MPJ's made"


def java_holding_a_start(tmp_path: Path) -> Path:
    """A `java` that holds one start for an hour before it runs java: under niodev rank 1's JVM,
    under multicore the one JVM of every rank. It notes its own process id and its sleep's in held."""
    java = tmp_path / "java"
    java.write_text(f"""#!/bin/sh
n=-1
for word; do
  [ "$word" = runtime.starter.MulticoreStarter ] && hold=yes
  [ "$word" = runtime.daemon.Wrapper ] && n=0
  if [ "$n" -ge 0 ]; then
    [ "$n" = 6 ] && [ "$word" = 1 ] && hold=yes
    n=$((n + 1))
  fi
done
if [ "$hold" = yes ]; then
  sleep 3600 &
  echo "$$ $!" > {tmp_path / "held.tmp"}
  mv {tmp_path / "held.tmp"} {tmp_path / "held"}
  wait
fi
exec {os.path.realpath(shutil.which("java"))} "$@"
""")
    java.chmod(0o755)
    return java


def start_holding(tmp_path: Path, device: str, *options: str) -> tuple[subprocess.Popen, set[int]]:
    """A run of 3 ranks whose `java` holds a start, once it holds it; and the run's processes then:
    those that name the test's directory, MPJ's daemon, and the held start's."""
    job = start_mpj(tmp_path, device, "-a", "calibrate", "-b", "1MiB", "-o", str(tmp_path / "f.dat"), ranks=3,
                    options=(f"--java={java_holding_a_start(tmp_path)}", *options))
    deadline = time.monotonic() + 60
    while not (tmp_path / "held").exists():
        assert job.poll() is None and time.monotonic() < deadline, job.communicate()
        time.sleep(0.05)
    processes = processes_mentioning(str(tmp_path))
    processes.update({parent_of(pid): "daemon" for pid, command in list(processes.items())
                      if "runtime.daemon.Wrapper" in command})
    return job, {*processes, *map(int, (tmp_path / "held").read_text().split())}


@pytest.mark.parametrize("device, missing", [("niodev", "rank 1"), ("multicore", "ranks 0-2")])
def test_ranks_not_ready_within_the_start_timeout_end_the_run_naming_them(tmp_path, device, missing):
    started = time.monotonic()
    job, processes = start_holding(tmp_path, device, "--start-timeout=8")
    try:
        out, err = job.communicate(timeout=60)
    finally:
        end_if_running(job)
    assert job.returncode == 1, (out, err)
    assert err.splitlines() == [
        f"jiobench: error: {missing} on {socket.gethostname()} did not start within --start-timeout 8 s"], err
    assert time.monotonic() - started < 30
    assert not [pid for pid in processes if alive(pid)], processes
    assert not processes_mentioning(str(tmp_path))
    assert not (tmp_path / "results").exists()


def test_a_rank_killed_while_another_has_yet_to_start_is_named_at_once(tmp_path):
    """Rank 2's JVM waits in MPJ's start for rank 1's, which never comes, and is killed: the run
    ends naming rank 2 within seconds, not at the start-up deadline."""
    skip_where_a_daemon_runs()
    job, processes = start_holding(tmp_path, "niodev")
    java = os.path.realpath(shutil.which("java"))
    try:
        deadline = time.monotonic() + 60
        while not (jvm := [pid for pid, command in processes_mentioning(str(tmp_path)).items()
                           if command.startswith(java) and mpj_daemon.wrapped_rank(command.split()) == 2]):
            assert job.poll() is None and time.monotonic() < deadline, job.communicate()
            time.sleep(0.05)
        time.sleep(1)  # seen by the run
        os.kill(jvm[0], signal.SIGKILL)
        killed = time.monotonic()
        out, err = job.communicate(timeout=60)
    finally:
        end_if_running(job)
    assert job.returncode == 1, (out, err)
    assert err.splitlines() == [f"jiobench: error: rank 2's JVM (pid {jvm[0]}) ended before every rank had started"]
    assert time.monotonic() - killed < 10
    assert not [pid for pid in processes if alive(pid)], processes


@pytest.mark.parametrize("device", DEVICES)
def test_a_stop_before_the_first_phase_says_so_in_one_line(tmp_path, device):
    job, processes = start_holding(tmp_path, device)
    try:
        job.send_signal(signal.SIGTERM)
        out, err = job.communicate(timeout=30)
    finally:
        end_if_running(job)
    assert job.returncode == 128 + signal.SIGTERM, (out, err)
    assert err.splitlines() == ["jiobench: stopped by SIGTERM before any phase; no run file was written"], err
    assert not [pid for pid in processes if alive(pid)], processes
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("device", DEVICES)
def test_without_mpj_express_the_launcher_says_how_to_install_it(tmp_path, device):
    run = jiobench_mpj(tmp_path, device, "-a", "calibrate", env=dict(os.environ, MPJ_HOME=str(tmp_path / "none")))
    assert run.code == 2, run
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jiobench: error: MPJ Express is not installed"), run
    assert "apt-get install libmpj-java" in lines[0]


@pytest.mark.smoke
def test_a_signal_ends_an_mpj_run_keeping_its_completed_phases(tmp_path):
    target = tmp_path / "f.dat"
    job = start_mpj(tmp_path, "multicore", "-a", "raw-bytes,data-stream", "-b", "16MiB", "-t", "1MiB", "-i", "1",
                    "-o", str(target))
    wait_for_line(job, "raw-bytes              read  fork 1 rep 1")
    jvms = [pid for pid, command in processes_mentioning(str(target)).items() if command.startswith("java ")]
    job.send_signal(signal.SIGTERM)
    out, err = job.communicate(timeout=60)
    assert job.returncode == 128 + signal.SIGTERM, err
    assert "jiobench: stopped by SIGTERM; the run file keeps the 4 phases completed before" in err, err
    (path,) = (tmp_path / "results").glob("*.json")
    run = json.loads(path.read_text())
    assert run["incomplete"]["reason"] == "stopped" and run["incomplete"]["signal"] == "SIGTERM"
    assert len(run["phases"]) == 4 and not target.exists()
    assert not [pid for pid in jvms if alive(pid)], "no JVM of the run is left"


@pytest.mark.parametrize("device", DEVICES)
def test_a_kill_9_of_jiobench_run_ends_an_mpj_run_as_a_stop_does(tmp_path, device):
    """`jiobench run` killed outright (kill -9, the OOM killer) cannot pass a stop on: its guardian
    does, to the process that speaks for MPJ's ranks, which ends the job, writes the run file of the
    phases completed and removes the test file; nothing of the run, nor its notes, outlives it."""
    skip_where_a_daemon_runs()
    notes = tmp_path / "tmp"
    notes.mkdir()
    target = tmp_path / "f.dat"
    job = start_mpj(tmp_path, device, "-a", "raw-bytes,data-stream", "-b", "16MiB", "-t", "1MiB", "-i", "1",
                    "-o", str(target), env=dict(os.environ, TMPDIR=str(notes)))
    try:
        wait_for_line(job, "raw-bytes              read  fork 1 rep 1")
        processes = {**processes_mentioning(str(target)), **processes_mentioning(str(notes))}
        assert any("jiobench.run.guardian" in command for command in processes.values()), processes
        job.kill()
        job.communicate(timeout=10)
        deadline = time.monotonic() + 30
        while [pid for pid in processes if alive(pid)] and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        end_if_running(job)
    assert not [pid for pid in processes if alive(pid)], processes
    (path,) = (tmp_path / "results").glob("*.json")
    run = json.loads(path.read_text())
    assert run["incomplete"]["reason"] == "stopped" and run["incomplete"]["signal"] == "SIGKILL", run["incomplete"]
    assert len(run["phases"]) == 4 and not target.exists()
    assert list(notes.iterdir()) == [], "the run's notes and its copy of MPJ's settings are removed"


@pytest.mark.parametrize("device", DEVICES)
def test_auto_repetitions_are_refused_in_one_line_where_nobody_can_decide_them(tmp_path, device):
    """MPJ's ranks talk to this side through rank 0's output only: no answer reaches them."""
    run = jiobench_mpj(tmp_path, device, "-a", "calibrate", "-b", "1MiB", "-i", "auto")
    assert run.code == 2, run
    assert run.stderr.strip().splitlines() == [
        "jiobench: error: -i auto: the launcher decides each next repetition from every rank's phases, and this one "
        "cannot (--launcher mpj-multicore and mpj-niodev); give a count (-i N) (see --help)"], run
    assert not (tmp_path / "results").exists()
