"""The burst guard: a source's texts weigh less while their winners depart from the record's, and only then."""

from __future__ import annotations

import numpy as np
import pytest

from service.core import calibration as cal
from service.core.calibration_bursts import BurstDetector, BurstGuard

GUARD = BurstGuard()


def winners(rng: np.random.Generator, shares: list[float], n: int) -> np.ndarray:
    return rng.choice(len(shares), size=n, p=shares)


@pytest.mark.parametrize("shares", [[0.5, 0.5], [0.7, 0.3], [1 / 118] * 118])
def test_a_stream_with_the_records_mix_keeps_its_whole_weight(shares):
    rng = np.random.default_rng(3)
    record = np.array(shares) * 2000
    detector = BurstDetector(len(shares), GUARD)
    keep = detector.keep(winners(rng, shares, 2000), record, 2000.0, 2000.0)
    assert keep.mean() > 0.97  # chance departures are forgiven; a many-label set's sparse shares too


@pytest.mark.parametrize("k", [2, 10, 118])
def test_a_flood_of_one_label_is_held_back_within_a_few_dozen_texts(k):
    rng = np.random.default_rng(4)
    shares = [1 / k] * k
    detector = BurstDetector(k, GUARD)
    detector.keep(winners(rng, shares, 300), np.array(shares) * 300, 300.0, 300.0)  # the client's balanced stream
    keep = detector.keep(np.zeros(1000, dtype=np.int64), np.array(shares) * 300, 300.0, 300.0)
    assert keep[40:].max() == 0.0
    assert keep.sum() < 30
    assert detector.last_keep == 0.0


def test_a_records_first_texts_are_its_baseline_and_weigh_in_full():
    detector = BurstDetector(2, GUARD)
    assert detector.keep(np.zeros(100, dtype=np.int64), np.zeros(2), 0.0, 0.0).tolist() == [1.0] * 100
    off = BurstDetector(2, BurstGuard(lift=0.0))
    assert off.keep(np.zeros(5, dtype=np.int64), np.array([50.0, 50.0]), 100.0, 100.0).tolist() == [1.0] * 5


def test_held_back_texts_count_as_seen_and_add_nothing_else():
    rng = np.random.default_rng(5)
    config = cal.CalibrationConfig(half_life=2000.0, min_texts=0.0)
    x = rng.normal(0, 1, (16, 2))
    delta = cal.observe(cal.LabelStats.empty(("0", "1")), x, config, np.zeros(16))
    assert delta.texts == 16
    assert delta.total == 0 and not delta.by_winner.any() and not delta.by_winner_squares.any() and not delta.wins.any()
    half = cal.observe(cal.LabelStats.empty(("0", "1")), x, config, np.full(16, 0.5))
    full = cal.observe(cal.LabelStats.empty(("0", "1")), x, config)
    assert half.plain == pytest.approx(full.plain / 2)


def test_a_same_source_flood_leaves_the_offsets_its_stream_gave():
    """A biased two-label model (label 0 lifted by 0.5) learns from a balanced stream, then 10,000 texts of class 1
    arrive from the same source, in batches as the service folds them: the offsets stay where the stream put them
    (the guard off, the flood's in-class lift takes them the other way)."""
    rng = np.random.default_rng(6)
    config = cal.CalibrationConfig()

    def texts(cls: np.ndarray) -> np.ndarray:
        return rng.normal(0, 1, (len(cls), 2)) + 2.0 * np.eye(2)[cls] + np.array([0.5, 0.0])

    def stream(order: np.ndarray, guard: BurstGuard) -> np.ndarray:
        stats = cal.LabelStats.empty(("0", "1"))
        detector = BurstDetector(2, guard)
        x = texts(order)
        for start in range(0, len(x), 16):
            batch = x[start : start + 16]
            keep = cal.burst_weights(detector, stats, batch, config)
            stats = cal.merge(stats, cal.observe(stats, batch, config, keep), config.half_life)
        return cal.offsets(stats, config)

    balanced = rng.permutation(np.repeat([0, 1], 200))
    flooded = np.concatenate([balanced, np.ones(10_000, dtype=np.int64)])
    own = stream(balanced, GUARD)
    assert own[0] > 0.2  # the bias learned
    assert stream(flooded, GUARD)[0] == pytest.approx(own[0], abs=0.1)
    assert stream(flooded, BurstGuard(lift=0.0))[0] < own[0] - 0.2


def test_a_mix_that_spreads_the_wins_is_let_in():
    """A record that began with one class's texts (won 95/5) then gets balanced traffic: that traffic is what
    calibration needs, and the record's mix (its coverage: the trust the caller passes) is no baseline to hold on
    to, so it is let in; held to such a mix in full, it would be held back."""
    rng = np.random.default_rng(7)
    detector = BurstDetector(2, GUARD)
    wins = np.array([95.0, 5.0])
    trust = cal.coverage(wins, cal.CalibrationConfig().coverage_slack)
    assert detector.keep(winners(rng, [0.5, 0.5], 500), wins, 100.0, 100.0, trust).mean() > 0.8
    assert BurstDetector(2, GUARD).keep(winners(rng, [0.5, 0.5], 500), wins, 100.0, 100.0).mean() < 0.5
