"""`jiobench report` over real runs: the files it writes, their numbers, the page in a browser."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pandas as pd
import pytest
from matplotlib import image

from .real_runs import RATE, run_report
from jiobench.model.reduce import summarize
from jiobench_analysis.terminal import WIDTH

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FIGURES = ("bandwidth-vs-ranks", "bandwidth-vs-transfer-size", "rank-times")


def run_files(directory: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(directory.glob("*.json"))]


def assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == PNG_MAGIC, path
    pixels = image.imread(path)
    assert pixels.ndim == 3 and pixels.shape[0] > 100 and pixels.shape[1] > 100


def assert_svg(path: Path) -> ElementTree.Element:
    root = ElementTree.parse(path).getroot()
    assert root.tag in ("svg", "{http://www.w3.org/2000/svg}svg"), root.tag
    return root


def svg_text(path: Path) -> str:
    return " ".join(t for t in assert_svg(path).itertext())


def test_report_writes_the_page_figures_and_tables(real_report):
    names = {path.name for path in real_report.out.iterdir()}
    assert "report.html" in names
    for stem in FIGURES:
        assert {f"{stem}.png", f"{stem}.svg"} <= names
    assert {"bandwidth.csv", "bandwidth.md", "phases.csv", "phases.md"} <= names
    # The sweep holds one buffer size only: no figure over it.
    assert "bandwidth-vs-buffer-size.png" not in names


def test_every_figure_is_a_valid_png_and_svg(real_report):
    for stem in FIGURES:
        assert_png(real_report.out / f"{stem}.png")
        assert "calibrate" in svg_text(real_report.out / f"{stem}.svg")


def test_the_bandwidth_table_holds_the_run_files_summary_numbers(real_report, real_runs):
    table = pd.read_csv(real_report.out / "bandwidth.csv")
    runs = run_files(real_runs.sweep)
    checked = 0
    for run in runs:
        for row in run["summary"]:
            match = table[(table["approach"] == row["approach"]) & (table["op"] == row["op"])
                          & (table["ranks"] == row["ranks"])
                          & (table["transfer_size"] == run["parameters"]["transfer_size"])]
            assert len(match) == 1
            point = match.iloc[0]
            if point["runs"] == 1:
                expected = row
            else:  # several runs at the point: their phases pooled by the one reduction
                together = [r for r in runs if r["run_id"] in point["run_ids"].split()]
                expected = summarize([p for r in together for p in r["phases"]
                                      if (p["approach"], p["op"]) == (row["approach"], row["op"])])[0]
            for stat in ("mean", "min", "max", "stddev"):
                assert point[f"{stat}_mib_s"] == expected["bw_mib_s"][stat]
            assert point["reps"] == expected["reps"]
            checked += 1
    assert checked == len(table) == 6  # (1 MiB at 1 and 2 ranks, 256 KiB at 2) x (write, read)


def test_the_calibrate_rate_is_never_beaten(real_report):
    # calibrate waits at least its programmed time per transfer, and longer when the machine's
    # cores are busy with other work (tests of other parts may run beside these): no repetition
    # is faster than ranks x the programmed rate, and even a loaded machine keeps a quarter of it.
    table = pd.read_csv(real_report.out / "bandwidth.csv")
    for _, point in table.iterrows():
        programmed = point["ranks"] * RATE
        assert programmed / 4 < point["min_mib_s"] <= point["max_mib_s"] <= programmed * 1.01


def test_the_markdown_table_shows_the_same_medians_and_means(real_report):
    table = pd.read_csv(real_report.out / "bandwidth.csv")
    markdown = (real_report.out / "bandwidth.md").read_text()
    assert "No ratio: the runs measured neither c-posix nor raw-bytes." in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| calibrate ")]
    assert len(rows) == len(table)
    for line, (_, point) in zip(rows, table.iterrows()):
        assert (f"| {point['median_mib_s']:.1f} | {point['median_ci95_low_mib_s']:.1f}–"
                f"{point['median_ci95_high_mib_s']:.1f}") in line
        assert f"| {point['mean_mib_s']:.1f} |" in line


def test_the_terminal_summary_fits_80_columns_and_ends_with_the_page(real_report):
    lines = real_report.stdout.rstrip("\n").splitlines()
    assert all(len(line) <= WIDTH for line in lines), [line for line in lines if len(line) > WIDTH]
    assert lines[0].split()[:3] == ["approach", "op", "ranks"]
    assert "MiB/s" in lines[0]
    assert lines[-1] == str(real_report.out / "report.html")
    assert sum(line.startswith("calibrate ") for line in lines) == 6


def test_the_page_is_self_contained(real_report):
    page = (real_report.out / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') == len(FIGURES)
    assert "http://" not in page and "https://" not in page


def test_the_page_names_every_run_and_its_environment(real_report, real_runs):
    page = (real_report.out / "report.html").read_text()
    for run in run_files(real_runs.sweep):
        assert run["run_id"] in page
        assert run["environment"]["jvm"]["version"] in page
        assert run["environment"]["filesystem"]["type"] in page


def chromium_screenshot(page: Path, tmp_path: Path) -> Path:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    shot = tmp_path / "screenshot.png"
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1280,2000",
               page.resolve().as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return shot


def test_the_page_renders_in_headless_chromium(real_report, tmp_path):
    shot = chromium_screenshot(real_report.out / "report.html", tmp_path)
    assert_png(shot)
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (2000, 1280)
    assert pixels.std() > 0.05  # not a blank page
    assert (pixels.mean(axis=2) < 0.9).mean() > 0.02  # text, figure lines and markers cover some of it


@pytest.fixture(scope="module")
def mixed_report(real_runs, tmp_path_factory):
    done = run_report([str(real_runs.mixed), "-o", str(tmp_path_factory.mktemp("mixed-report"))])
    assert done.code == 0, done.stderr
    return done


def test_stonewalled_points_are_marked_in_tables_and_figures(mixed_report, real_runs):
    (run,) = run_files(real_runs.mixed)
    table = pd.read_csv(mixed_report.out / "bandwidth.csv")
    stonewalled = {(r["approach"], r["op"]) for r in run["summary"] if r["stonewalled"]}
    assert stonewalled, "the data-stream phases should have hit the deadline"
    for _, point in table.iterrows():
        assert bool(point["stonewalled"]) == ((point["approach"], point["op"]) in stonewalled)
    page = (mixed_report.out / "report.html").read_text()
    assert page.count('<tr class="stonewalled">') >= len(stonewalled)
    assert "† stonewalled" in (mixed_report.out / "bandwidth.md").read_text()
    assert "hollow: stonewalled" in svg_text(mixed_report.out / "bandwidth-vs-ranks.svg")
    assert "stonewalled" in mixed_report.stdout


def test_each_phase_shows_its_verification(mixed_report, real_runs):
    (run,) = run_files(real_runs.mixed)
    phases = pd.read_csv(mixed_report.out / "phases.csv")
    assert len(phases) == len(run["phases"])
    for (_, row), phase in zip(phases.iterrows(), run["phases"]):
        expected = {True: "True", False: "False", None: "nan"}[phase["verified"]]
        assert str(row["verified"]) == expected
        assert row["bw_mib_s"] == phase["bw_mib_s"]
    markdown = (mixed_report.out / "phases.md").read_text()
    assert "| yes |" in markdown and "| not checked |" in markdown


def test_ratios_use_raw_bytes_when_there_is_no_c_posix(mixed_report):
    table = pd.read_csv(mixed_report.out / "bandwidth.csv")
    assert "ratio_to_raw-bytes" in table.columns
    for op in ("write", "read"):
        rows = table[table["op"] == op].set_index("approach")
        slow = rows.loc["data-stream"]
        assert slow["ratio_to_raw-bytes"] == pytest.approx(slow["median_mib_s"] / rows.loc["raw-bytes", "median_mib_s"])
        # 2 repetitions a side: too few for an interval.
        assert pd.isna(slow["ratio_to_raw-bytes_ci95_low"]) and slow["ratio_to_raw-bytes_verdict"] == "unclear"
        # None for the reference itself, none for calibrate, which runs at a rate it is told.
        assert rows.loc[["raw-bytes", "calibrate"], "ratio_to_raw-bytes"].isna().all()
    markdown = (mixed_report.out / "bandwidth.md").read_text()
    assert "ratio to raw-bytes" in markdown and "x (n<6) unclear |" in markdown


@pytest.fixture(scope="module")
def versus_c_report(real_runs, tmp_path_factory):
    done = run_report([str(real_runs.versus_c), "-o", str(tmp_path_factory.mktemp("versus-c-report"))])
    assert done.code == 0, done.stderr
    return done


def test_data_stream_is_slower_than_c_in_every_table(versus_c_report):
    out = versus_c_report.out
    table = pd.read_csv(out / "bandwidth.csv").set_index(["approach", "op"])
    for op in ("write", "read"):
        slow = table.loc[("data-stream", op)]
        assert slow["reps"] == 6
        assert slow["ratio_to_c-posix_ci95_high"] < 0.1 and slow["ratio_to_c-posix_verdict"] == "slower"
    assert [line.split()[:2] for line in versus_c_report.stdout.splitlines() if line.rstrip().endswith("slower")
            or line.rstrip().endswith("slower  noisy")] == [["data-stream", "write"], ["data-stream", "read"]]
    markdown = (out / "bandwidth.md").read_text()
    assert sum(line.startswith("| data-stream |") and "] slower |" in line for line in markdown.splitlines()) == 2
    page = (out / "report.html").read_text()
    assert page.count("] slower</td>") == 2 * 2  # the key numbers and the bandwidth table
    assert page.count("slower than c-posix: <b>data-stream</b>") == 2


def test_calibrate_has_no_ratio_in_any_table(versus_c_report):
    out = versus_c_report.out
    table = pd.read_csv(out / "bandwidth.csv")
    calibrate = table[table["approach"] == "calibrate"]
    assert len(calibrate) == 2
    ratio_columns = [c for c in table.columns if c.startswith("ratio_to_c-posix")]
    assert len(ratio_columns) == 4 and calibrate[ratio_columns].isna().all().all()
    ratio = re.compile(r"\dx\b")  # a ratio such as 0.98x
    lines = [line for line in versus_c_report.stdout.splitlines() if line.startswith("calibrate")]
    assert len(lines) == 2 and not any(ratio.search(line) for line in lines)
    markdown = (out / "bandwidth.md").read_text().splitlines()
    column = next(line for line in markdown if line.startswith("| approach")).split("|").index(" ratio to c-posix ")
    rows = [line.split("|") for line in markdown if line.startswith("| calibrate |")]
    assert len(rows) == 2 and all(row[column] == " - " for row in rows)
    page = (out / "report.html").read_text()
    rows = re.findall(r"<tr[^>]*><td>calibrate</td>.*?</tr>", page)
    assert len(rows) == 1 + 2  # the key numbers, the bandwidth table
    assert not any(ratio.search(row) for row in rows)
    assert "calibrate" not in page[page.index('<ul class="headline">'):page.index("</ul>")]


def test_a_single_process_count_gives_one_column_per_approach(mixed_report):
    text = svg_text(mixed_report.out / "bandwidth-vs-ranks.svg")
    for approach in ("raw-bytes", "calibrate", "data-stream"):
        assert approach in text
    assert "raw-bytes (reference)" in text
    assert_png(mixed_report.out / "bandwidth-vs-ranks.png")


def test_the_runs_noise_is_in_its_details(versus_c_report, real_runs):
    """The runner's `noise` (schema 3): load average at start and end, and its calibrate phases."""
    (run,) = run_files(real_runs.versus_c)
    page = (versus_c_report.out / "report.html").read_text()
    assert "<th>noise (load average 1/5/15 min; calibrate)</th>" in page
    host = run["environment"]["hosts"][0]
    assert re.search(rf"<td>start {host} [\d.]+/[\d.]+/[\d.]+; end {host} [\d.]+/[\d.]+/[\d.]+; calibrate ±[\d.]+%, "
                     r"at worst -?[\d.]+% below its programmed rate</td>", page)
