"""Two labels' margins as a mixture: fitted from binned margins, followed only where the sample is skewed and the
classes apart, towards the midpoint for traffic and the sample's own mix for a job; never for other label counts."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from service.core.calibration_mix import (
    MARGIN_BIN,
    MARGIN_BINS,
    MIDPOINT_ERRORS,
    TwoClassMix,
    fit_mix,
    job_offsets,
    known_classes_error,
    margin_bins,
    margin_counts,
    mix_weight,
    traffic_offsets,
)


def two_classes(
    rng: np.random.Generator, second: int, first: int, bias: float = 0.0, spread: float = 2.0
) -> np.ndarray:
    """[texts, 2] evidence: margins N(+1.5 * spread, 1.5²) for the second label's texts, N(-1.5 * spread, 1.5²) for
    the first's (``spread`` deviations from 0), plus ``bias`` (the model favouring the second label), split around a
    per-text level the margin ignores."""
    margin = np.concatenate([rng.normal(1.5 * spread, 1.5, second), rng.normal(-1.5 * spread, 1.5, first)]) + bias
    level = rng.normal(10.0, 2.0, len(margin))
    return np.stack([level - margin / 2, level + margin / 2], axis=1)


def right(x: np.ndarray, truth: np.ndarray, offsets: np.ndarray) -> float:
    return float(np.mean((x - offsets).argmax(axis=1) == truth))


def test_margins_are_counted_per_bin_and_the_far_ones_in_the_last():
    x = np.array([[0.0, 0.05], [0.0, 0.15], [0.17, 0.0], [0.0, 1e6], [1e6, 0.0]])
    half = MARGIN_BINS // 2
    assert margin_bins(x).tolist() == [half, half + 1, half - 2, MARGIN_BINS - 1, 0]
    counts = margin_counts(x, np.array([1.0, 0.5, 1.0, 1.0, 2.0]))
    assert counts.shape == (MARGIN_BINS,) and counts.sum() == 5.5 and counts[0] == 2.0 and counts[half + 1] == 0.5
    with pytest.raises(ValueError, match=r"\[texts, 2\]"):
        margin_bins(np.zeros((3, 3)))


@pytest.mark.parametrize("second, first", [(1800, 200), (1000, 1000), (300, 1700)])
def test_the_mixture_recovers_the_mix_and_the_classes_margins(second, first):
    mix = fit_mix(margin_counts(two_classes(np.random.default_rng(5), second, first, bias=1.0)))
    assert mix is not None
    assert mix.share == pytest.approx(second / (second + first), abs=0.03)
    assert mix.low == pytest.approx(-2.0, abs=0.25) and mix.high == pytest.approx(4.0, abs=0.25)
    assert math.sqrt(mix.variance) == pytest.approx(1.5, abs=0.15)


def test_the_threshold_moves_from_the_midpoint_towards_the_rarer_class():
    even = TwoClassMix(low=-2.0, high=4.0, variance=2.25, share=0.5)
    assert even.threshold() == pytest.approx(1.0)
    common_second = TwoClassMix(low=-2.0, high=4.0, variance=2.25, share=0.9)
    assert common_second.threshold() == pytest.approx(1.0 + 2.25 / 6.0 * math.log(1 / 9))
    assert common_second.threshold() < 1.0  # fewer of the first label's texts: fewer answered as it


def test_the_midpoint_moves_only_as_far_as_it_lies_beyond_its_noise():
    # 0.1 logit off 0 with a standard error of 0.18: the sample cannot tell this bias from noise
    few = TwoClassMix(low=-3.0, high=3.2, variance=2.25, share=0.9, error=0.18)
    assert few.midpoint() == 0.0  # the model's own threshold
    assert few.threshold() == pytest.approx(2.25 / 6.2 * math.log(0.1 / 0.9))  # a job's mix still moves it
    many = TwoClassMix(low=-3.0, high=3.2, variance=2.25, share=0.9, error=0.02)
    assert many.midpoint() == pytest.approx(0.1 - MIDPOINT_ERRORS * 0.02)
    negative = TwoClassMix(low=-4.0, high=2.0, variance=2.25, share=0.1, error=0.02)
    assert negative.midpoint() == pytest.approx(-1.0 + MIDPOINT_ERRORS * 0.02)
    known = TwoClassMix(low=-3.0, high=3.2, variance=2.25, share=0.9)  # means given, not estimated
    assert known.error == 0.0 and known.midpoint() == pytest.approx(0.1)
    # were each text's class known: 0.75 * sqrt(1/20 + 1/180) with 20 texts of the rarer class of 200
    assert known_classes_error(2.25, 0.9, 200.0) == pytest.approx(0.75 * math.sqrt(1 / 20 + 1 / 180))


@pytest.mark.parametrize("apart, second, first", [(4.0, 900, 100), (3.0, 450, 50), (3.0, 270, 30), (4.0, 500, 500)])
def test_the_midpoints_error_is_its_spread_over_samples(apart, second, first):
    """The error the hold-back uses is what a fitted midpoint really varies by from sample to sample; the
    formula for known classes under-states it, the more the closer the classes (they share texts between them)."""
    rng = np.random.default_rng(12)
    fits = [fit_mix(margin_counts(two_classes(rng, second, first, spread=apart / 2))) for _ in range(200)]
    fits = [mix for mix in fits if mix is not None]
    spread = np.std([(mix.low + mix.high) / 2 for mix in fits])
    assert len(fits) > 190
    assert np.mean([mix.error for mix in fits]) == pytest.approx(spread, rel=0.15)
    known = np.mean([known_classes_error(mix.variance, mix.share, second + first) for mix in fits])
    assert known < 0.9 * spread
    assert all(mix.error >= known_classes_error(mix.variance, mix.share, second + first) - 1e-12 for mix in fits)


def test_a_skewed_samples_balanced_correction_moves_no_further_than_the_midpoint():
    """Where the mixture is trusted in part (the mix 78/22), the rest of the answer is the balanced correction,
    which on a skewed sample learns part of the common class as bias: it is kept between 0 and the midpoint."""
    rng = np.random.default_rng(13)
    counts = margin_counts(two_classes(rng, 780, 220, bias=0.6))
    mix = fit_mix(counts)
    weight = mix_weight(mix)
    assert 0.0 < weight < 1.0 and mix.midpoint() > 0.3
    threshold = traffic_offsets(np.array([-1.0, 1.0]), counts) @ np.array([-1.0, 1.0])  # beyond the midpoint
    assert threshold == pytest.approx(mix.midpoint())
    threshold = traffic_offsets(np.array([0.4, -0.4]), counts) @ np.array([-1.0, 1.0])  # the other way: not used
    assert threshold == pytest.approx(weight * mix.midpoint())
    threshold = traffic_offsets(np.array([-0.1, 0.1]), counts) @ np.array([-1.0, 1.0])  # within it: as it is
    assert threshold == pytest.approx(weight * mix.midpoint() + (1 - weight) * 0.2)


def test_an_unbiased_model_keeps_its_threshold_on_small_skewed_samples():
    """The model's 0 is right; a skewed sample's fitted midpoint is noise (and leans towards the common class):
    held back by its error, balanced texts that come next are answered better than at the raw midpoint."""
    rng = np.random.default_rng(11)
    held, raw, none = [], [], []
    later = two_classes(rng, 2000, 2000)
    truth = np.array([1] * 2000 + [0] * 2000)
    for _ in range(60):
        counts = margin_counts(two_classes(rng, 190, 20))
        mix = fit_mix(counts)
        if mix is None or mix_weight(mix) < 1.0:
            continue
        mid = (mix.low + mix.high) / 2
        held.append(right(later, truth, traffic_offsets(np.zeros(2), counts)))
        raw.append(right(later, truth, np.array([-mid / 2, mid / 2])))
        none.append(right(later, truth, np.zeros(2)))
    assert len(held) > 30
    assert np.mean(held) > np.mean(raw)
    assert np.mean(held) >= np.mean(none) - 0.001


def test_nothing_to_fit_where_every_raw_answer_is_one_labels():
    assert fit_mix(np.zeros(MARGIN_BINS)) is None
    one_side = np.zeros(MARGIN_BINS)
    one_side[MARGIN_BINS // 2 + 30] = 10.0
    assert fit_mix(one_side) is None
    assert mix_weight(None) == 0.0


def test_a_mix_near_even_keeps_the_balanced_correction():
    balanced = np.array([-0.4, 0.4])
    counts = margin_counts(two_classes(np.random.default_rng(6), 560, 440, bias=1.0))
    assert mix_weight(fit_mix(counts)) == 0.0
    assert job_offsets(balanced, counts).tolist() == traffic_offsets(balanced, counts).tolist() == [-0.4, 0.4]


def test_skewed_traffic_is_corrected_towards_the_classes_midpoint():
    rng = np.random.default_rng(7)
    x = two_classes(rng, 900, 100, bias=1.0)  # the model favours the common label by 1 logit
    counts = margin_counts(x)
    mix = fit_mix(counts)
    capped = np.array([-0.9, 0.9])  # a balanced correction that took part of the class mix for bias
    moved = traffic_offsets(capped, counts)
    assert moved.sum() == pytest.approx(0.0)  # centred, as every offset
    assert (mix.low + mix.high) / 2 == pytest.approx(1.0, abs=0.2)  # the bias, read through the class mix
    # moved to it but for MIDPOINT_ERRORS standard errors of it (~0.1 logit each with 100 texts of the rarer class)
    assert moved[1] - moved[0] == pytest.approx(mix.midpoint())
    assert mix.midpoint() == pytest.approx((mix.low + mix.high) / 2 - MIDPOINT_ERRORS * mix.error)
    assert 0.05 < mix.error < 0.15
    later = two_classes(rng, 500, 500, bias=1.0)  # what comes next, balanced
    truth = np.array([1] * 500 + [0] * 500)
    assert right(later, truth, moved) > right(later, truth, capped)


def test_a_skewed_job_is_answered_for_its_own_mix():
    rng = np.random.default_rng(7)
    x = two_classes(rng, 900, 100, bias=-1.0)  # the model favours the rarer label
    truth = np.array([1] * 900 + [0] * 100)
    balanced = np.array([0.5, -0.5])  # the bias, as a balanced sample shows it
    counts = margin_counts(x)
    mix = fit_mix(counts)
    assert mix_weight(mix) == 1.0
    shifted = job_offsets(balanced, counts)
    assert shifted.sum() == pytest.approx(0.0)
    assert shifted[1] - shifted[0] == pytest.approx(mix.threshold())
    best = TwoClassMix(low=-4.0, high=2.0, variance=2.25, share=0.9).threshold()  # the true mixture's
    # the fitted one's, but for its midpoint held back towards the model's own threshold by MIDPOINT_ERRORS errors
    assert mix.threshold() - (mix.midpoint() - mix.midpoint(errors=0.0)) == pytest.approx(best, abs=0.3)
    assert abs(mix.midpoint()) < abs(mix.midpoint(errors=0.0))
    assert right(x, truth, shifted) > right(x, truth, np.zeros(2))  # the bias pushed the common class down
    assert right(x, truth, shifted) > right(x, truth, balanced)  # the balanced correction is not enough for this mix


def test_classes_whose_margins_are_one_hump_keep_the_balanced_correction():
    rng = np.random.default_rng(9)
    margin = np.concatenate([rng.normal(0.8, 1.5, 900), rng.normal(-0.8, 1.5, 100)])  # ~1 deviation apart
    x = np.stack([-margin / 2, margin / 2], axis=1)
    mix = fit_mix(margin_counts(x))
    assert mix is None or mix_weight(mix) == 0.0
    assert job_offsets(np.array([0.2, -0.2]), margin_counts(x)).tolist() == [0.2, -0.2]
    apart = TwoClassMix(low=-3.0, high=3.0, variance=2.25, share=0.9)  # 4 deviations apart, 90/10
    assert mix_weight(apart) == 1.0
    assert mix_weight(TwoClassMix(low=-1.25, high=1.25, variance=1.0, share=0.9)) == 0.5  # 2.5 apart: half


def test_only_two_label_calibrated_samples_follow_their_mix():
    counts = margin_counts(two_classes(np.random.default_rng(8), 950, 50))
    assert job_offsets(None, counts) is None  # uncalibrated (too few texts) stays so
    three = np.array([0.1, -0.3, 0.2])
    assert job_offsets(three, np.zeros(0)) is three and traffic_offsets(three, np.zeros(0)) is three
    assert job_offsets(np.array([-0.5, 0.5]), counts, None).tolist() == [-0.5, 0.5]  # the setting off
    assert MARGIN_BIN * MARGIN_BINS == pytest.approx(50.0)


def test_a_side_decayed_for_dozens_of_half_lives_still_fits_or_is_left_alone():
    """A long-lived record keeps its first texts' bins at weights like 2**-70 of its last ones' (until it is
    rebased): the raw mix rounds to all one side, which must neither raise nor move the answer."""
    counts = np.zeros(MARGIN_BINS)
    counts[MARGIN_BINS // 2 + 40] = 1e12  # this record's recent texts, all one side
    counts[MARGIN_BINS // 2 - 40] = 1e-9  # the other side, long decayed
    mix = fit_mix(counts)
    assert mix is None or (math.isfinite(mix.error) and mix.error >= 0)
    assert np.all(np.isfinite(traffic_offsets(np.array([-0.3, 0.3]), counts)))


def test_few_distinct_margins_give_a_finite_error_and_no_warning():
    """Two or three occupied bins leave the mixture's information near singular: the error falls back to the
    known-classes floor, without numpy's overflow warnings in the service's log."""
    rng = np.random.default_rng(14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2000):
            counts = np.zeros(MARGIN_BINS)
            occupied = rng.integers(0, MARGIN_BINS, rng.integers(1, 6))
            counts[occupied] = rng.choice([1e-9, 1e-3, 1.0, 3.0, 1e3, 1e12], len(occupied)) * rng.random(len(occupied))
            mix = fit_mix(counts)
            if mix is not None:
                assert math.isfinite(mix.error) and mix.error >= 0
                assert np.all(np.isfinite(job_offsets(np.array([-0.3, 0.3]), counts)))
