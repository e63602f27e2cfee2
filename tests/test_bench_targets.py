"""How bench/ratios.py judges a target (APPROACH=FRACTION*REFERENCE): by where the ratio's 95%
interval lies against the fraction, never by the median alone; calibrate is never compared."""
from __future__ import annotations

import sys

import pytest

from testing import HOME

sys.path.insert(0, str(HOME / "bench"))
try:
    import ratios
finally:
    sys.path.remove(str(HOME / "bench"))


def judged(value, interval, fraction=0.95):
    return ratios.target_verdict({"to": "c-swap", "value": value, "ci95": interval, "verdict": "-"}, fraction)


@pytest.mark.parametrize("value, interval, verdict", [
    (1.02, [0.96, 1.08], "met"),
    (0.97, [0.95, 0.99], "met"),  # the interval reaches the fraction exactly
    (0.97, [0.91, 1.04], "within noise"),  # the median is past the fraction, the interval is not
    (0.93, [0.90, 0.96], "within noise"),  # the median falls short, yet the interval holds the fraction
    (0.85, [0.80, 0.90], "missed"),
    (1.02, None, "unclear"),  # fewer than 6 repetitions a side: no interval
])
def test_a_target_is_met_or_missed_only_where_the_whole_interval_says_so(value, interval, verdict):
    assert judged(value, interval) == verdict


def phase(approach, rate, rep, warmup=False):
    return {"approach": approach, "op": "read", "ranks": 1, "rep": rep, "warmup": warmup, "bw_mib_s": rate}


def test_targets_take_the_measured_phases_of_the_run_and_never_its_warm_up():
    run = {"phases": [phase("c-swap", 1.0, 0, warmup=True), phase("nio-bulk", 99.0, 0, warmup=True)]
           + [phase("c-swap", 100.0 + rep, rep) for rep in range(1, 9)]
           + [phase("nio-bulk", 80.0 + rep, rep) for rep in range(1, 9)]}

    [(approach, op, fraction, reference, found)] = ratios.target_ratios(run, ["nio-bulk=0.95*c-swap"])

    assert (approach, op, fraction, reference) == ("nio-bulk", "read", 0.95, "c-swap")
    assert found["value"] == pytest.approx(84.5 / 104.5)
    assert found["ci95"][1] < 0.95 and ratios.target_verdict(found, fraction) == "missed"
    assert ratios.targets(run, ["nio-bulk=0.95*c-swap"])[0].startswith(
        "  target nio-bulk read >= 0.95 x c-swap: missed (0.81x [")


def test_calibrate_has_no_ratio_to_anything():
    rates = [512.0] * 8
    assert ratios.ratio("calibrate", rates, "c-posix", rates) is None
    assert ratios.ratio("calibrate", rates, "calibrate", rates) is None
    assert ratios.ratio("c-swap", rates, "c-posix", rates)["verdict"] == "same"
