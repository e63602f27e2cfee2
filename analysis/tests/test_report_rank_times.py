"""The figure of the ranks' times in each phase, drawn from a run's per-rank records: from the
per-rank file beside a run file of schema 4, from the records older run files hold, and none (with
one warning line where a per-rank file is missing) where a run file has no records to draw."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

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
