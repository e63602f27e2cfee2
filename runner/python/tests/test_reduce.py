import math

import pytest

from jiobench.model import reduce


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


def test_each_phase_names_its_slowest_rank_and_the_spread_of_the_ranks_times():
    records = [dict(record(rank, elapsed), host=f"node{rank // 2}") for rank, elapsed in enumerate([0.5, 1.0, 0.25, 1.0])]
    assert reduce.reduce_phase(records)["straggler"] == {
        "rank": 1, "host": "node0", "elapsed_s": {"min": 0.25, "median": 0.75, "max": 1.0}}


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


def test_warmup_phases_are_kept_but_never_enter_a_statistic():
    warm = reduce.reduce_phase([dict(record(0, 10.0, rep=0), warmup=True, fork=1)])
    measured = [reduce.reduce_phase([dict(record(0, s, rep=rep), warmup=False, fork=fork)])
                for fork, rep, s in [(1, 1, 1.0), (1, 2, 0.5), (2, 1, 0.25)]]
    assert warm["warmup"] is True and measured[0]["warmup"] is False
    (row,) = reduce.summarize([warm, *measured])
    assert row["reps"] == 3 and row["forks"] == 2
    assert row["bw_mib_s"]["min"] == pytest.approx(1.0), "the warm-up's 0.1 MiB/s is not the minimum"
    assert row["bw_mib_s"]["median"] == pytest.approx(2.0)
    assert reduce.summarize([warm]) == [], "a point with warm-up phases only has no statistics"


def test_the_confidence_interval_is_students_t_over_the_measured_phases():
    rates_seconds = [1.0, 0.5, 0.25, 0.2]
    phases = [reduce.reduce_phase([record(0, s, rep=rep)]) for rep, s in enumerate(rates_seconds)]
    (row,) = reduce.summarize(phases)
    rates = [1.0, 2.0, 4.0, 5.0]
    mean = sum(rates) / 4
    sample_sd = math.sqrt(sum((r - mean) ** 2 for r in rates) / 3)
    low, high = row["bw_mib_s"]["ci95"]
    assert (high - low) / 2 == pytest.approx(3.182 * sample_sd / 2, rel=1e-6)
    assert (low + high) / 2 == pytest.approx(mean)
    (single,) = reduce.summarize(phases[:1])
    assert single["bw_mib_s"]["ci95"] is None, "one repetition has no spread to speak of"


@pytest.mark.parametrize("df, quantile", [(1, 12.706), (10, 2.228), (30, 2.042), (40, 2.021), (60, 2.000),
                                          (120, 1.980), (10_000, 1.960)])
def test_t_quantiles(df, quantile):
    assert reduce.t975(df) == pytest.approx(quantile, abs=1.5e-3)


def test_a_phase_under_50_ms_is_short_and_so_is_its_row():
    quick = reduce.reduce_phase([record(0, 0.049), record(1, 0.02)])
    slow = reduce.reduce_phase([record(0, 0.051, rep=1)])
    assert quick["short"] is True and slow["short"] is False
    (row,) = reduce.summarize([dict(quick, ranks=1), slow])
    assert row["short"] is True


def test_wear_out_keeps_what_the_ranks_had_moved_at_the_deadline():
    records = [dict(record(0, 2.0, nbytes=300), stonewall_bytes=100, stonewall_s=1.0),
               dict(record(1, 2.5, nbytes=300), stonewall_bytes=300, stonewall_s=1.1)]
    phase = reduce.reduce_phase(records)
    assert phase["bytes"] == 600 and phase["seconds"] == 2.5
    assert phase["stonewall_bytes"] == 400 and phase["stonewall_s"] == 1.1
    assert (phase["stonewall_bytes_min"], phase["stonewall_bytes_max"]) == (100, 300)
    assert phase["stonewall_bw_mib_s"] == pytest.approx(400 / reduce.MIB / 1.1)
    assert "stonewall_bytes" not in reduce.reduce_phase([record(0, 1.0)])


