"""What rank 0 tells the ranks at the end of a round (jiobench.run.rounds): the ending when some rank
cannot go on, and the one byte count each JVM hears of a phase."""
from __future__ import annotations

from jiobench.run.rounds import FAILED, GO, STOPPED, answers_of, worst_ending


def test_a_failure_says_more_than_the_stops_around_it_and_the_first_rank_speaks():
    states = [(GO, None), (STOPPED, {"signal": "SIGTERM", "phase": "p"}),
              (FAILED, {"phase": "p", "when": "during", "message": "disk full"}),
              (FAILED, {"phase": "p", "when": "during", "message": "also"})]
    ending = worst_ending(states)
    assert (ending["reason"], ending["rank"], ending["message"]) == ("failed", 2, "disk full")
    stopped = worst_ending(states[:2] + [(STOPPED, {"signal": "SIGINT", "phase": None})])
    assert (stopped["reason"], stopped["signal"], stopped["rank"]) == ("stopped", "SIGTERM", 1)


def record(moved: int) -> dict:
    return {"bytes": moved}


def test_every_jvm_hears_the_bytes_of_the_block_it_reads_next_in_one_count_where_all_agree():
    assert answers_of([(record(8), 1), (record(8), 2), (record(8), 0)]) == (8, None)
    # A stonewalled write: each block holds what its writer moved by the deadline.
    assert answers_of([(record(8), 1), (record(5), 2), (record(3), 0)]) == (None, [5, 3, 8])
