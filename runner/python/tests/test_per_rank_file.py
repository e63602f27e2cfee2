"""The per-rank file and the run file rank 0's collector writes beside it, fed synthetic phases as
the launcher feeds real ones: what the per-rank file holds, that it and the JSON agree however the
run ended, and that a run file written without one says why."""
from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from testing import HOME
from jiobench.model import perrank, reduce
from jiobench.run import collect, incomplete
from jiobench.run.progress import Silent

sys.path.insert(0, str(HOME / "bench"))
try:
    from scale_collector import context, synthetic_phases
finally:
    sys.path.remove(str(HOME / "bench"))

RANKS, PHASES = 5, 6


def collector_of(tmp_path: Path) -> collect.Collector:
    return collect.Collector(context(RANKS, str(tmp_path / "results")), Silent())


def files_of(tmp_path: Path) -> list[str]:
    return sorted(path.name for path in (tmp_path / "results").iterdir())


def test_the_per_rank_file_holds_every_record_fed_a_row_each_in_the_order_fed(tmp_path):
    collector = collector_of(tmp_path)
    fed = [records for records in synthetic_phases(RANKS, PHASES)]
    for records in fed:
        collector.phase(records)
    run_path = Path(collector.finish())
    run = json.loads(run_path.read_text())
    assert run["schema"] == "jiobench-run/4" and "per_rank" not in run
    assert run["per_rank_file"] == "scale-5.ranks.parquet" and run["per_rank_rows"] == RANKS * PHASES
    assert files_of(tmp_path) == ["scale-5.json", "scale-5.ranks.parquet"], "no temporary file is left"
    read = pd.read_parquet(run_path.parent / run["per_rank_file"])
    assert list(read.columns) == perrank.NAMES
    flat = [record for records in fed for record in records]
    assert len(read) == len(flat)
    for row, record in zip(read.to_dict("records"), flat):
        for name, kind in perrank.COLUMNS:
            if record[name] is None:
                assert pd.isna(row[name]), name
            elif kind == "seconds":
                assert row[name] == pytest.approx(record[name], rel=1e-7), name  # float32
            else:
                assert row[name] == record[name], name
    assert run["phases"] == [reduce.reduce_phase(records, 0.5) for records in fed], "reduced from the records as fed"


def test_a_phase_of_thousands_of_ranks_is_a_row_group_and_phases_of_a_few_share_one(tmp_path, monkeypatch):
    monkeypatch.setattr(perrank, "ROW_GROUP_ROWS", RANKS)
    collector = collector_of(tmp_path)
    for records in synthetic_phases(RANKS, PHASES):
        collector.phase(records)
    path = Path(collector.finish())
    assert pq.ParquetFile(path.with_name("scale-5.ranks.parquet")).metadata.num_row_groups == PHASES
    monkeypatch.setattr(perrank, "ROW_GROUP_ROWS", 3 * RANKS)
    (tmp_path / "results").rename(tmp_path / "before")
    collector = collector_of(tmp_path)
    for records in synthetic_phases(RANKS, PHASES + 1):
        collector.phase(records)
    path = Path(collector.finish())
    assert pq.ParquetFile(path.with_name("scale-5.ranks.parquet")).metadata.num_row_groups == 3, "3 + 3 + the last"


@pytest.mark.parametrize("completed", [0, 1, 4])
def test_a_run_ended_early_leaves_a_per_rank_file_of_exactly_the_phases_its_json_lists(tmp_path, completed):
    collector = collector_of(tmp_path)
    for records in list(synthetic_phases(RANKS, PHASES))[:completed]:
        collector.phase(records)
    ending = incomplete.stop("SIGTERM", "stopped by SIGTERM", 0, "raw-bytes write fork 1 rep 2")
    run_path = Path(collector.finish(ending))
    run = json.loads(run_path.read_text())
    assert run["incomplete"]["signal"] == "SIGTERM" and len(run["phases"]) == completed
    records = perrank.frame(run_path)
    if completed == 0:
        assert records is None and run["per_rank_file"] is None and files_of(tmp_path) == ["scale-5.json"]
        return
    keys = list(dict.fromkeys(zip(records["approach"], records["op"], records["fork"], records["rep"])))
    assert keys == [reduce.phase_key(phase) for phase in run["phases"]]
    assert len(records) == run["per_rank_rows"] == completed * RANKS


def test_a_rank_that_got_only_the_phases_writes_a_run_file_without_a_per_rank_file_and_says_why(tmp_path):
    """As a rank that survived lost rank 0 does: rank 0 passed each phase on, the records it had not."""
    collector = collector_of(tmp_path)
    phases = [reduce.reduce_phase(records, 0.5) for records in synthetic_phases(RANKS, PHASES)]
    for phase in phases:
        collector.add_phase(phase)
    run_path = Path(collector.finish(incomplete.failure("ranks 0 on node00000 stopped answering")))
    run = json.loads(run_path.read_text())
    assert run["phases"] == phases and run["per_rank_file"] is None and run["per_rank_rows"] is None
    assert run["warnings"][-1].startswith("no per-rank file: the ranks' records went to rank 0, which was lost")
    assert perrank.frame(run_path) is None
    assert files_of(tmp_path) == ["scale-5.json"]


