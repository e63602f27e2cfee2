"""Xu and Guo's strategies end to end: operations down to one byte, buffered and unbuffered byte
streams, direct buffering, C's stdio, random positions drawn with replacement, the deadline held
inside a batch of tiny operations, and the runner's bookkeeping measured beside each figure."""
from __future__ import annotations

import pytest

from testing import reference_bytes, written_as_the_independent_writer

pytestmark = pytest.mark.runs

XU_GUO = ["raw-bytes", "raw-stream", "buffered-stream", "direct-buffering", "bulk-jni", "c-posix", "c-stdio"]


@pytest.mark.parametrize("order", ["sequential", "shuffled", "random"])
def test_every_strategy_writes_the_independent_writers_bytes_at_odd_operation_sizes(jiobench, tmp_path, order):
    """7-byte operations through a 100-byte buffer: operations straddle the buffer's end. Random
    positions are drawn with replacement, and those never drawn keep what was there: that file
    starts whole, and is not the run's to empty between approaches, so there --verify holds each
    approach to what it wrote and the file to the last one's bytes."""
    seed, ranks, block, segments = 3, 2, 7 * 512, 2
    expected = reference_bytes("byte", range(ranks * block * segments), seed)
    target = tmp_path / "f.dat"
    if order == "random":
        target.write_bytes(expected)
    run = jiobench("-a", ",".join(XU_GUO), "--type", "byte", "-b", str(block), "-t", "7", "-s", str(segments),
                   "--buffer-size", "100", "--order", order, "--seed", str(seed), "--warmup", "0", "--verify",
                   "--forks", "1", "--keep", "--overwrite", "-o", str(target))
    written_as_the_independent_writer(run, XU_GUO, target, expected)
    assert all(p["verified"] is True for p in run.file["phases"]), run.file["phases"]


def test_random_order_draws_positions_with_replacement_and_writes_only_those(jiobench, tmp_path):
    target = tmp_path / "f.dat"
    target.write_bytes(bytes(64 * 1024))
    run = jiobench("-a", "c-stdio", "--type", "byte", "-b", "64KiB", "-t", "1KiB", "--order", "random", "-w",
                   "--warmup", "0", "--verify", "--keep", "--overwrite", "-o", str(target), ranks=1)
    assert run.code == 0, run
    data = target.read_bytes()
    untouched = sum(data[k * 1024:(k + 1) * 1024] == bytes(1024) for k in range(64))
    # 64 draws from 64 positions leave about 64/e of them undrawn; a permutation would leave none.
    assert 10 <= untouched <= 40, untouched
    assert run.file["phases"][0]["transfers"] == 64 and run.file["parameters"]["order"] == "random"
    again = jiobench("-a", "raw-stream,direct-buffering", "--type", "byte", "-b", "64KiB", "-t", "1KiB", "--order",
                     "random", "-r", "--warmup", "0", "--verify", "-o", str(target), ranks=1)
    assert again.code == 0 and all(p["verified"] for p in again.file["phases"]), again


def test_a_deadline_ends_one_byte_operations_inside_a_batch_and_bookkeeping_is_measured(jiobench, tmp_path):
    run = jiobench("-a", "raw-bytes,c-posix,c-stdio", "--type", "byte", "-b", "16MiB", "-t", "1", "-D", "0.5",
                   "--buffer-size", "1", "--warmup", "0", "-o", str(tmp_path / "f.dat"), timeout=180)
    assert run.code == 0, run
    for phase in run.file["phases"]:
        # A read covers what its write left, which it may finish before the deadline.
        assert phase["stonewalled"] or phase["op"] == "read", phase
        # A batch holds 64Ki operations; the loops look at the clock every 64 of them.
        assert phase["seconds"] < 1.5, phase
        assert phase["transfers_per_s"] == pytest.approx(phase["transfers"] / phase["seconds"])
        assert 0 < phase["bookkeeping_share"] < 1, phase
    for record in run.records:
        assert 0 < record["bookkeeping_s"] < record["transfer_s"], record


def test_each_approach_writes_into_an_emptied_file_of_the_runs_own_and_never_into_a_users(jiobench, tmp_path):
    """A file written in large calls keeps large folios in the page cache, which make every later
    small write dearer: the next approach starts from an empty file, as the first one did."""
    target = tmp_path / "f.dat"
    args = ["-a", "c-stdio,raw-bytes", "--type", "byte", "-b", "4MiB", "-t", "1", "--buffer-size", "4MiB",
            "-D", "0.3", "-w", "--warmup", "0", "--keep", "-o", str(target)]
    run = jiobench(*args, ranks=1)
    assert run.code == 0, run
    first, last = run.file["phases"]
    assert first["bytes"] == 4 << 20 and last["stonewalled"], run.file["phases"]
    assert target.stat().st_size == last["bytes"], "the file holds what the last approach wrote, nothing before it"
    before = target.stat().st_size
    again = jiobench(*args, "--overwrite", ranks=1)
    assert again.code == 0, again
    # c-stdio writes from the start again, as far as the deadline lets it on a busy machine.
    written = again.file["phases"][0]["bytes"]
    assert target.stat().st_size == max(before, written), "a file the run did not create is never emptied"
