"""The statistics behind every interval and verdict (jiobench.model.stats), on constructed samples."""
import numpy as np
import pytest
from scipy import stats as scipy_stats

from jiobench.model import stats


def test_the_median_interval_is_the_order_statistics_the_binomial_allows():
    assert stats.median_interval(range(1, 6)) is None, "5 values cannot give 95%: 1 - 2/32 = 93.75%"
    assert stats.median_interval(range(1, 7)) == (1, 6), "6 values: smallest to largest, 1 - 2/64 = 96.9%"
    assert stats.median_interval(range(1, 21)) == (6, 15)
    # The coverage the order statistics promise, from the binomial distribution itself.
    assert 1 - 2 * scipy_stats.binom.cdf(5, 20, 0.5) >= 0.95 > 1 - 2 * scipy_stats.binom.cdf(6, 20, 0.5)


def test_the_median_interval_ignores_the_infinite_rates_of_phases_that_took_no_time():
    assert stats.median_interval([float("inf")] + list(range(1, 7))) == (1, 6)


def test_a_ratio_whose_interval_holds_one_is_the_same():
    rng = np.random.default_rng(3)
    a, b = rng.normal(100, 5, 12), rng.normal(100, 5, 12)
    found = stats.ratio(b, a)
    assert found.ci95[0] < 1 < found.ci95[1]
    assert found.verdict == stats.SAME


def test_clearly_separated_samples_are_faster_or_slower():
    rng = np.random.default_rng(4)
    slow, fast = rng.normal(100, 5, 10), rng.normal(150, 5, 10)
    assert stats.ratio(fast, slow).verdict == stats.FASTER
    assert stats.ratio(slow, fast).verdict == stats.SLOWER
    assert stats.ratio(slow, fast).value == pytest.approx(np.median(slow) / np.median(fast))


def test_a_sure_difference_within_five_percent_is_the_same():
    assert stats.verdict((1.01, 1.04)) == stats.SAME
    assert stats.verdict((0.96, 0.99)) == stats.SAME
    assert stats.verdict((1.01, 1.06)) == stats.FASTER, "not all of it within 5%"


def test_an_interval_spanning_more_than_a_factor_two_around_one_is_unclear():
    assert stats.verdict((0.4, 1.2)) == stats.UNCLEAR
    assert stats.verdict((0.6, 1.2)) == stats.SAME
    assert stats.verdict((0.1, 0.5)) == stats.SLOWER, "wide, but all of it below 1"


def test_fewer_than_six_repetitions_a_side_give_no_interval_and_no_verdict():
    found = stats.ratio([1, 1, 1, 1, 1], [2] * 10)
    assert found.value == 0.5 and found.ci95 is None and found.verdict == stats.UNCLEAR


def test_repetitions_that_all_measured_the_same_give_that_ratio_as_the_interval():
    found = stats.ratio([1.0] * 8, [2.0] * 8)
    assert found.ci95 == (0.5, 0.5) and found.verdict == stats.SLOWER


def test_a_reference_that_moved_nothing_has_no_ratio():
    assert stats.ratio([1.0] * 8, [0.0] * 8) is None


def test_the_same_data_gives_the_same_interval_every_time():
    rng = np.random.default_rng(5)
    a, b = rng.lognormal(0, 0.3, 9), rng.lognormal(0, 0.3, 9)
    assert stats.ratio(b, a) == stats.ratio(b, a)


def test_noisy_is_a_half_width_over_ten_percent_or_no_interval():
    assert not stats.is_noisy(100, (91, 109))
    assert stats.is_noisy(100, (85, 110))
    assert stats.is_noisy(100, None)


def test_the_bootstrap_interval_of_a_ratio_covers_the_true_ratio_95_percent_of_the_time():
    """1,000 pairs of samples of 10 repetitions from skewed (log-normal) timings whose medians are in
    a known ratio of 1.5: the interval must hold 1.5 in 92% to 98% of them."""
    rng = np.random.default_rng(2026)
    draws, covered = 1000, 0
    for _ in range(draws):
        reference = rng.lognormal(np.log(100), 0.2, 10)
        values = rng.lognormal(np.log(150), 0.2, 10)
        low, high = stats.ratio_interval(values, reference)
        covered += low <= 1.5 <= high
    assert 0.92 <= covered / draws <= 0.98, covered / draws
