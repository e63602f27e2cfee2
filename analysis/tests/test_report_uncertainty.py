"""What the report says of a ratio follows its interval: headlines name faster and slower
findings, `same` is "at C's level", unclear ones are not findings; noisy points are named, and a
run file's `noise` is shown."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pandas as pd

from .handmade_runs import run_file
from .real_runs import run_report

STEADY = [1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03, 0.97]
# Repetitions scattered over a factor of 15: the interval of a ratio to them spans more than 2x.
SCATTERED = [0.2, 3.0, 0.5, 2.0, 0.4, 2.5, 1.0, 0.3]


def headline(out: Path) -> dict[str, str]:
    """The page's headline sentences by op, as text."""
    page = (out / "report.html").read_text()
    items = re.findall(r"<li><b>(write|read)</b>: (.*?)</li>", page[page.index('<ul class="headline">'):])
    return {op: html.unescape(re.sub(r"<[^>]+>", "", text)) for op, text in items}


def report(tmp_path: Path, rates: dict, rep_factors: dict) -> Path:
    run_file(tmp_path / "runs", rates, rep_factors=rep_factors)
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    return tmp_path / "out"


def test_headlines_name_the_findings_and_say_same_as_at_cs_level(tmp_path):
    rates = {"c-posix": 900.0, "nio-bulk": 1200.0, "raw-bytes": 900.0, "encode-decode": 900.0,
             "data-stream": 0.0007, "calibrate": 64.0}
    out = report(tmp_path, rates, {approach: SCATTERED if approach == "encode-decode" else STEADY
                                   for approach in rates})
    table = pd.read_csv(out / "bandwidth.csv").set_index(["approach", "op"])
    verdicts = table["ratio_to_c-posix_verdict"]
    assert (verdicts.loc["nio-bulk"] == "faster").all() and (verdicts.loc["raw-bytes"] == "same").all()
    assert (verdicts.loc["encode-decode"] == "unclear").all() and (verdicts.loc["data-stream"] == "slower").all()
    sentences = headline(out)
    assert set(sentences) == {"write", "read"}
    for op, text in sentences.items():
        faster = table.loc[("nio-bulk", op)]
        assert (f"faster than c-posix: nio-bulk {faster['ratio_to_c-posix']:.2f}x "
                f"[{faster['ratio_to_c-posix_ci95_low']:.3f}, {faster['ratio_to_c-posix_ci95_high']:.3f}]") in text
        assert "at C's level: raw-bytes;" in text  # a verdict, not a number
        assert "slower than c-posix: data-stream 7." in text
        assert "encode-decode" not in text and "1 approach unclear" in text
        assert "calibrate" not in text


def test_with_raw_bytes_as_reference_same_is_at_its_level(tmp_path):
    out = report(tmp_path, {"raw-bytes": 100.0, "raw-stream": 100.0}, {})
    for text in headline(out).values():  # 3 repetitions a side: too few for a verdict
        assert re.fullmatch(r"raw-bytes [\d.]+ MiB/s; 1 approach unclear \(in the table\)", text), text
    out = report(tmp_path / "more", {"raw-bytes": 100.0, "raw-stream": 100.0}, {"raw-bytes": STEADY,
                                                                                "raw-stream": STEADY})
    for text in headline(out).values():
        assert "at the level of raw-bytes: raw-stream" in text


def test_without_a_reference_the_headline_lists_medians_only(tmp_path):
    out = report(tmp_path, {"data-stream": 2.0, "encode-decode": 40.0}, {})
    for text in headline(out).values():
        assert re.fullmatch(r"medians encode-decode [\d.]+ MiB/s, data-stream [\d.]+ MiB/s", text), text


def test_noisy_points_are_named_with_what_to_do(tmp_path):
    out = report(tmp_path, {"c-posix": 900.0, "encode-decode": 900.0},
                 {"c-posix": STEADY, "encode-decode": SCATTERED})
    table = pd.read_csv(out / "bandwidth.csv").set_index("approach")
    assert not table.loc["c-posix", "noisy"].any() and table.loc["encode-decode", "noisy"].all()
    advice = "run more repetitions (-i, or -i auto), longer phases (-b), or on a quieter node."
    markdown = (out / "bandwidth.md").read_text()
    rows = [line for line in markdown.splitlines() if line.startswith("| encode-decode")]
    assert len(rows) == 2 and all(" noisy |" in line for line in rows)
    assert not any(" noisy |" in line for line in markdown.splitlines() if line.startswith("| c-posix"))
    assert markdown.rstrip().endswith(advice)
    page = html.unescape((out / "report.html").read_text())
    assert "2 points noisy" in page and page.count(advice) == 2  # under the key numbers and the table


def test_a_run_files_noise_is_shown_in_its_details_and_may_be_absent(tmp_path):
    quiet = run_file(tmp_path / "runs", {"raw-bytes": 100.0})
    noisy = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, seed=2, file="/scratch/other.dat")
    run = json.loads(noisy.read_text())
    run["noise"] = {"load_average": {"start": {"node0": [0.52, 0.4, 0.33]}, "end": {"node0": [1.1, 0.8, 0.41]}},
                    "calibrate": {"programmed_mib_s": 128.0, "median_mib_s": {"write": 127.0},
                                  "widest_share": 0.009, "slowest_share": 0.02}}
    noisy.write_text(json.dumps(run))
    done = run_report([str(tmp_path / "runs"), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    page = html.unescape((tmp_path / "out" / "report.html").read_text())
    assert "noise (load average 1/5/15 min; calibrate)" in page
    assert ("start node0 0.52/0.40/0.33; end node0 1.10/0.80/0.41; calibrate ±0.9%, at worst 2.0% below its "
            "programmed rate") in page
    row = page[page.index(f"<td>{json.loads(quiet.read_text())['run_id']}</td>"):]
    assert row[:row.index("</tr>")].endswith("<td>-</td>")
