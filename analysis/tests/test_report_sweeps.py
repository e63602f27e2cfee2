"""A sweep's report: the runs of its points only, the points without a complete run file named
under the figure, and the JVM as a dimension of its own."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd

from jiobench.model import sweepfile
from jiobench_analysis.points import bandwidth_points, varied_parameters
from jiobench_analysis.runs import load_runs

from .handmade_runs import run_file
from .real_runs import JIOBENCH, run_report

JDK_17, JDK_25 = "17.0.15+6-Debian-1deb12u1", "25.0.3+9-LTS"


def on_jvm(path: Path, version: str, run_id: str = None, **top) -> Path:
    """The run file, as run on another JVM (and, given one, under another name or with other keys)."""
    run = json.loads(path.read_text())
    run["environment"]["jvm"]["version"] = version
    run.update(top)
    if run_id:
        path.unlink()
        run["run_id"], path = run_id, path.with_name(f"{run_id}.json")
    path.write_text(json.dumps(run))
    return path


def test_runs_on_two_jvms_are_two_points_and_a_figure(tmp_path):
    for seed, version in ((1, JDK_17), (2, JDK_25)):
        on_jvm(run_file(tmp_path / "runs", {"raw-bytes": 100.0 * seed, "data-stream": 0.5}, seed=seed), version)
    runs = load_runs([str(tmp_path / "runs")])
    assert varied_parameters(runs) == ["jvm"]
    points = bandwidth_points(runs, ["jvm"])
    assert sorted(points[points["approach"] == "raw-bytes"]["jvm"]) == [JDK_17, JDK_17, JDK_25, JDK_25]
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert (tmp_path / "out" / "bandwidth-vs-jvm.png").is_file()
    table = pd.read_csv(tmp_path / "out" / "bandwidth.csv")
    by_jvm = table[(table["approach"] == "raw-bytes") & (table["op"] == "write")].set_index("jvm")["mean_mib_s"]
    assert by_jvm[JDK_25] / by_jvm[JDK_17] > 1.9
    assert "Aggregate bandwidth vs JVM" in (tmp_path / "out" / "report.html").read_text()


def test_a_sweep_reports_its_points_and_names_each_one_short(tmp_path):
    # The manifest as `jiobench sweep` writes it (rendered, not submitted), then run files by hand.
    directory = tmp_path / "sweep"
    rendered = subprocess.run([str(JIOBENCH), "sweep", "--dir", str(directory), "--procs", "1,2,4", "--vary",
                               "-t=1MiB,4MiB", "--", "-a", "raw-bytes", "-b", "4MiB"],
                              capture_output=True, text=True, cwd=tmp_path)
    assert rendered.returncode == 0, rendered.stderr
    points = sweepfile.read(directory)["points"]
    made = tmp_path / "made"
    for index, point in enumerate(points[:4]):
        path = run_file(made, {"raw-bytes": 100.0}, ranks=point["procs"], seed=index,
                        transfer_size=point["parameters"]["transfer_size"])
        target = directory / point["run_file"]
        path.rename(target)
        on_jvm(target, JDK_17, run_id=point["id"],
               incomplete={"signal": "SIGTERM"} if index == 1 else None)
    # An earlier attempt set aside by --resume is not read.
    (directory / "attempts").mkdir()
    on_jvm(run_file(directory / "attempts", {"raw-bytes": 5.0}), JDK_17, run_id=points[0]["id"])

    def failed(manifest):
        manifest["points"][3].update(mode="submit", job_id="7", state="FAILED", exit_code="1:0")
        manifest["points"][4].update(mode="submit", job_id="8", state="CANCELLED", exit_code="0:15")
    sweepfile.update(directory, failed)

    done = run_report([str(directory), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "bandwidth.csv")
    assert set(table["run_ids"]) == {points[0]["id"], points[2]["id"], points[3]["id"]}
    assert (table["mean_mib_s"] > 90).all(), "the attempt set aside (5 MiB/s) is not in the figures"
    expected = [
        f"{points[1]['id']} (1 proc, -t 4MiB): incomplete: signal SIGTERM; RENDERED",
        f"{points[3]['id']} (2 procs, -t 4MiB): failed: FAILED, exit 1, job 7",
        f"{points[4]['id']} (4 procs, -t 1MiB): missing: no run file; CANCELLED, exit sig 15, job 8",
        f"{points[5]['id']} (4 procs, -t 4MiB): missing: no run file (not run yet); RENDERED",
    ]
    assert done.stdout.splitlines()[-6:-1] == ["Sweep points missing, incomplete or failed (4):",
                                               *(f"  {line}" for line in expected)]
    page = (tmp_path / "out" / "report.html").read_text()
    assert "4 sweep points failed, incomplete, missing" in page
    assert page.index("<figure>") < page.index(expected[0]) < page.index("Key numbers")


def test_a_sweep_without_a_complete_run_file_says_so(tmp_path):
    directory = tmp_path / "sweep"
    rendered = subprocess.run([str(JIOBENCH), "sweep", "--dir", str(directory), "--", "-a", "raw-bytes"],
                              capture_output=True, text=True, cwd=tmp_path)
    assert rendered.returncode == 0, rendered.stderr
    done = run_report([str(directory), "-o", str(tmp_path / "out")])
    assert (done.code, done.stderr) == (2, f"jiobench report: error: {directory}: no point of this sweep has a "
                                           f"complete run file yet (jiobench sweep status {directory} says why)\n")


def test_runs_on_two_file_systems_are_two_points_and_a_figure(tmp_path):
    for seed, (kind, rate) in enumerate((("ext4", 900.0), ("fuse.glusterfs", 300.0))):
        path = run_file(tmp_path / "runs", {"c-posix": rate, "raw-bytes": rate * 0.9}, seed=seed)
        run = json.loads(path.read_text())
        run["environment"]["filesystem"]["type"] = kind
        path.write_text(json.dumps(run))
    runs = load_runs([str(tmp_path / "runs")])
    assert varied_parameters(runs) == ["filesystem"]
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert (tmp_path / "out" / "bandwidth-vs-filesystem.png").is_file()
    table = pd.read_csv(tmp_path / "out" / "bandwidth.csv")
    assert set(table["filesystem"]) == {"ext4", "fuse.glusterfs"}
    # Each file system's ratios are to its own c-posix.
    assert table[table["approach"] == "raw-bytes"]["ratio_to_c-posix"].round(1).tolist() == [0.9] * 4
