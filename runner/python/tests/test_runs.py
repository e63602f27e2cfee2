"""End to end: bin/jiobench under real mpirun, 1 to 4 ranks, real JVMs, real files."""
from __future__ import annotations

import pytest

from testing import assert_at_calibrated_rate, reference_bytes, written_as_the_independent_writer

pytestmark = pytest.mark.runs

PAPER = ["raw-bytes", "encode-decode", "data-stream", "buffered-data-stream", "byte-array-stream", "bulk-jni"]


def phases_by(run_file, key=lambda p: (p["approach"], p["op"])):
    return {key(p): p for p in run_file["phases"]}


@pytest.mark.parametrize("type_id", [pytest.param("int", marks=pytest.mark.smoke), "long", "float", "double"])
def test_every_paper_approach_round_trips_every_type(jiobench, tmp_path, type_id):
    run = jiobench("-a", "paper", "--type", type_id, "-b", "64KiB", "-t", "16KiB", "-s", "2", "--verify",
                   "--warmup", "0", "-o", str(tmp_path / "f.dat"))
    assert run.code == 0, run
    phases = run.file["phases"]
    assert {p["approach"] for p in phases} == set(PAPER)
    assert len(phases) == 2 * len(PAPER)
    for phase in phases:
        assert phase["verified"] is True, phase
        assert phase["bytes"] == 2 * 2 * 64 * 1024 and not phase["stonewalled"], phase
    assert not (tmp_path / "f.dat").exists(), "a file the run created is removed unless --keep"


