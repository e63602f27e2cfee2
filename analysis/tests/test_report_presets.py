"""A preset sweep's report (jiobench sweep --preset): the paper's figure first, in operations per
second converted with the transfer counts the run files hold; the other figures as before."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from jiobench.model import sweepfile
from jiobench_analysis.operations import MIB, operation_rates
from jiobench_analysis.points import bandwidth_points, varied_parameters
from jiobench_analysis.runs import load_runs

from .handmade_runs import run_file
from .real_runs import run_report

RATES = {"c-posix": 8.0, "raw-stream": 4.0, "raw-bytes": 2.0}


def preset_sweep(directory: Path, name: str, x: str, split, sizes, orders=("sequential",)) -> Path:
    """A sweep directory as `jiobench sweep --preset` leaves it: a manifest naming the preset and
    a point per size (and order), each with its run file."""
    points = []
    for order in orders:
        for size in sizes:
            path = run_file(directory / "results", RATES, ranks=1, transfer_size=size, block_size=4096, order=order,
                            type="byte")
            vary = {"-t": str(size)} | ({"--order": order} if split else {})
            points.append({"id": path.stem, "procs": 1, "nodes": None, "vary": vary, "state": "COMPLETED",
                           "exit_code": "0", "job_id": None, "run_file": f"results/{path.name}"})
    sweepfile.write(directory, {"schema": sweepfile.SCHEMA, "points": points, "report": None,
                                "preset": {"name": name, "x": x, "split": split, "paper": "Xu and Guo, Figure 4.13"}})
    return directory


def test_operation_rates_are_the_runs_bandwidth_over_the_bytes_of_an_operation(tmp_path):
    sweep = preset_sweep(tmp_path / "sweep", "xu-guo-opsize", "transfer_size", None, (1, 64))
    runs = load_runs([str(sweep)])
    points = bandwidth_points(runs, varied_parameters(runs))
    rates = operation_rates(points, runs)
    for rate in ("median", "mean"):  # the figure's median and the tables' mean alike
        expected = points[rate] * MIB / points["transfer_size"]
        assert ((rates[rate] / expected - 1).abs() < 1e-9).all(), rates
    assert (rates["min"] <= rates["mean"]).all() and (rates["mean"] <= rates["max"]).all()


def test_the_transfer_count_is_what_converts_where_the_run_file_holds_one(tmp_path):
    """A deadline can cut a transfer short: its bytes count, its operation does not."""
    sweep = preset_sweep(tmp_path / "sweep", "xu-guo-opsize", "transfer_size", None, (64, 256))
    path = next((sweep / "results").glob("*.json"))
    run = json.loads(path.read_text())
    for phase in run["phases"]:
        phase["transfers"] //= 2
    path.write_text(json.dumps(run))
    runs = load_runs([str(sweep)])
    points = bandwidth_points(runs, varied_parameters(runs))
    rates = operation_rates(points, runs)
    halved = points["run_ids"] == run["run_id"]
    expected = points["mean"] * MIB / points["transfer_size"] / halved.map({True: 2, False: 1})
    assert halved.any() and ((rates["mean"] / expected - 1).abs() < 1e-9).all()


@pytest.mark.parametrize("split, orders, panel", [(None, ("sequential",), ">write<"),
                                                  ("order", ("sequential", "random"), ">write, order random<")])
def test_the_report_leads_with_the_papers_figure(tmp_path, split, orders, panel):
    sweep = preset_sweep(tmp_path / "sweep", "xu-guo-opsize", "transfer_size", split, (1, 8, 64), orders)
    done = run_report([str(sweep), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    page = (done.out / "report.html").read_text()
    figures = [part.split('"')[0] for part in page.split('<a href="')[1:] if part.split('"')[0].endswith(".png")]
    assert figures[0] == "operations-vs-transfer-size.png", figures
    assert {"bandwidth-vs-ranks.png", "bandwidth-vs-transfer-size.png"} <= set(figures)
    assert "Redraws Xu and Guo, Figure 4.13 (jiobench sweep --preset xu-guo-opsize)" in page
    svg = (done.out / "operations-vs-transfer-size.svg").read_text()
    assert "operations per second (log scale)" in svg and panel in svg
    if split:  # rows of panels in the sweep's order, not the alphabet's
        assert svg.index(">write, order sequential<") < svg.index(">write, order random<")


def test_a_sweep_without_a_preset_or_with_one_size_has_no_operations_figure(tmp_path):
    one_size = preset_sweep(tmp_path / "one", "xu-guo-opsize", "transfer_size", None, (64,))
    plain = preset_sweep(tmp_path / "plain", "xu-guo-opsize", "transfer_size", None, (1, 64))
    sweepfile.update(plain, lambda manifest: manifest.update(preset=None))
    for sweep in (one_size, plain):
        done = run_report([str(sweep), "-o", str(tmp_path / f"{sweep.name}-out")])
        assert done.code == 0, done.stderr
        assert not list(done.out.glob("operations-*")) and (done.out / "bandwidth-vs-ranks.png").is_file()
