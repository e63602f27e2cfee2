"""What `jiobench sweep` does when things go wrong around it (docs/reliability.md): a file it did
not make where a point writes, a manifest that does not hold what it should, a --dir that names no
new directory, two sweeps at once, and a Slurm that does not answer."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from testing import CLUSTER, JIOBENCH
from test_sweep import SMALL_RUNS, manifest, sweep

ONE_POINT = ("--procs", "1", "--", "-a", "raw-bytes", "-b", "4MiB", "-i", "1")
NOBODY = 65534


def without_slurm() -> dict:
    return {key: value for key, value in os.environ.items() if not key.startswith("SLURM")}


def one_line_error(done: subprocess.CompletedProcess, message: str) -> None:
    assert (done.returncode, done.stderr) == (2, f"jiobench: error: {message}\n"), done


@pytest.mark.runs
def test_resume_keeps_a_file_of_another_sweep_that_took_the_same_name(tmp_path):
    """Point ids repeat from sweep to sweep: two sweeps given one -o name their points' files alike."""
    shared = tmp_path / "x" / "shared.dat"
    shared.parent.mkdir()
    made = sweep("--dir", "B", *ONE_POINT, "-o", str(shared), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    kept = sweep("--dir", "A", "--here", *ONE_POINT, "--keep", "-o", str(shared), cwd=tmp_path, env=without_slurm())
    assert kept.returncode == 0, kept.stderr
    theirs = shared.with_name("shared.dat.p1-n1")
    content, before = theirs.read_bytes(), manifest(tmp_path / "B")
    assert len(content) == 4 << 20
    for mode in ([], ["--here"]):
        done = sweep("--resume", "B", *mode, cwd=tmp_path, env=without_slurm())
        one_line_error(done, f"{theirs} exists, and the run of point p1-n1 would refuse to write over it: a killed "
                             "attempt of this sweep may have left it, or it is another's; remove it if it is this "
                             "sweep's and resume again (a sweep removes no file)")
        assert theirs.read_bytes() == content
        assert manifest(tmp_path / "B") == before, "nothing of the sweep changes"
    assert not list((tmp_path / "B" / "logs").iterdir())
    made_anew = sweep("--dir", "C", *ONE_POINT, "-o", str(shared), cwd=tmp_path)
    one_line_error(made_anew, f"{theirs} exists, and the run of point p1-n1 would refuse to write over it: pass "
                              "--overwrite after '--' to write over it, or give another -o")
    assert not (tmp_path / "C").exists()


def test_resume_never_removes_a_file_another_user_owns(tmp_path):
    """A run's file per rank (-F), named as the point's second rank would name its own, and owned
    by someone else: a leftover of this sweep's killed attempt or not, the sweep leaves it."""
    made = sweep("--dir", "sweep", "--procs", "2", "--", "-a", "raw-bytes", "-b", "4MiB", "-F", "-o", "f.dat",
                 cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    theirs = tmp_path / "f.dat.p1-n2.00000001"
    theirs.write_bytes(b"someone else's data\n")
    os.chown(theirs, NOBODY, NOBODY)
    done = sweep("--resume", "sweep", "--here", cwd=tmp_path, env=without_slurm())
    one_line_error(done, f"{theirs} exists, and the run of point p1-n2 would refuse to write over "
                         "it: a killed attempt of this sweep may have left it, or it is another's; remove it if it is "
                         "this sweep's and resume again (a sweep removes no file)")
    assert theirs.read_bytes() == b"someone else's data\n" and theirs.stat().st_uid == NOBODY


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """A sweep of one point, rendered (no mode): a manifest as the sweep writes it."""
    directory = tmp_path_factory.mktemp("rendered") / "sweep"
    done = sweep("--dir", str(directory), "--procs", "1", "--", *SMALL_RUNS, cwd=directory.parent)
    assert done.returncode == 0, done.stderr
    return directory


@pytest.mark.parametrize("change, problem", [
    (lambda m: m["points"][0].pop("id"), "points[0] lacks id"),
    (lambda m: m["points"][0].update(job_id=123), "points[0].job_id is 123, expected a non-empty text"),
    (lambda m: m.update(points=None), "points is null, expected a list"),
    (lambda m: m["points"][0].update(run_file="../elsewhere.json"),
     'points[0].run_file is "../elsewhere.json", expected "results/p1-n1.json"'),
    (lambda m: m.update(report={"job_id": 7, "state": "PENDING", "exit_code": None}),
     "report.job_id is 7, expected a non-empty text"),
])
@pytest.mark.parametrize("command", [["status"], ["--resume"]])
def test_a_manifest_that_does_not_hold_what_it_should_is_named_in_one_line(rendered, tmp_path, change, problem,
                                                                           command):
    directory = tmp_path / "sweep"
    shutil.copytree(rendered, directory)
    written = manifest(directory)
    change(written)
    (directory / "sweep.json").write_text(json.dumps(written))
    done = sweep(*command, str(directory), cwd=tmp_path)
    one_line_error(done, f"{directory}/sweep.json: {problem}")
    assert json.loads((directory / "sweep.json").read_text()) == written


@pytest.fixture
def unwritable(tmp_path):
    """Directories the sweep cannot write in, though it runs as root: a read-only mount, and an
    immutable directory."""
    read_only, immutable = tmp_path / "read-only", tmp_path / "immutable"
    read_only.mkdir()
    immutable.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(read_only)], check=True)
    subprocess.run(["chattr", "+i", str(immutable)], check=True)
    yield
    subprocess.run(["chattr", "-i", str(immutable)], check=True)
    subprocess.run(["umount", "-l", str(read_only)], check=True)


