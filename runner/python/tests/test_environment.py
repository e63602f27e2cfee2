"""What the run file says of the run's environment (jiobench.run.environment): the warnings of what
the options change in what the numbers mean."""
from __future__ import annotations

from jiobench.run.environment import shared_reads


def test_reads_that_cannot_each_take_a_different_block_are_warned_of():
    # 3+1: the lone rank's block is read by the three others, and one of theirs by nobody.
    assert shared_reads([3, 3, 3, 0], {"a": 3, "b": 1}) == [
        "-C: a holds 3 of the 4 ranks, more than half, so each rank reads a block written on another node but not "
        "each a different one: 1 block read by several ranks, 2 by none (parameters.read_block_of says whose each "
        "rank read)"]
    assert "2 blocks read by several ranks, 2 by none" in shared_reads([4, 5, 4, 5, 0, 1], {"a": 4, "b": 1, "c": 1})[0]


def test_reads_that_each_take_a_different_block_or_no_reorder_say_nothing():
    assert shared_reads([2, 3, 0, 1], {"a": 2, "b": 2}) == []
    assert shared_reads(None, {"a": 3, "b": 1}) == []
