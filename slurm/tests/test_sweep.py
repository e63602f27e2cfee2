"""`jiobench sweep` for real: jobs on the single-node Slurm the tests start (8 CPUs advertised
on 2 cores), one allocation for all points, the points on this machine, and the user's mistakes."""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testing import HOME, JIOBENCH, assert_at_calibrated_rate, modern_java, wait_for_job

# MiB/s per rank: calibrate takes a second over a 4 MiB block, against which the milliseconds a
# busy machine adds to a rank's last wake-up stay small; no warm-up, to keep the points short.
CALIBRATE_RATE = 4
# Tiny blocks; points one at a time (--exclusive takes the node), so calibrate times alone. One
# JVM a rank for every approach (--forks 0): what is tested is the sweep, not the forks. Calibrate
# last: as a fresh JVM's first phase, while four JVMs compiled on two cores, it ran 2% slow.
SIX_POINTS = ("--procs", "1,2,4", "--vary", "-t=1MiB,4MiB", "--exclusive")
SIX_RUNS = ("-a", "raw-bytes,bulk-jni,calibrate", "-b", "4MiB", "--calibrate-rate", f"{CALIBRATE_RATE}MiB",
            "--warmup", "0", "--forks", "0")
SMALL_RUNS = ("-a", "calibrate,raw-bytes", "-b", "1MiB", "-t", "256KiB", "--calibrate-rate", "1MiB", "--warmup", "0",
              "--forks", "0")


def sweep(*args: str, cwd: Path, env=None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(JIOBENCH), "sweep", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=timeout)


def manifest(directory: Path) -> dict:
    return json.loads((directory / "sweep.json").read_text())


def job_times(env, job_id: str) -> tuple[str, str]:
    shown = subprocess.run(["scontrol", "-o", "show", "job", job_id], capture_output=True, text=True, env=env).stdout
    return tuple(re.search(rf"\b{name}=(\S+)", shown).group(1) for name in ("StartTime", "EndTime"))


def status_states(output: str) -> dict[str, str]:
    """Point id -> its state in `sweep status`, with a trailing ' !' where the line is marked."""
    lines = output.splitlines()
    column = lines[0].index("state")
    states = {}
    for line in lines[1:]:
        if re.match(r"\d+ points: |! \S", line):  # the counts, or what went wrong under the table
            break
        words = line.split()
        marked = words[0] == "!"
        states[words[1] if marked else words[0]] = line[column:].split()[0] + (" !" if marked else "")
    return states


def reported_points(directory: Path) -> set[str]:
    with open(directory / "report" / "bandwidth.csv") as table:
        return {run_id for row in csv.DictReader(table) for run_id in row["run_ids"].split()}


def last_report_output(directory: Path, job_id: str) -> str:
    return (directory / "logs" / f"report.{job_id}.out").read_text()