@pytest.mark.parametrize("path, message", [
    ("x/nonexist/../sw", "--dir x/nonexist/../sw: x/nonexist does not exist, so '..' after it names no directory"),
    ("a-file/sw", "--dir a-file/sw: a-file is not a directory"),
    ("read-only/sw", "--dir read-only/sw: cannot make a directory in read-only (not writable here)"),
    ("immutable/sw", "--dir immutable/sw: cannot make a directory in immutable (not writable here)"),
])
def test_a_dir_that_names_no_new_directory_is_refused_and_nothing_is_made(unwritable, tmp_path, path, message):
    (tmp_path / "x").mkdir()
    (tmp_path / "a-file").write_text("a file\n")
    before = sorted(tmp_path.rglob("*"))
    done = sweep("--dir", path, *ONE_POINT, cwd=tmp_path)
    one_line_error(done, message)
    assert sorted(tmp_path.rglob("*")) == before


def test_of_two_sweeps_started_at_once_on_one_dir_the_second_is_refused(tmp_path):
    started = [subprocess.Popen([str(JIOBENCH), "sweep", "--dir", "sweep", *ONE_POINT],
                                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(2)]
    ended = sorted(((process.wait(timeout=120), process.stderr.read()) for process in started))
    assert ended == [(0, ""), (2, "jiobench: error: sweep exists: a sweep starts in a new directory "
                                  "(jiobench sweep --resume sweep continues one)\n")], ended
    assert [point["state"] for point in manifest(tmp_path / "sweep")["points"]] == ["RENDERED"]


@pytest.mark.runs
def test_of_two_resumes_at_once_the_second_is_refused_naming_the_first(rendered, tmp_path):
    directory = tmp_path / "sweep"
    shutil.copytree(rendered, directory)
    written = manifest(directory)
    written["launcher"] = "mpirun"  # as made with --launcher mpirun
    (directory / "sweep.json").write_text(json.dumps(written))
    first = subprocess.Popen([str(JIOBENCH), "sweep", "--resume", str(directory), "--here"],
                             cwd=tmp_path, env=without_slurm(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    deadline = time.monotonic() + 60
    while manifest(directory)["points"][0]["state"] != "RUNNING":
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.05)
    second = sweep("--resume", str(directory), "--here", cwd=tmp_path, env=without_slurm())
    one_line_error(second, f"another jiobench sweep (PID {first.pid}) is working on {directory}: wait until it ends")
    out, err = first.communicate(timeout=240)
    assert first.returncode == 0, err
    point = manifest(directory)["points"][0]
    assert (point["state"], point["attempts"]) == ("COMPLETED", []), point


@pytest.mark.runs
def test_resume_here_runs_a_sweep_made_for_jobs_through_mpirun(rendered, tmp_path):
    directory = tmp_path / "sweep"
    shutil.copytree(rendered, directory)
    assert manifest(directory)["launcher"] == "srun", "a sweep made without a mode is made for jobs"
    done = sweep("--resume", str(directory), "--here", cwd=tmp_path, env=without_slurm())
    assert done.returncode == 0, done.stderr
    point = manifest(directory)["points"][0]
    assert point["state"] == "COMPLETED", point
    run = json.loads((directory / point["run_file"]).read_text())
    assert run["environment"]["launcher"] == "mpirun" and run["environment"]["slurm"] is None


def test_resume_here_of_a_sweep_that_chose_srun_is_refused(tmp_path):
    made = sweep("--dir", "sweep", "--launcher", "srun", *ONE_POINT, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    before = manifest(tmp_path / "sweep")
    done = sweep("--resume", "sweep", "--here", cwd=tmp_path, env=without_slurm())
    one_line_error(done, "point p1-n1 runs through srun (--launcher srun), which --here cannot: resume with --submit "
                         "or --allocation")
    assert manifest(tmp_path / "sweep") == before


@pytest.fixture
def slurm_down():
    """The environment of a Slurm whose daemons were started, then stopped: its clients find no
    controller to answer."""
    directory = Path(tempfile.mkdtemp(prefix="jiobench-slurm-down-"))
    directory.chmod(0o755)  # munged wants every directory above its socket searchable by all
    for action in ("start", "stop"):
        done = subprocess.run([str(CLUSTER), action, str(directory)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
    yield dict(without_slurm(), SLURM_CONF=str(directory / "slurm.conf"))
    shutil.rmtree(directory, ignore_errors=True)


def test_status_says_in_one_line_that_slurm_did_not_answer(rendered, tmp_path, slurm_down):
    directory = tmp_path / "sweep"
    shutil.copytree(rendered, directory)
    written = manifest(directory)
    written["points"][0].update(mode="submit", job_id="12", state="RUNNING")
    (directory / "sweep.json").write_text(json.dumps(written))
    started = time.monotonic()
    done = sweep("status", str(directory), cwd=tmp_path, env=slurm_down)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        "jiobench sweep: warning: Slurm did not answer (Slurmctld(primary) at "), done.stderr
    assert done.stderr.endswith(f" is DOWN); the states are the last it gave, kept in {directory}/sweep.json\n")
    assert "1 points: 1 RUNNING" in done.stdout, done.stdout
    assert took < 10, f"status took {took:.1f} s"