def full_under(directory: Path, monkeypatch) -> None:
    """Every row group of a per-rank file under `directory` finds its file system full."""
    flush = perrank.Stream._flush

    def flush_or_full(stream):
        if Path(stream.path).is_relative_to(directory):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        flush(stream)

    monkeypatch.setattr(perrank.Stream, "_flush", flush_or_full)


def test_records_the_results_directory_cannot_take_go_with_the_run_file_to_a_directory_of_its_own(
        tmp_path, monkeypatch, capsys):
    full_under(tmp_path / "results", monkeypatch)
    collector = collector_of(tmp_path)
    fed = list(synthetic_phases(RANKS, PHASES))
    for records in fed:
        collector.phase(records)
    run_path = Path(collector.finish())
    why = f"cannot write the per-rank file in {tmp_path / 'results'} (No space left on device)"
    assert f"jiobench: error: {why}; the ranks' records go where the run file goes" in capsys.readouterr().err
    assert collector.misplaced == f"{why}, which the run file goes with: written to {run_path}"
    run = json.loads(run_path.read_text())
    try:
        assert run["per_rank_file"] == "scale-5.ranks.parquet" and run["per_rank_rows"] == RANKS * PHASES
        assert run["warnings"] == []
        assert len(perrank.frame(run_path)) == RANKS * PHASES
        assert files_of(tmp_path) == [], "no half of a per-rank file is left"
    finally:
        shutil.rmtree(run_path.parent)


def test_records_beyond_a_row_group_that_no_file_holds_are_lost_and_said(tmp_path, monkeypatch, capsys):
    full_under(tmp_path, monkeypatch)
    monkeypatch.setattr(perrank, "ROW_GROUP_ROWS", 2 * RANKS)
    collector = collector_of(tmp_path)
    for records in synthetic_phases(RANKS, PHASES):
        collector.phase(records)
    run = json.loads(Path(collector.finish()).read_text())
    why = f"cannot write the per-rank file in {tmp_path / 'results'} (No space left on device)"
    assert len(run["phases"]) == PHASES and run["per_rank_file"] is None
    assert run["warnings"] == [f"no per-rank file: {why}"]
    assert f"jiobench: error: {why}; the ranks' records go where the run file goes" in capsys.readouterr().err
    assert files_of(tmp_path) == ["scale-5.json"], "no half of a per-rank file is left"


def test_the_json_does_not_grow_with_the_ranks(tmp_path):
    sizes = []
    for ranks in (4, 40):
        collector = collect.Collector(context(ranks, str(tmp_path / str(ranks))), Silent())
        for records in synthetic_phases(ranks, PHASES):
            collector.phase(records)
        sizes.append(Path(collector.finish()).stat().st_size)
    assert sizes[1] < 1.02 * sizes[0], sizes


def test_records_of_run_files_before_the_per_rank_file_read_as_its_rows():
    run_path = HOME / "docs" / "runs" / "make-run" / "20261126-071337-ebc463.json"
    run = json.loads(run_path.read_text())
    records = perrank.frame(run_path)
    assert list(records.columns) == perrank.NAMES and len(records) == len(run["per_rank"])
    assert records["elapsed_s"].tolist() == pytest.approx([r["elapsed_s"] for r in run["per_rank"]], rel=1e-7)


def test_a_per_rank_file_that_is_gone_is_named(tmp_path):
    collector = collector_of(tmp_path)
    for records in synthetic_phases(RANKS, 2):
        collector.phase(records)
    run_path = Path(collector.finish())
    run_path.with_name("scale-5.ranks.parquet").unlink()
    with pytest.raises(perrank.Unreadable, match=f"^{run_path}: its per-rank file scale-5.ranks.parquet is missing$"):
        perrank.frame(run_path)


def test_ranks_that_write_no_run_file_never_load_pyarrow():
    imported = subprocess.run([sys.executable, "-c", "import sys, jiobench.run.collect; print('pyarrow' in sys.modules)"],
                              capture_output=True, text=True, check=True)
    assert imported.stdout.strip() == "False"


def test_the_per_rank_file_is_written_without_loading_pandas(tmp_path):
    """pandas takes half a second of CPU to load, at the end of every run, on the writer's critical
    path; the process that wrote the file still reads it back as a DataFrame."""
    script = ("import sys\n"
              f"sys.path.insert(0, {str(HOME / 'bench')!r})\n"
              "from scale_collector import synthetic_phases\n"
              "from jiobench.model import perrank\n"
              f"stream = perrank.Stream({str(tmp_path / 'f.parquet')!r})\n"
              f"for records in synthetic_phases({RANKS}, {PHASES}):\n"
              "    stream.append(records)\n"
              "stream.close()\n"
              "print('pandas' in sys.modules)\n"
              f"print(len(perrank.frame({str(tmp_path / 'f.json')!r}, {{'per_rank_file': 'f.parquet'}})))\n")
    written = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert written.stdout.split() == ["False", str(RANKS * PHASES)], "pandas is there when it is asked for"