def test_records_of_other_forks_are_other_phases():
    with pytest.raises(ValueError):
        reduce.reduce_phase([dict(record(0, 1), fork=1), dict(record(1, 1), fork=2)])


def timed(rank, elapsed, transfer_s, transfers, stonewall_s=None, stalled_s=None):
    return dict(record(rank, elapsed, transfers=transfers, stonewalled=True), transfer_s=transfer_s,
                stonewall_s=stonewall_s, stalled_s=stalled_s)


@pytest.mark.parametrize("elapsed, transfer_s, transfers, overran", [
    (5.0, 4.9, 1000, None),  # exactly the allowance past a deadline of 4 s (1 s): not over it
    (4.99, 4.9, 1000, None),  # just under
    (44.6, 44.5, 1000, 40.6),  # a JVM stopped for 40 s
    (5.5, 5.4, 2, None),  # two slow transfers: the one under way at the deadline may take 2.7 s
    (30.0, 29.9, 0, None),  # no whole transfer: one that outlasted the deadline
])
def test_a_rank_ending_past_the_deadline_by_more_than_its_allowance_overran_it(elapsed, transfer_s, transfers,
                                                                                overran):
    """The allowance is the largest of 1 s, a quarter of the deadline and two of the rank's own mean
    transfer times; the phase holds how far past the deadline its latest overrunning rank ended."""
    phase = reduce.reduce_phase([timed(0, 4.1, 4.0, 1000), timed(1, elapsed, transfer_s, transfers)], 4.0)
    assert phase["overran_deadline_s"] == (None if overran is None else pytest.approx(overran))
    assert reduce.reduce_phase([timed(0, 44.6, 44.5, 1000)])["overran_deadline_s"] is None, "no deadline"
    assert reduce.reduce_phase([timed(0, 44.6, 44.5, 1000)], 40.0)["overran_deadline_s"] is None, "a quarter of 40 s"


@pytest.mark.parametrize("transfers", [0, 1, 2])
def test_a_jvm_stopped_in_its_first_transfers_overran_though_the_stop_is_most_of_their_time(transfers):
    """Stopped for 15 s under -D 3 before its first transfer was whole, a rank ends 15.4 s in: the stop
    is in its transfers' time too, and taken alone it would allow a transfer of 15.3 s past the
    deadline. What the JVM stood still is taken out first, and 12.4 s past the deadline is an overrun."""
    stopped = timed(0, 15.4, 15.3, transfers, stalled_s=15.0)
    assert reduce.reduce_phase([stopped], 3.0)["overran_deadline_s"] == pytest.approx(12.4)
    slow = timed(0, 15.4, 15.3, transfers, stalled_s=0.0)
    assert reduce.reduce_phase([slow], 3.0)["overran_deadline_s"] is None, "slow transfers, no stall"
    assert reduce.reduce_phase([timed(0, 15.4, 15.3, transfers)], 3.0)["overran_deadline_s"] is None, \
        "records of older runs know no stall"


def test_with_wear_out_it_is_where_the_deadline_stopped_a_rank_that_counts():
    caught_up = timed(0, 30.0, 29.9, 1000, stonewall_s=4.2)
    assert reduce.reduce_phase([caught_up], 4.0)["overran_deadline_s"] is None
    assert reduce.reduce_phase([timed(0, 30.0, 29.9, 1000, stonewall_s=9.0)], 4.0)["overran_deadline_s"] == 5.0


def test_a_row_counts_its_measured_phases_that_overran():
    phases = [reduce.reduce_phase([dict(timed(0, elapsed, elapsed - 0.1, 1000), rep=rep, warmup=rep == 0)], 4.0)
              for rep, elapsed in enumerate([44.0, 4.1, 44.0, 14.0])]
    (row,) = reduce.summarize(phases)
    assert row["overran_deadline"] == 2, "the warm-up's overrun does not count"
    assert reduce.summarize([{k: v for k, v in p.items() if k != "overran_deadline_s"} for p in phases])[0][
        "overran_deadline"] == 0, "phases of older run files have none"