def test_six_points_as_jobs_then_a_report_job_after_the_last(slurm, tmp_path):
    directory = tmp_path / "sweep"
    done = sweep("--dir", str(directory), *SIX_POINTS, "--submit", "--", *SIX_RUNS, "-o", str(tmp_path / "f.dat"),
                 cwd=tmp_path, env=slurm)
    assert done.returncode == 0, done.stderr
    submitted = manifest(directory)
    points = submitted["points"]
    assert [p["id"] for p in points] == ["p1-n1-t1MiB", "p2-n1-t4MiB", "p3-n2-t1MiB", "p4-n2-t4MiB",
                                         "p5-n4-t1MiB", "p6-n4-t4MiB"]
    assert wait_for_job(slurm, submitted["report"]["job_id"]) == "COMPLETED"

    status = sweep("status", str(directory), cwd=tmp_path, env=slurm)
    states = status_states(status.stdout)
    assert [states[p["id"]] for p in points] == ["COMPLETED"] * 6, status.stdout
    assert "6 points: 6 COMPLETED; run files: 6 complete" in status.stdout
    report_start, _ = job_times(slurm, submitted["report"]["job_id"])
    for point in points:
        _, ended = job_times(slurm, point["job_id"])
        assert ended <= report_start, f"{point['id']} ended {ended}, the report job started {report_start}"
        run = json.loads((directory / point["run_file"]).read_text())
        assert run["run_id"] == point["id"]
        assert run["environment"]["slurm"]["job_id"] == point["job_id"]
        assert run["environment"]["slurm"]["tasks_per_node"] == str(point["procs"])
        calibrate = [row for row in run["summary"] if row["approach"] == "calibrate"]
        assert len(calibrate) == 2
        for row in calibrate:
            assert_at_calibrated_rate(row["bw_mib_s"]["mean"], point["procs"], CALIBRATE_RATE,
                                      (point["id"], row["op"], row["bw_mib_s"]))
    assert reported_points(directory) == {p["id"] for p in points}
    assert "missing" not in last_report_output(directory, submitted["report"]["job_id"])
    assert (directory / "report" / "bandwidth-vs-transfer-size.png").is_file()


def test_a_cancelled_point_is_named_and_resume_runs_only_it(slurm, tmp_path):
    directory = tmp_path / "sweep"
    test_file = tmp_path / "f.dat"
    # calibrate at 1 MiB/s: a second a phase, so the first point is cancelled in the middle.
    done = sweep("--dir", str(directory), "--procs", "1,2", "--exclusive", "--submit", "--",
                 "-a", "calibrate,raw-bytes", "-b", "1MiB", "-t", "256KiB", "--calibrate-rate", "1MiB", "--forks", "0",
                 "-o", str(test_file), cwd=tmp_path, env=slurm)
    assert done.returncode == 0, done.stderr
    first, second = manifest(directory)["points"]
    log = directory / "logs" / f"{first['id']}.{first['job_id']}.out"
    deadline = time.monotonic() + 120
    while not (log.is_file() and "calibrate" in log.read_text()):
        assert time.monotonic() < deadline, "the first point never got going"
        time.sleep(0.2)
    early = sweep("--resume", str(directory), "--submit", cwd=tmp_path, env=slurm)
    assert f"no point of {directory} to run again: 2 still pending or running" in early.stdout, early
    subprocess.run(["scancel", first["job_id"]], check=True, env=slurm)
    report_job = manifest(directory)["report"]["job_id"]
    assert wait_for_job(slurm, report_job) == "COMPLETED"

    status = sweep("status", str(directory), cwd=tmp_path, env=slurm)
    states = status_states(status.stdout)
    assert (states[first["id"]], states[second["id"]]) == ("CANCELLED !", "COMPLETED"), status.stdout
    report_output = last_report_output(directory, report_job)
    assert re.search(rf"^  {first['id']} \(1 proc\): (missing|incomplete): ", report_output, re.M), report_output
    assert reported_points(directory) == {second["id"]}

    resumed = sweep("--resume", str(directory), "--submit", cwd=tmp_path, env=slurm)
    assert resumed.returncode == 0, resumed.stderr
    assert "1 of 2 points" in resumed.stdout
    after = manifest(directory)
    assert after["points"][1]["job_id"] == second["job_id"], "a complete point is not run again"
    assert after["points"][0]["job_id"] != first["job_id"]
    assert after["points"][0]["attempts"][0]["state"] == "CANCELLED"
    assert wait_for_job(slurm, after["report"]["job_id"]) == "COMPLETED"
    status = sweep("status", str(directory), cwd=tmp_path, env=slurm)
    assert "2 points: 2 COMPLETED; run files: 2 complete" in status.stdout, status.stdout
    assert reported_points(directory) == {first["id"], second["id"]}
    assert "missing" not in last_report_output(directory, after["report"]["job_id"])
    assert not list(tmp_path.glob("f.dat*")), "the cancelled run removed its file as it stopped, the rerun its own"


