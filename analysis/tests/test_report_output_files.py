"""What the report does to its output directory: every file written whole through a new file
renamed onto its name, so that a link planted there is replaced, never written through (the report
runs as root on shared clusters); and nothing left behind by a report that fails."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from jiobench_analysis import report

from .handmade_runs import MIB, run_file
from .real_runs import run_report

REPORT_FILES = {"report.html", "bandwidth.csv", "bandwidth.md", "phases.csv", "phases.md",
                "bandwidth-vs-ranks.png", "bandwidth-vs-ranks.svg",
                "bandwidth-vs-transfer-size.png", "bandwidth-vs-transfer-size.svg", "rank-times.png", "rank-times.svg"}


def runs(results: Path) -> Path:
    """Runs at two process counts and two transfer sizes: a figure against each."""
    for ranks, transfer_size in ((2, MIB), (4, MIB), (2, MIB // 4)):
        run_file(results, {"c-posix": 200.0, "raw-bytes": 100.0}, ranks=ranks, transfer_size=transfer_size)
    return results


def plant_links(out: Path, names, outside: Path) -> dict[Path, bytes]:
    """Under each name in `out`, a link to a file of `outside` holding known bytes: symbolic links,
    one of them dangling, and a hard link. Returns each outside file and its bytes."""
    out.mkdir()
    outside.mkdir()
    kept = {}
    for index, name in enumerate(sorted(names)):
        target = outside / f"target-{index}"
        kept[target] = f"not the report's: {name}\n".encode()
        target.write_bytes(kept[target])
        if index == 0:
            os.link(target, out / name)
        elif index == 1:
            (out / name).symlink_to(outside / "never-written")
        else:
            (out / name).symlink_to(target)
    return kept


def assert_untouched(out: Path, names, kept: dict[Path, bytes], outside: Path) -> None:
    for target, content in kept.items():
        assert target.read_bytes() == content, f"{target} was written through a link"
    assert not (outside / "never-written").exists(), "a dangling link was followed"
    assert sorted(path.name for path in out.iterdir()) == sorted(names), "no other file, nor a temporary one"
    for name in names:
        path = out / name
        assert not path.is_symlink() and path.is_file(), name
        assert path.stat().st_nlink == 1, f"{name} still shares its inode with a file outside"


def test_links_planted_under_the_report_s_names_are_replaced_never_written_through(tmp_path):
    results = runs(tmp_path / "results")
    kept = plant_links(tmp_path / "out", REPORT_FILES, tmp_path / "outside")
    done = run_report([str(results), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert_untouched(tmp_path / "out", REPORT_FILES, kept, tmp_path / "outside")
    assert "bandwidth-vs-transfer-size.png" in (tmp_path / "out" / "report.html").read_text()


def test_the_report_writes_exactly_the_files_the_link_test_plants(tmp_path):
    done = run_report([str(runs(tmp_path / "results")), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert {path.name for path in (tmp_path / "out").iterdir()} == REPORT_FILES


def test_links_planted_under_the_comparison_s_names_are_replaced_never_written_through(tmp_path):
    a = run_file(tmp_path / "a", {"raw-bytes": 100.0})
    b = run_file(tmp_path / "b", {"raw-bytes": 120.0})
    names = {"compare.csv", "compare.md"}
    kept = plant_links(tmp_path / "out", names, tmp_path / "outside")
    done = run_report(["--compare", str(a), str(b), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert_untouched(tmp_path / "out", names, kept, tmp_path / "outside")


def test_an_output_directory_given_as_a_link_is_the_user_s_choice_and_followed(tmp_path):
    results = runs(tmp_path / "results")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "elsewhere")
    done = run_report([str(results), "-o", str(tmp_path / "out")])
    assert done.code == 0, done.stderr
    assert {path.name for path in (tmp_path / "elsewhere").iterdir()} == REPORT_FILES


def test_a_file_that_cannot_be_written_is_one_line_and_what_was_written_is_removed(tmp_path):
    results = runs(tmp_path / "results")
    out = tmp_path / "out"
    (out / "report.html").mkdir(parents=True)  # in the way of the last file written
    (out / "notes.txt").write_text("the user's")
    done = run_report([str(results), "-o", str(out)])
    assert done.code == 2
    assert done.stderr == f"jiobench report: error: {out / 'report.html'}: cannot write: Is a directory\n"
    assert sorted(path.name for path in out.iterdir()) == ["notes.txt", "report.html"]
    assert (out / "notes.txt").read_text() == "the user's" and not any((out / "report.html").iterdir())


def test_a_report_that_fails_removes_the_directories_it_made(tmp_path, monkeypatch):
    results = runs(tmp_path / "results")

    def broken(*args, **kwargs):
        raise RuntimeError("a bug while drawing")

    monkeypatch.setattr(report, "draw_figures", broken)
    with pytest.raises(RuntimeError):
        report.main([str(results), "-o", str(tmp_path / "new" / "report")])
    assert not (tmp_path / "new").exists()
