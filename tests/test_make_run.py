"""The README's first command, as a new user runs it: `make run` in a fresh clone."""
from __future__ import annotations

import json
import subprocess

import pytest

from testing import HOME

pytestmark = pytest.mark.install


def test_make_run_from_a_fresh_clone_runs_the_main_job_and_writes_the_report(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(HOME), str(clone)], check=True, timeout=120)
    made = subprocess.run(["make", "run"], cwd=clone, capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    run_files = list((clone / "results").glob("*.json"))
    assert len(run_files) == 1
    run = json.loads(run_files[0].read_text())
    approaches = {row["approach"] for row in run["summary"]}
    assert {"raw-bytes", "encode-decode", "data-stream", "buffered-data-stream", "byte-array-stream",
            "bulk-jni", "c-posix", "calibrate"} <= approaches
    assert run["environment"]["ranks"] == 2 and run["environment"]["launcher"] == "mpirun"
    assert all(phase["verified"] in (True, None) for phase in run["phases"])
    assert run["parameters"]["repetitions"] == "auto" and set(run["auto"]["stopped"]) == approaches, \
        "-i auto says why each approach stopped"
    assert all(row["reps"] >= 6 and row["median_ci95"] for row in run["summary"])
    assert "Summary of measured phases (warm-up excluded):" in made.stdout
    assert (clone / "report" / "report.html").is_file()
    assert not (clone / "scratch" / "jiobench.dat").exists(), "the main job cleans up its file"
