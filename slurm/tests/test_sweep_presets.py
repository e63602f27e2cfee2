"""`jiobench sweep --preset`: Xu and Guo's experiments as named sweeps, checked with the runner's
own parser (real JVMs), the user's options replacing the preset's, and one preset run for real."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from test_sweep import manifest, sweep

SHARED = ["-b", "16MiB", "-D", "0.2", "-i", "auto", "--time-budget", "20s", "--warmup", "1"]


def points(directory: Path) -> list[tuple[str, list[str]]]:
    """Each point's id and the runner options before its own test file and results."""
    return [(point["id"], point["runner_args"][:-4]) for point in manifest(directory)["points"]]


@pytest.mark.parametrize("preset, first, last, count, args", [
    ("xu-guo-opsize", "p1-n1-t1", "p7-n1-t1MiB", 7,
     ["-a", "raw-stream,raw-bytes,bulk-jni,c-posix", "--type", "byte", "--order", "sequential", *SHARED, "-t"]),
    ("xu-guo-buffer", "p1-n1-buffer-size-128", "p7-n1-buffer-size-10MiB", 7,
     ["-a", "buffered-stream,direct-buffering,c-stdio,raw-stream", "--type", "byte", "-t", "1",
      "--order", "sequential", *SHARED, "--buffer-size"]),
    ("xu-guo-random", "p1-n1-order-sequential-t1", "p6-n1-order-random-t4KiB", 6,
     ["-a", "raw-stream,raw-bytes,c-posix", "--type", "byte", *SHARED, "--order"]),
    ("xu-guo-jni", "p1-n1-t1", "p6-n1-t64KiB", 6,
     ["-a", "bulk-jni,c-posix,raw-bytes", "--type", "byte", "--order", "sequential", *SHARED, "-t"]),
])
def test_a_preset_is_its_points_each_checked_by_the_runner(tmp_path, preset, first, last, count, args):
    done = sweep("--dir", "s", "--preset", preset, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"{count} points in s, each checked with the runner's options" in done.stdout
    rendered = points(tmp_path / "s")
    assert (rendered[0][0], rendered[-1][0], len(rendered)) == (first, last, count)
    assert all(words[:len(args)] == args for _, words in rendered), rendered
    kept = manifest(tmp_path / "s")["preset"]
    assert kept["name"] == preset and kept["paper"].startswith("Xu and Guo, Figure")
    checked = [point["parameters"] for point in manifest(tmp_path / "s")["points"]]
    assert {(p["type"], p["block_size"], p["deadline_s"], p["repetitions"], p["time_budget_s"]) for p in checked} == {
        ("byte", 16 << 20, 0.2, "auto", 20.0)}


def test_the_users_options_and_lists_replace_the_presets(tmp_path):
    done = sweep("--dir", "s", "--preset", "xu-guo-random", "--vary", "-t=8,64", "--vary", "--seed=1,2", "--",
                 "--block-size", "64MiB", "-D", "0.5", "--verify", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rendered = points(tmp_path / "s")
    assert [point_id for point_id, _ in rendered] == [
        "p1-n1-order-sequential-t8-seed-1", "p2-n1-order-sequential-t8-seed-2", "p3-n1-order-sequential-t64-seed-1",
        "p4-n1-order-sequential-t64-seed-2", "p5-n1-order-random-t8-seed-1", "p6-n1-order-random-t8-seed-2",
        "p7-n1-order-random-t64-seed-1", "p8-n1-order-random-t64-seed-2"]
    assert rendered[-1][1] == ["-a", "raw-stream,raw-bytes,c-posix", "--type", "byte", "-i", "auto",
                               "--time-budget", "20s", "--warmup", "1", "--block-size", "64MiB", "-D", "0.5",
                               "--verify", "--order", "random", "-t", "64", "--seed", "2"]


@pytest.mark.parametrize("repetitions", [["-i", "6"], ["-i6"], ["--repetitions=6"], ["--repetitions", "6"]])
def test_a_count_of_repetitions_replaces_auto_and_its_budget(tmp_path, repetitions):
    """The preset's --time-budget belongs to its -i auto, which the runner would refuse beside a count."""
    done = sweep("--dir", "s", "--preset", "xu-guo-jni", "--vary", "-t=4KiB", "--", *repetitions, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (point,) = manifest(tmp_path / "s")["points"]
    assert point["runner_args"][:-4] == ["-a", "bulk-jni,c-posix,raw-bytes", "--type", "byte", "--order",
                                         "sequential", "-b", "16MiB", "-D", "0.2", "--warmup", "1", *repetitions,
                                         "-t", "4KiB"]
    assert point["parameters"]["repetitions"] == 6


def test_a_budget_of_the_users_replaces_the_presets(tmp_path):
    done = sweep("--dir", "s", "--preset", "xu-guo-jni", "--vary", "-t=4KiB", "--", "--time-budget", "1m",
                 cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (point,) = manifest(tmp_path / "s")["points"]
    assert (point["parameters"]["repetitions"], point["parameters"]["time_budget_s"]) == ("auto", 60.0)


@pytest.mark.parametrize("arguments, message", [
    (["--preset", "xu-guo-nosuch"],
     "--preset xu-guo-nosuch: no such preset (xu-guo-opsize, xu-guo-buffer, xu-guo-random, xu-guo-jni)"),
    (["--preset", "xu-guo-opsize", "--", "--transfer-size=4KiB"],
     "-t: the preset xu-guo-opsize varies it; --vary -t=V1,V2,... gives its values"),
    (["--preset", "xu-guo-jni", "--vary", "-t=1,3", "--", "-b", "4MiB"],
     "point 2 of 2, p2-n1-t3 (1 proc, -t 3): block size 4MiB is not a multiple of transfer size 3B"),
])
def test_a_mistake_with_a_preset_is_one_line_and_leaves_nothing(tmp_path, arguments, message):
    done = sweep("--dir", "s", *arguments, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, f"jiobench: error: {message}\n")
    assert not (tmp_path / "s").exists()


def test_help_lists_the_presets_one_line_each(tmp_path):
    done = sweep("--help", cwd=tmp_path)
    lines = [line for line in done.stdout.splitlines() if line.startswith("  xu-guo-")]
    assert [line.split()[0] for line in lines] == ["xu-guo-opsize", "xu-guo-buffer", "xu-guo-random", "xu-guo-jni"]
    assert all(len(line) <= 80 and "Fig" in line for line in lines), lines


@pytest.mark.runs
def test_a_preset_runs_here_and_its_report_leads_with_the_papers_figure(tmp_path):
    directory = tmp_path / "s"
    done = sweep("--dir", str(directory), "--preset", "xu-guo-opsize", "--vary", "-t=1,4KiB", "--here", "--",
                 "-a", "raw-stream,c-posix", "-b", "16MiB", "-D", "0.05", "--time-budget", "2s", "--warmup", "0",
                 cwd=tmp_path, env={k: v for k, v in os.environ.items() if not k.startswith("SLURM")})
    assert done.returncode == 0, done.stderr
    assert "2 points: 2 COMPLETED; run files: 2 complete" in done.stdout
    for point in manifest(directory)["points"]:
        run = json.loads((directory / point["run_file"]).read_text())
        assert run["parameters"]["type"] == "byte" and run["parameters"]["approaches"] == ["raw-stream", "c-posix"]
        assert run["parameters"]["repetitions"] == "auto" and run["parameters"]["time_budget_s"] == 2.0
        assert {stop["reps"] >= 6 for stop in run["auto"]["stopped"].values()} == {True}, run["auto"]
        size = run["parameters"]["transfer_size"]
        assert all(phase["transfers"] * size == phase["bytes"] for phase in run["phases"]
                   if not phase["stonewalled"]), run["phases"]
    page = (directory / "report" / "report.html").read_text()
    assert page.index("operations-vs-transfer-size.png") < page.index("bandwidth-vs-ranks.png")
    assert "Redraws Xu and Guo, Figure 4.13" in page