@pytest.mark.parametrize("type_id", ["int", "double"])
def test_every_approach_writes_the_same_bytes_as_an_independent_writer(jiobench, tmp_path, type_id):
    seed = 99
    ranks, block, segments = 2, 32 * 1024, 2
    size = ranks * block * segments
    element = 4 if type_id == "int" else 8
    expected = reference_bytes(type_id, range(size // element), seed)
    target = tmp_path / "f.dat"
    approaches = PAPER + ["c-posix"]
    run = jiobench("-a", ",".join(approaches), "-w", "--keep", "--verify", "--forks", "1", "--warmup", "0",
                   "--type", type_id, "--seed", str(seed), "-b", "32KiB", "-t", "8KiB", "-s", str(segments),
                   "--order", "shuffled", "-o", str(target), ranks=ranks)
    written_as_the_independent_writer(run, approaches, target, expected)


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_calibrate_reports_its_programmed_rate(jiobench, ranks):
    rate_mib = 64
    run = jiobench("-a", "calibrate", "--calibrate-rate", f"{rate_mib}MiB", "-b", "64MiB", "-t", "2MiB", "-i", "2",
                   ranks=ranks)
    assert run.code == 0, run
    for row in run.file["summary"]:
        assert row["ranks"] == ranks
        assert_at_calibrated_rate(row["bw_mib_s"]["mean"], ranks, rate_mib, row)


def test_a_corrupted_byte_fails_verification_naming_rank_and_offset(jiobench, tmp_path):
    target = tmp_path / "f.dat"
    common = ["-b", "64KiB", "-t", "16KiB", "-o", str(target)]
    assert jiobench("-a", "raw-bytes", "-w", "--keep", *common).code == 0
    corrupt_at = 64 * 1024 + 4321  # inside rank 1's block
    with open(target, "r+b") as f:
        f.seek(corrupt_at)
        byte = f.read(1)
        f.seek(corrupt_at)
        f.write(bytes([byte[0] ^ 0x10]))
    for approach in ["raw-bytes", "encode-decode"]:
        run = jiobench("-a", approach, "-r", "--verify", *common)
        assert run.code == 1, run
        assert f"rank 1, {approach} read fork 1 rep 0 (warm-up): wrong data at byte offset {corrupt_at}" \
            in run.stderr, run
        assert run.file["phases"][0]["verified"] is False
    assert target.exists(), "a read-only run never removes the file"


@pytest.mark.parametrize("layout", [[], ["-F"]], ids=["shared-file", "file-per-process"])
def test_four_ranks_three_segments_shuffled_all_verified(jiobench, tmp_path, layout):
    run = jiobench("-a", "raw-bytes,encode-decode,buffered-data-stream", *layout, "-s", "3", "--order", "shuffled",
                   "-b", "64KiB", "-t", "8KiB", "--verify", "-C", "--keep", "-o", str(tmp_path / "f.dat"), ranks=4)
    assert run.code == 0, run
    assert all(p["verified"] is True and p["ranks"] == 4 for p in run.file["phases"]), run.file["phases"]
    files = sorted(p.name for p in tmp_path.glob("f.dat*"))
    assert files == ([f"f.dat.{r:08d}" for r in range(4)] if layout else ["f.dat"])


def test_reorder_with_an_offset_reads_the_block_that_many_ranks_over(jiobench, tmp_path):
    run = jiobench("-a", "raw-bytes", "-b", "256KiB", "-t", "64KiB", "-C", "-Q", "2", "--verify", "--warmup", "0",
                   "-o", str(tmp_path / "f.dat"), ranks=4)
    assert run.code == 0, run
    assert run.file["parameters"]["reorder"] is True and run.file["parameters"]["reorder_offset"] == 2
    assert run.file["parameters"]["read_block_of"] == [2, 3, 0, 1]
    assert all(p["verified"] is True for p in run.file["phases"]), "each rank read and checked another's block"
    assert run.file["warnings"] == ["-C on one node: each rank reads its neighbour's block, which this node's page "
                                    "cache may still hold"]


def test_reorder_with_one_rank_reads_its_own_block_as_ior_does(jiobench, tmp_path):
    """So that a sweep of -C from 1 rank up runs its first point too."""
    run = jiobench("-a", "raw-bytes", "-b", "256KiB", "-t", "64KiB", "-C", "--verify", "--warmup", "0",
                   "-o", str(tmp_path / "f.dat"), ranks=1)
    assert run.code == 0, run
    assert run.file["parameters"]["read_block_of"] == [0]
    assert run.file["warnings"] == ["-C with one rank: it reads the block it wrote itself"]


def test_the_run_file_records_what_was_run(jiobench, tmp_path):
    run = jiobench("-a", "raw-bytes", "-b", "64KiB", "-t", "16KiB", "-i", "2", "--warmup", "0", "-e",
                   "--drop-cache", "--verify", "-o", str(tmp_path / "f.dat"))
    assert run.code == 0, run
    data = run.file
    assert data["schema"] == "jiobench-run/4" and data["incomplete"] is None
    assert data["parameters"]["fsync"] is True and data["parameters"]["repetitions"] == 2
    assert data["parameters"]["drop_cache"] is True
    assert all(p["verified"] is True for p in data["phases"])
    env = data["environment"]
    assert env["launcher"] == "mpirun" and env["ranks"] == 2
    assert env["jvm"]["version"] and "Open MPI" in env["mpi"]["library"]
    assert env["filesystem"]["type"] and sum(env["ranks_per_host"].values()) == 2
    assert [(p["op"], p["rep"]) for p in data["phases"]] == [("write", 0), ("read", 0), ("write", 1), ("read", 1)]
    assert env["slurm"] is None, "no Slurm job here"
    assert data["per_rank_file"] == f"{data['run_id']}.ranks.parquet" and data["per_rank_rows"] == 2 * 2 * 2
    assert [(r["op"], r["rep"], r["rank"]) for r in run.records] == [
        (op, rep, rank) for rep in (0, 1) for op in ("write", "read") for rank in (0, 1)]
    assert all(p["straggler"]["host"] in env["hosts"] and p["straggler"]["elapsed_s"]["max"] == p["seconds"]
               for p in data["phases"])
    assert "raw-bytes" in run.stdout and "Summary" in run.stdout


def test_a_deadline_stonewalls_a_slow_phase_and_reads_only_what_was_written(jiobench, tmp_path):
    run = jiobench("-a", "data-stream", "-b", "4MiB", "-t", "256KiB", "-D", "0.2", "--verify", "--warmup", "0",
                   "-o", str(tmp_path / "f.dat"))
    assert run.code == 0, run
    phases = phases_by(run.file)
    write, read = phases[("data-stream", "write")], phases[("data-stream", "read")]
    assert write["stonewalled"] is True and write["bytes"] < 2 * 4 * 1024 * 1024
    assert read["verified"] is True and read["bytes"] <= write["bytes"]
    assert "stonewalled" in run.stdout


def test_an_existing_file_is_never_clobbered(jiobench, tmp_path):
    precious = tmp_path / "precious.dat"
    precious.write_bytes(b"user data" * 1000)
    run = jiobench("-a", "raw-bytes", "-b", "4KiB", "-t", "4KiB", "-o", str(precious), results=False)
    assert run.code == 2 and "--overwrite" in run.stderr, run
    assert precious.read_bytes() == b"user data" * 1000
    run = jiobench("-a", "raw-bytes", "-b", "4KiB", "-t", "4KiB", "--overwrite", "-o", str(precious))
    assert run.code == 0, run
    assert precious.exists() and precious.stat().st_size == 9000, "written over in place, never truncated or removed"
