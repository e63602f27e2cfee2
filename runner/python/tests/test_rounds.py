"""What rank 0 tells the ranks at the end of a round (jiobench.run.rounds): the ending when some rank
cannot go on, and the one byte count each JVM hears of a phase."""
from __future__ import annotations

from jiobench.run.endings import complaints, named
from jiobench.exitcode import ExitCode
from jiobench.run.rounds import RankState, answers_of, start_failure, worst_ending
from jiobench.run.transport import NotStarted, StartLate


def test_a_failure_says_more_than_the_stops_around_it_and_the_first_rank_speaks():
    states = [(RankState.GO, None), (RankState.STOPPED, {"signal": "SIGTERM", "phase": "p"}),
              (RankState.FAILED, {"phase": "p", "when": "during", "message": "disk full"}),
              (RankState.FAILED, {"phase": "p", "when": "during", "message": "also"})]
    ending = worst_ending(states)
    assert (ending["reason"], ending["rank"], ending["message"]) == ("failed", 2, "disk full")
    stopped = worst_ending(states[:2] + [(RankState.STOPPED, {"signal": "SIGINT", "phase": None})])
    assert (stopped["reason"], stopped["signal"], stopped["rank"]) == ("stopped", "SIGTERM", 1)


def record(moved: int) -> dict:
    return {"bytes": moved}


def test_every_jvm_hears_the_bytes_of_the_block_it_reads_next_in_one_count_where_all_agree():
    assert answers_of([(record(8), 1), (record(8), 2), (record(8), 0)]) == (8, None)
    # A stonewalled write: each block holds what its writer moved by the deadline.
    assert answers_of([(record(8), 1), (record(5), 2), (record(3), 0)]) == (None, [5, 3, 8])


def test_a_complaint_every_rank_made_alike_is_said_once_and_different_ones_each_name_their_rank():
    assert complaints([(0, "no such file"), (1, "no such file")]) == (["no such file"], None)
    assert complaints([(1, "no such file")]) == (["no such file"], 1)
    assert named(*complaints([(1, "no such file")])) == ["rank 1: no such file"]
    assert complaints([(0, "no such file"), (2, "disk full")]) == (["rank 0: no such file", "rank 2: disk full"], None)


def test_jvms_that_did_not_start_are_one_event_whose_code_is_the_worst():
    outcomes = [(0, ""), (2, "-b 1MiB is not a multiple of -t 3MiB"), (1, "")]
    assert start_failure(outcomes, ["a", "a", "b"]) == NotStarted(
        exit=2, messages=["rank 1: -b 1MiB is not a multiple of -t 3MiB", "rank 2: exited with code 1"])
    assert start_failure([(0, ""), (2, "refused")], ["a", "a"]) == NotStarted(exit=2, messages=["refused"], rank=1)
    late = start_failure([(0, ""), (ExitCode.LATE, "waiting for a lock")], ["a", "b"])
    assert isinstance(late, StartLate) and late.rank == 1 and late.printed == "waiting for a lock", late
