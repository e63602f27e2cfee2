"""What `jiobench sweep --resume` does with a point's incomplete run before its next attempt."""
from __future__ import annotations

from jiobench_sweep.cli import set_aside


def test_an_attempt_set_aside_keeps_its_run_file_and_per_rank_file_together(tmp_path):
    """Both get the attempt's number in one stem, by which the report finds the per-rank file."""
    (tmp_path / "results").mkdir()
    for suffix in (".json", ".ranks.parquet"):
        (tmp_path / "results" / f"p1-n2{suffix}").write_text(suffix)
    set_aside(tmp_path, {"id": "p1-n2", "run_file": "results/p1-n2.json", "attempts": [{"state": "TIMEOUT"}]})
    assert sorted(path.name for path in (tmp_path / "attempts").iterdir()) == ["p1-n2.2.json", "p1-n2.2.ranks.parquet"]
    assert not any((tmp_path / "results").iterdir())