def test_one_allocation_runs_every_point_as_a_step(slurm, tmp_path):
    directory = tmp_path / "sweep"
    done = sweep("--dir", str(directory), "--procs", "1,2", "--time", "5", "--allocation", "--", *SMALL_RUNS,
                 "-o", str(tmp_path / "f.dat"), cwd=tmp_path, env=slurm)
    assert done.returncode == 0, done.stderr
    submitted = manifest(directory)
    allocation = {point["job_id"] for point in submitted["points"]}
    assert len(allocation) == 1
    assert wait_for_job(slurm, submitted["report"]["job_id"]) == "COMPLETED"
    status = sweep("status", str(directory), cwd=tmp_path, env=slurm)
    assert "2 points: 2 COMPLETED; run files: 2 complete" in status.stdout, status.stdout
    steps = set()
    for point in submitted["points"]:
        slurm_env = json.loads((directory / point["run_file"]).read_text())["environment"]["slurm"]
        assert slurm_env["job_id"] in allocation
        steps.add(slurm_env["step_id"])
    assert len(steps) == 2, "each point is a step of its own"
    script = (directory / "jobs" / "allocation.sbatch").read_text()
    assert "#SBATCH --ntasks=2" in script and "#SBATCH --time=00:10:00" in script, script
    assert reported_points(directory) == {point["id"] for point in submitted["points"]}


@pytest.mark.runs
def test_here_runs_the_points_on_this_machine_with_the_same_layout(tmp_path):
    directory = tmp_path / "sweep"
    done = sweep("--dir", str(directory), "--procs", "1,2", "--here", "--", *SMALL_RUNS,
                 "-o", str(tmp_path / "f.dat"), cwd=tmp_path, env={k: v for k, v in os.environ.items()
                                                                  if not k.startswith("SLURM")})
    assert done.returncode == 0, done.stderr
    points = manifest(directory)["points"]
    assert [point["state"] for point in points] == ["COMPLETED", "COMPLETED"]
    assert all((directory / point["run_file"]).is_file() and (directory / point["script"]).is_file()
               for point in points)
    assert "2 points: 2 COMPLETED; run files: 2 complete" in done.stdout
    assert reported_points(directory) == {point["id"] for point in points}
    for point in points:
        run = json.loads((directory / point["run_file"]).read_text())
        assert run["environment"]["launcher"] == "mpirun" and run["environment"]["slurm"] is None
        calibrate = [row for row in run["summary"] if row["approach"] == "calibrate"]
        for row in calibrate:
            assert_at_calibrated_rate(row["bw_mib_s"]["mean"], point["procs"], 1, (point["id"], row["op"]))


