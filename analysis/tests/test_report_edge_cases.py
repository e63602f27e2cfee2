"""What real quick runs cannot show: a c-posix reference beside approaches five orders of
magnitude slower, pooled runs, failed verification, a buffer-size sweep."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from .handmade_runs import run_file
from .real_runs import run_report
from jiobench.model import stats
from jiobench.model.reduce import measured_rates, summarize
from jiobench_analysis.points import bandwidth_points, varied_parameters
from jiobench_analysis.runs import load_runs

RATES = {"c-posix": 900.0, "raw-bytes": 850.0, "encode-decode": 300.0, "data-stream": 0.0007}


def test_runs_at_the_same_point_pool_their_phases_through_the_one_reduction(tmp_path):
    paths = [run_file(tmp_path, {"raw-bytes": 100.0}, seed=seed, file=f"/scratch/{seed}.dat")
             for seed in (1, 2)]
    runs = load_runs([str(tmp_path)])
    assert varied_parameters(runs) == []  # the file name does not change what is measured
    points = bandwidth_points(runs, [])
    phases = [p for path in paths for p in json.loads(path.read_text())["phases"]]
    for _, point in points.iterrows():
        (expected,) = summarize([p for p in phases if p["op"] == point["op"]])
        assert point["reps"] == 6 and point["runs"] == 2
        for stat in ("median", "mean", "min", "max", "stddev"):
            assert point[stat] == expected["bw_mib_s"][stat]
        assert [point["median_ci95_low"], point["median_ci95_high"]] == expected["median_ci95"]
        assert point["noisy"] == expected["noisy"]


def test_runs_that_differ_only_in_whose_block_each_rank_read_pool_together(tmp_path):
    """-C on two placements of the same ranks (node by node, round-robin): the blocks read follow
    from where the ranks ran, which is not a parameter of what is measured."""
    for seed, read_block_of in ((1, [2, 3, 0, 1]), (2, [1, 0, 3, 2])):
        run_file(tmp_path, {"raw-bytes": 100.0}, ranks=4, seed=seed, reorder=True, read_block_of=read_block_of)
    assert varied_parameters(load_runs([str(tmp_path)])) == []


def test_ratios_are_to_c_posix_at_the_same_op_and_ranks(tmp_path):
    paths = [run_file(tmp_path / "runs", RATES, ranks=ranks, seed=ranks, reps=6) for ranks in (1, 4)]
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    table = pd.read_csv(tmp_path / "out" / "bandwidth.csv")
    rates = {key: values for path in paths for key, values in measured_rates(json.loads(path.read_text())["phases"]).items()}
    for (op, ranks), rows in table.groupby(["op", "ranks"]):
        reference = rows.loc[rows["approach"] == "c-posix", "median_mib_s"].iloc[0]
        for _, row in rows.iterrows():
            if row["approach"] == "c-posix":  # no ratio to itself
                assert pd.isna(row["ratio_to_c-posix"]) and pd.isna(row["ratio_to_c-posix_verdict"])
                continue
            expected = stats.ratio(rates[(row["approach"], op, ranks)], rates[("c-posix", op, ranks)])
            assert row["ratio_to_c-posix"] == row["median_mib_s"] / reference == expected.value
            assert (row["ratio_to_c-posix_ci95_low"], row["ratio_to_c-posix_ci95_high"]) == expected.ci95
            assert row["ratio_to_c-posix_verdict"] == expected.verdict
    slow = table[table["approach"] == "data-stream"]
    assert ((slow["ratio_to_c-posix"] > 1e-7) & (slow["ratio_to_c-posix"] < 1e-5)).all()
    assert (slow["ratio_to_c-posix_verdict"] == "slower").all()
    assert "| ratio to c-posix |" in (tmp_path / "out" / "bandwidth.md").read_text()
    assert "/c-posix" in done.stdout.splitlines()[0]


def test_a_failed_verification_is_the_first_thing_the_page_says(tmp_path):
    run_file(tmp_path / "runs", {"raw-bytes": 100.0}, verified=False)
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    page = (tmp_path / "out" / "report.html").read_text()
    assert page.index("verification FAILED in 3 phases: raw-bytes read") < page.index("<figure>")
    assert '<tr class="failed">' in page
    assert "| NO |" in (tmp_path / "out" / "phases.md").read_text()
    assert "VERIFY FAILED" in done.stdout


def test_stonewalled_points_are_hollow_and_daggered(tmp_path):
    run_file(tmp_path / "runs", RATES, stonewalled=("data-stream",))
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    markdown = (tmp_path / "out" / "bandwidth.md").read_text()
    stonewalled = [line for line in markdown.splitlines() if "†" in line and line.startswith("|")]
    assert [line.split("|")[1].strip() for line in stonewalled] == ["data-stream", "data-stream"]
    svg = (tmp_path / "out" / "bandwidth-vs-ranks.svg").read_text()
    assert "hollow: stonewalled" in svg


def test_a_buffer_size_sweep_gets_its_own_figure(tmp_path):
    for buffer_size in (512, 8192, 65536):
        run_file(tmp_path / "runs", {"buffered-data-stream": 3.0 * buffer_size ** 0.1},
                 buffer_size=buffer_size, seed=buffer_size)
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    names = {path.name for path in (tmp_path / "out").iterdir()}
    assert {"bandwidth-vs-buffer-size.png", "bandwidth-vs-buffer-size.svg"} <= names
    assert "bandwidth-vs-transfer-size.png" not in names
    assert "buffer_size" in pd.read_csv(tmp_path / "out" / "bandwidth.csv").columns
    header = done.stdout.splitlines()[0].split()
    assert "buffer" in header


@pytest.mark.parametrize("approaches, reference", [
    (["raw-bytes", "c-posix"], "c-posix"), (["encode-decode", "raw-bytes"], "raw-bytes"), (["data-stream"], None)])
def test_the_reference_is_c_posix_else_raw_bytes(tmp_path, approaches, reference):
    run_file(tmp_path, {a: RATES[a] for a in approaches})
    points = bandwidth_points(load_runs([str(tmp_path)]), [])
    if reference:
        itself = points["approach"] == reference
        assert points.loc[itself, "ratio"].isna().all()  # none to itself
        assert points.loc[~itself, "ratio"].notna().all()
        assert points["approach"].iloc[0] == reference  # listed first
    else:
        assert points["ratio"].isna().all()


def test_a_phase_that_overran_its_deadline_is_marked_in_every_table(tmp_path):
    """A rank stopped 40 s past a 5 s deadline: its point and its phase carry § and the note says
    what it means; the terminal names it."""
    run_file(tmp_path / "runs", {"raw-bytes": 100.0, "encode-decode": 50.0}, paused={"encode-decode": 40.0})
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    bandwidth = (tmp_path / "out" / "bandwidth.md").read_text()
    marked = [line.split("|")[1:3] for line in bandwidth.splitlines() if "§" in line and line.startswith("|")]
    assert [[cell.strip() for cell in row] for row in marked] == [["encode-decode", "write"]]
    assert "§ overran its deadline: the slowest rank of some phases ended more than max(1 s, 25% of the " \
           "deadline, 2 of its own mean transfer times) past the deadline" in bandwidth
    phases = (tmp_path / "out" / "phases.md").read_text()
    marked = [line.split("|")[2:5] for line in phases.splitlines() if "§" in line and line.startswith("|")]
    assert [[cell.strip() for cell in row] for row in marked] == [["encode-decode", "write", "2"]]
    assert "§ overran its deadline" in phases
    points = pd.read_csv(tmp_path / "out" / "bandwidth.csv")
    assert points.set_index(["approach", "op"])["overran_deadline"].to_dict() == {
        ("raw-bytes", "write"): 0, ("raw-bytes", "read"): 0, ("encode-decode", "write"): 1,
        ("encode-decode", "read"): 0}
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("encode-decode  write")]
    assert "§ overran its deadline" in " ".join(done.stdout.split()), done.stdout
    assert "§" in row and "overran deadline" in row, done.stdout
    assert "§ 1 point overran the deadline" in (tmp_path / "out" / "report.html").read_text()


def test_run_files_from_before_the_overrun_mark_still_report(tmp_path):
    run_file(tmp_path / "runs", {"raw-bytes": 100.0}, paused={"raw-bytes": 40.0}, schema="jiobench-run/1")
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert "§" not in (tmp_path / "out" / "bandwidth.md").read_text()
