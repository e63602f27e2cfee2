import math

import pytest

from jiobench import reduce


def record(rank, elapsed, nbytes=1 << 20, rep=0, stonewalled=False, verified=None, transfers=1):
    return {"approach": "raw-bytes", "op": "write", "rep": rep, "rank": rank, "bytes": nbytes,
            "transfers": transfers, "elapsed_s": elapsed, "stonewalled": stonewalled, "verified": verified}


def test_aggregate_is_all_bytes_over_the_slowest_rank():
    phase = reduce.reduce_phase([record(0, 0.5), record(1, 1.0), record(2, 0.25)])
    assert phase["bytes"] == 3 << 20
    assert phase["seconds"] == 1.0
    assert phase["first_done_s"] == 0.25
    assert phase["bw_mib_s"] == pytest.approx(3.0)
    assert phase["ranks"] == 3


def test_a_stonewalled_rank_marks_the_phase_and_verification_needs_every_rank():
    phase = reduce.reduce_phase([record(0, 1, stonewalled=True, verified=True), record(1, 1, verified=False)])
    assert phase["stonewalled"] is True
    assert phase["verified"] is False
    assert reduce.reduce_phase([record(0, 1, verified=True), record(1, 1, verified=True)])["verified"] is True
    assert reduce.reduce_phase([record(0, 1), record(1, 1)])["verified"] is None


def test_records_of_different_phases_are_refused():
    with pytest.raises(ValueError):
        reduce.reduce_phase([record(0, 1, rep=0), record(1, 1, rep=1)])
    with pytest.raises(ValueError):
        reduce.reduce_phase([])


def test_summary_statistics_over_repetitions_as_ior_prints_them():
    phases = [reduce.reduce_phase([record(0, seconds, rep=rep)]) for rep, seconds in enumerate([1.0, 0.5, 0.25])]
    (row,) = reduce.summarize(phases)
    assert row["reps"] == 3
    assert row["bw_mib_s"]["max"] == pytest.approx(4.0)
    assert row["bw_mib_s"]["min"] == pytest.approx(1.0)
    assert row["bw_mib_s"]["mean"] == pytest.approx(7 / 3)
    assert row["bw_mib_s"]["stddev"] == pytest.approx(math.sqrt(((1 - 7 / 3) ** 2 + (2 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 3))
    assert row["seconds_mean"] == pytest.approx(1.75 / 3)