def test_rendered_jobs_are_bash_and_name_no_path_the_user_did_not_give(tmp_path):
    directory = tmp_path / "sweep"
    test_file = tmp_path / "scratch" / "f.dat"
    done = sweep("--dir", str(directory), "--procs", "1,2,4,8,16", "--nodes", "1,2", "--tasks-per-node", "8",
                 "--partition", "batch", "--account", "proj42", "--time", "00:30:00", "--", "-a", "paper,c-posix",
                 "-b", "256MiB", "-t", "4MiB", "-e", "-o", str(test_file), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "8 points" in done.stdout and "Nothing submitted" in done.stdout
    assert "left out: 16 procs on 1 node of 8 tasks, 1 proc on 2 nodes" in done.stdout, done.stdout
    scripts = sorted((directory / "jobs").glob("*.sbatch"))
    assert len(scripts) == 8 + 2
    machine = {str(HOME), sys.executable, str(tmp_path), os.getcwd(), "/usr/"}
    for script in scripts:
        checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
        text = script.read_text()
        assert "#SBATCH --partition=batch" in text and "#SBATCH --account=proj42" in text
        without_user_paths = text.replace(str(test_file), "USER-FILE")
        assert not [path for path in machine if path in without_user_paths], (script.name, text)
    point = (directory / "jobs" / "p8-n16-N2.sbatch").read_text()
    assert "#SBATCH --nodes=2\n#SBATCH --ntasks=16\n#SBATCH --ntasks-per-node=8\n" in point
    assert 'run --launcher srun -n "$SLURM_NTASKS" --run-id p8-n16-N2 -- \\\n' in point
    assert f"-o {test_file}.p8-n16-N2 --results results" in point
    assert not list((directory / "results").iterdir())


def test_every_state_slurm_ends_a_job_badly_in_stands_out_and_the_counts_come_last(tmp_path):
    directory = tmp_path / "sweep"
    done = sweep("--dir", str(directory), "--procs", "1,2,4,8", "--", *SMALL_RUNS, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = manifest(directory)
    ended = {"FAILED": "1", "TIMEOUT": None, "NODE_FAIL": None, "COMPLETED": "0"}
    for number, (point, (state, code)) in enumerate(zip(written["points"], ended.items()), start=40):
        point.update(job_id=str(number), state=state, exit_code=code)
    (directory / "sweep.json").write_text(json.dumps(written))
    failed = written["points"][0]
    (directory / "logs" / f"{failed['id']}.40.err").write_text("jiobench: error: the disk is full\n")

    status = sweep("status", str(directory), cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    states = status_states(status.stdout)
    assert [states[point["id"]] for point in written["points"]] == ["FAILED !", "TIMEOUT !", "NODE_FAIL !",
                                                                    "COMPLETED"], status.stdout
    lines = status.stdout.splitlines()
    assert lines[-4:] == [f"! {failed['id']} FAILED: jiobench: error: the disk is full",
                          f"! {written['points'][1]['id']} TIMEOUT", f"! {written['points'][2]['id']} NODE_FAIL",
                          "4 points: 1 FAILED, 1 TIMEOUT, 1 NODE_FAIL, 1 COMPLETED; run files: 4 missing"], status.stdout


@pytest.mark.parametrize("arguments, message", [
    (["--procs", "0"], "--procs 0: '0' is not a whole number of at least 1"),
    (["--procs", "1,2,2"], "--procs 1,2,2: 2 appears twice"),
    (["--procs", "16", "--nodes", "1", "--tasks-per-node", "8"], "--procs 16: no --nodes count holds 16 processes"),
    (["--vary", "-t"], "--vary -t: write it NAME=V1,V2,..."),
    (["--vary", "-t=1MiB,"], "--vary -t=1MiB,: an empty value"),
    (["--vary", "--no-such=1,2"], "--vary --no-such: the runner has no option --no-such"),
    (["--procs", "1,2,4", "--vary", "-t=1MiB,4MiB,3MiB,2MiB"],
     "point 3 of 12, p03-n1-t3MiB (1 proc, -t 3MiB): block size 4MiB is not a multiple of transfer size 3MiB"),
    (["--vary", "java=java,/no/such/java"],
     "point 2 of 2, p2-n1-java-such (1 proc, java /no/such/java): the JVM does not start: /no/such/java: "),
    (["--jvm-args", "-Xfoo"], "the JVM does not start: Unrecognized option: -Xfoo"),
    (["--time", "soon"], "--time soon: not a Slurm time limit"),
    (["--", "--results", "elsewhere"], "--results: the sweep sets it itself"),
])
def test_a_mistake_is_one_line_and_leaves_nothing(tmp_path, arguments, message):
    options, runner = (arguments[:arguments.index("--")], arguments[arguments.index("--") + 1:]) \
        if "--" in arguments else (arguments, [])
    done = sweep("--dir", "sweep", *options, "--", "-b", "4MiB", *runner, cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr.startswith("jiobench: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr
    assert not (tmp_path / "sweep").exists()


def test_each_point_is_checked_as_a_run_of_its_own_rank_count(tmp_path):
    done = sweep("--dir", "sweep", "--procs", "2,4", "--", "-b", "4MiB", "-C", "-Q", "3", cwd=tmp_path)
    assert done.returncode == 2, done
    assert "point 1 of 2, p1-n2 (2 procs): -Q 3 must be from 1 to the rank count less one (1)" in done.stderr, done
    assert sweep("--dir", "sweep", "--procs", "2,4", "--", "-b", "4MiB", "-C", cwd=tmp_path).returncode == 0


def test_a_sweep_starts_in_a_new_directory_and_status_needs_one(tmp_path):
    (tmp_path / "sweep").mkdir()
    done = sweep("--dir", "sweep", "--", "-a", "calibrate", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "jiobench: error: sweep exists: a sweep starts in a new directory "
                                                 "(jiobench sweep --resume sweep continues one)\n")
    done = sweep("status", "sweep", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, "jiobench: error: sweep: not a sweep (no sweep.json)\n")


def test_submit_needs_sbatch(tmp_path):
    tools = tmp_path / "bin"  # what bin/jiobench needs, and no Slurm
    tools.mkdir()
    for tool in ("bash", "dirname", "readlink", "java"):
        (tools / tool).symlink_to(shutil.which(tool))
    env = dict(os.environ, PATH=str(tools))
    done = sweep("--dir", "sweep", "--submit", "--", "-a", "calibrate", cwd=tmp_path, env=env)
    assert done.returncode == 2 and "--submit needs Slurm's sbatch" in done.stderr, done.stderr
    assert not (tmp_path / "sweep").exists()


@pytest.mark.parametrize("arguments, message", [
    (["--partition", "nosuch"], "sbatch refuses jiobench-p1-n1 (1 task): invalid partition specified: nosuch"),
    (["--procs", "1,16"], "sbatch refuses jiobench-p2-n16 (16 tasks): More processors requested than permitted"),
])
def test_slurm_refuses_before_anything_is_submitted(slurm, tmp_path, arguments, message):
    done = sweep("--dir", "sweep", *arguments, "--submit", "--", "-a", "calibrate", cwd=tmp_path, env=slurm)
    assert (done.returncode, done.stderr) == (2, f"jiobench: error: {message}\n")
    assert not (tmp_path / "sweep").exists()
    queued = subprocess.run(["squeue", "-h"], capture_output=True, text=True, env=slurm).stdout
    assert queued == ""


@pytest.mark.runs
def test_a_sweep_compares_launch_paths_with_mpj_express(tmp_path):
    """--vary launcher=mpirun,mpj-multicore: the same runs through mpi4py and MPJ Express ranks,
    two points each, told apart in the report."""
    directory = tmp_path / "sweep"
    done = sweep("--dir", str(directory), "--procs", "2", "--vary", "launcher=mpirun,mpj-multicore", "--here", "--",
                 *SMALL_RUNS, "-o", str(tmp_path / "f.dat"), cwd=tmp_path,
                 env={k: v for k, v in os.environ.items() if not k.startswith("SLURM")})
    assert done.returncode == 0, done.stderr
    points = manifest(directory)["points"]
    assert [point["state"] for point in points] == ["COMPLETED", "COMPLETED"]
    launchers = [json.loads((directory / point["run_file"]).read_text())["environment"]["launcher"]
                 for point in points]
    assert launchers == ["mpirun", "mpj-multicore"]
    assert (directory / "report" / "bandwidth-vs-launcher.png").is_file()


def test_mpj_points_are_rendered_for_mpj_express_and_kept_to_one_node(tmp_path):
    directory = tmp_path / "sweep"
    done = sweep("--dir", str(directory), "--procs", "2", "--vary", "launcher=srun,mpj-niodev", "--time", "00:10:00",
                 "--", *SMALL_RUNS, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    through_srun, through_mpj = manifest(directory)["points"]
    mpj_script = (directory / through_mpj["script"]).read_text()
    assert "# MPJ Express starts a JVM per rank on the job's node.\n" in mpj_script
    assert "srun" not in mpj_script and "mpirun" not in mpj_script, mpj_script
    srun_script = (directory / through_srun["script"]).read_text()
    assert "exec \"$jiobench\" run --launcher srun" in srun_script
    assert "# exec \"$jiobench\" run --launcher mpirun" in srun_script, "mpirun is the documented alternative"
    # In one allocation, srun's step options go to srun's points only.
    steps = [line for line in (directory / "jobs" / "allocation.sbatch").read_text().splitlines()
             if line.startswith("step ")]
    assert steps[0].startswith(f"step {through_srun['id']} \"$jiobench\" run --launcher srun -n 2 --run-id "
                               f"{through_srun['id']} --launcher-args='-J {through_srun['id']} --time=00:10:00' -- "), steps[0]
    assert steps[1].startswith(f"step {through_mpj['id']} \"$jiobench\" run --launcher mpj-niodev -n 2 --run-id "
                               f"{through_mpj['id']} -- "), steps[1]

    counted = sweep("--dir", str(tmp_path / "auto"), "--procs", "2", "--vary", "launcher=srun,mpj-niodev",
                    "--", *SMALL_RUNS, "-i", "auto", cwd=tmp_path)
    assert counted.returncode == 2 and not (tmp_path / "auto").exists()
    assert counted.stderr == ("jiobench: error: point 2 of 2, p2-n2-launcher-mpj-niodev (2 procs, launcher mpj-niodev): "
                              "-i auto: MPJ Express's ranks cannot hear the launcher decide each next repetition; "
                              "give a count (-i N)\n")

    refused = sweep("--dir", str(tmp_path / "two-nodes"), "--procs", "2", "--nodes", "2",
                    "--vary", "launcher=srun,mpj-niodev", "--", *SMALL_RUNS, cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == ("jiobench: error: point 2 of 2, p2-n2-N2-launcher-mpj-niodev (2 procs, 2 nodes, launcher "
                              "mpj-niodev): mpj-niodev starts its ranks on one node; srun or mpirun spans several\n")
    assert not (tmp_path / "two-nodes").exists()


@pytest.mark.skipif(modern_java() is None, reason="one JDK only in /usr/lib/jvm: nothing to compare")
@pytest.mark.runs
def test_a_sweep_compares_jdks_point_by_point(tmp_path):
    """--vary java=A,B, docs/cluster.md's JDK comparison: each point's ranks run the JVM it names."""
    default_java = shutil.which("java")
    directory = tmp_path / "sweep"
    done = sweep("--dir", str(directory), "--procs", "1", "--vary", f"java={default_java},{modern_java()}", "--here",
                 "--", *SMALL_RUNS, "-o", str(tmp_path / "f.dat"), cwd=tmp_path,
                 env={k: v for k, v in os.environ.items() if not k.startswith("SLURM")})
    assert done.returncode == 0, done.stderr
    points = manifest(directory)["points"]
    assert [point["state"] for point in points] == ["COMPLETED", "COMPLETED"]
    versions = [json.loads((directory / point["run_file"]).read_text())["environment"]["jvm"]["version"]
                for point in points]
    assert versions[0] != versions[1] and int(re.match(r"\d+", versions[1]).group()) >= 22, versions


def test_a_launcher_of_no_kind_is_refused(tmp_path):
    done = sweep("--dir", str(tmp_path / "sweep"), "--vary", "launcher=mpirun,pbs", "--here", "--", *SMALL_RUNS,
                 cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "jiobench: error: --vary launcher=mpirun,pbs: pbs is no launcher (mpirun, mpiexec, srun, mpj-multicore, "
        "mpj-niodev)"], done.stderr
    assert not (tmp_path / "sweep").exists()
