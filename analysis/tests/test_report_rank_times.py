"""The figure of the ranks' times in each phase, drawn from a run's per-rank records: from the
per-rank file beside a run file of schema 4, from the records older run files hold, and none (with
one warning line where a per-rank file is missing) where a run file has no records to draw."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from jiobench.model import perrank

from .handmade_runs import run_file
from .real_runs import run_report

FIGURE = ("rank-times.png", "rank-times.svg")


def report_of(tmp_path: Path, *inputs: Path):
    done = run_report([*map(str, inputs), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    return done


def slowest_of_all(page: str) -> float:
    return float(re.search(r"Slowest of all: [^,]*, ([0-9.]+)× its median", page).group(1))


def test_a_run_file_of_schema_4_has_the_figure_from_its_per_rank_file(tmp_path):
    path = run_file(tmp_path / "runs", {"c-posix": 200.0, "raw-bytes": 100.0}, ranks=8, spread=0.3)
    assert json.loads(path.read_text())["per_rank_file"], "the records are in the per-rank file only"
    done = report_of(tmp_path, path)
    assert all((done.out / name).is_file() for name in FIGURE) and done.stderr == ""
    page = (done.out / "report.html").read_text()
    assert "The ranks&#x27; times in each phase" in page and "rank-times.svg" in page
    records = perrank.frame(path)
    by_phase = records.groupby(["approach", "op", "fork", "rep"], observed=True)["elapsed_s"]
    assert slowest_of_all(page) == round((by_phase.max() / by_phase.median()).max(), 2)


def test_run_files_before_the_per_rank_file_have_the_figure_from_the_records_they_hold(tmp_path):
    kept = Path(__file__).parent / "runs" / "schema-2-two-ranks.json"  # bench/bulk.sh's, as jiobench wrote it then
    assert "per_rank" in json.loads(kept.read_text())
    shutil.copy(kept, tmp_path / kept.name)
    assert all((report_of(tmp_path / "2", tmp_path / kept.name).out / name).is_file() for name in FIGURE)
    handmade = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, ranks=4, schema="jiobench-run/3")
    assert all((report_of(tmp_path / "3", handmade).out / name).is_file() for name in FIGURE)


def test_a_missing_per_rank_file_is_one_warning_and_the_report_goes_on_without_the_figure(tmp_path):
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, ranks=4)
    (path.parent / json.loads(path.read_text())["per_rank_file"]).unlink()
    done = report_of(tmp_path, path)
    assert done.stderr.splitlines() == [
        f"jiobench report: warning: {path}: its per-rank file {path.stem}.ranks.parquet is missing: no figure of "
        "the ranks' times"]
    assert not any((done.out / name).exists() for name in FIGURE)
    assert (done.out / "bandwidth-vs-ranks.png").is_file()


def test_a_run_file_written_without_the_records_has_no_figure_and_no_warning(tmp_path):
    """As a rank that survived lost rank 0 writes it: rank 0 held the records."""
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, ranks=4)
    run = json.loads(path.read_text())
    (path.parent / run["per_rank_file"]).unlink()
    run.update(per_rank_file=None, per_rank_rows=None)
    path.write_text(json.dumps(run))
    done = report_of(tmp_path, path)
    assert done.stderr == "" and not any((done.out / name).exists() for name in FIGURE)


def test_a_run_file_and_its_per_rank_file_renamed_together_still_draw_it(tmp_path):
    """As a sweep's --resume sets an attempt aside: both files get the point's id and the attempt's number."""
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, ranks=4)
    (path.parent / f"{path.stem}.ranks.parquet").rename(path.parent / "p1.2.ranks.parquet")
    path = path.rename(path.parent / "p1.2.json")
    assert all((report_of(tmp_path, path).out / name).is_file() for name in FIGURE)


def rewritten(path: Path, change) -> Path:
    """The run's per-rank file written again with its records as `change` (records -> records) leaves them."""
    per_rank = path.parent / json.loads(path.read_text())["per_rank_file"]
    frame = perrank.frame(path)
    records = frame.astype(object).where(frame.notna(), None).to_dict("records")
    per_rank.unlink()
    stream = perrank.Stream(str(per_rank))
    stream.append(change(records))
    stream.close()
    return per_rank


def one_slower_tenfold(records: list) -> list:
    records[2]["elapsed_s"] *= 10
    return records


def renumbered(records: list) -> list:
    records[1]["rank"] = 0
    return records


@pytest.mark.parametrize("change, disagreement", [
    (one_slower_tenfold, lambda run, records: (
        f"raw-bytes write fork 1 rep 0: its slowest rank took {records['elapsed_s'][:4].max():.7g} s, where the run "
        f"file says {run['phases'][0]['seconds']:.7g} s (seconds)")),
    (lambda records: records + records, lambda run, records: "48 rows, where per_rank_rows says 24"),
    (lambda records: records[:4] + records[8:] + records[4:8], lambda run, records: (
        "its phase 2 is raw-bytes write fork 1 rep 2, where the run file's is raw-bytes write fork 1 rep 1")),
    (renumbered, lambda run, records: "raw-bytes write fork 1 rep 0: its rows are not ranks 0 to 3, one each"),
    (lambda records: [dict(record, bytes=record["bytes"] // 2) for record in records], lambda run, records: (
        "raw-bytes write fork 1 rep 0: its ranks moved 16777216 bytes in all, where the run file says 33554432 "
        "(and 5 other phases)")),
], ids=["a-rank-ten-times-slower", "rows-doubled", "phases-out-of-order", "a-rank-twice", "half-the-bytes"])
def test_a_per_rank_file_that_contradicts_its_run_file_is_one_warning_and_draws_no_figure(tmp_path, change,
                                                                                             disagreement):
    """The figure is the per-rank file's alone; the tables, the JSON's. A per-rank file whose rows,
    phases, ranks, sums or slowest, median and fastest times are not what the JSON says of them
    (another run's put in its place, one altered or cut) draws nothing, and the warning says where
    they part."""
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0}, ranks=4)
    per_rank = rewritten(path, change)
    done = report_of(tmp_path, path)
    said = disagreement(json.loads(path.read_text()), pd.read_parquet(per_rank))
    assert done.stderr.splitlines() == [
        f"jiobench report: warning: {per_rank} contradicts its run file {path.name}: {said}: no figure of the ranks' "
        "times"]
    assert not any((done.out / name).exists() for name in FIGURE)
    assert (done.out / "bandwidth-vs-ranks.png").is_file() and (done.out / "report.html").is_file()


def test_a_per_rank_file_that_agrees_with_its_run_file_to_float32_s_digits_draws_the_figure(tmp_path):
    path = run_file(tmp_path / "runs", {"raw-bytes": 100.0, "c-posix": 200.0}, ranks=4, warmup=1)
    rewritten(path, lambda records: records)
    done = report_of(tmp_path, path)
    assert done.stderr == "" and all((done.out / name).is_file() for name in FIGURE)
