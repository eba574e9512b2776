"""Label calibration (service/core/calibration.py): the statistics add and decay, the estimator resists skew,
the correction keeps thresholds' meaning, and everything survives JSON, YAML and a Redis hash."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from service.core import calibration as cal
from service.core.model_spec import ModelSpec
from service.core.scoring import embedding_finish
from service.core.task import Task, label_side, score_texts

LABELS = ("billing", "shipping", "refund", "praise", "account", "other")
NO_DECAY = cal.CalibrationConfig(half_life=math.inf, min_texts=0.0)
PLAIN = cal.CalibrationConfig(half_life=math.inf, min_texts=0.0, cap=math.inf)  # the plain mean
CAPPED = replace(NO_DECAY, skew_test=None)  # the capped estimate alone


def synthetic(rng, n, bias, lift=2.0, noise=1.0, frequent=None, ratio=1.0):
    """Evidence with a known bias per label: x[t, i] = bias[i] + lift * [t is of class i] + a per-text level
    + noise. ``frequent`` is ``ratio`` times as likely as each other class."""
    k = len(bias)
    p = np.ones(k)
    if frequent is not None:
        p[frequent] = ratio
    truth = rng.choice(k, n, p=p / p.sum())
    x = np.asarray(bias)[None, :] + rng.normal(0, noise, (n, k)) + rng.normal(0, 3, (n, 1))
    x[np.arange(n), truth] += lift
    return x, truth


EVERY_SUM = ("texts", "total", "by_winner", "by_winner_squares", "wins", "plain", "settled")


def assert_stats_close(a: cal.LabelStats, b: cal.LabelStats, rtol=1e-9, names=EVERY_SUM) -> None:
    assert a.labels == b.labels
    for name in names:
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=rtol, atol=1e-9, err_msg=name)


# -- additive and decayed -----------------------------------------------------------------------------------
@pytest.mark.parametrize("half_life", [math.inf, 50.0])
def test_chunks_merged_equal_one_pass_whatever_the_grouping(half_life):
    rng = np.random.default_rng(1)
    x, _ = synthetic(rng, 90, np.linspace(-1, 1, len(LABELS)))
    config = cal.CalibrationConfig(half_life=half_life, min_texts=10.0)
    whole = cal.observe(cal.LabelStats.empty(LABELS), x, config)
    merged = cal.LabelStats.empty(LABELS)
    for part in np.split(x, [7, 30, 31, 64]):  # uneven chunks, one of a single text
        merged = cal.merge(merged, cal.observe(merged, part, config), half_life)
    # every sum but ``settled``: who wins after the correction known when a chunk came depends on the chunks
    assert_stats_close(merged, whole, names=EVERY_SUM[:-1])
    assert merged.texts == 90
    assert merged.settled.sum() == pytest.approx(merged.total)


def test_each_text_is_summed_in_its_winners_row_and_weighs_by_its_share_of_every_win_held():
    """``observe``: a text's sums go to the row of its raw top label, decayed as the record ages (nothing fades
    until the 30th text, then every text weighs 2 ** (-1 / 30) more than the one before); ``weighed`` applies
    each row's skew weight, min(1, max(cap * (1 - share) / (K - 1), cap_floor) / share), share that label's
    share of all the decayed wins the statistics hold, the texts before and after alike."""
    rng = np.random.default_rng(11)
    config = cal.CalibrationConfig(half_life=30.0, min_texts=0.0)
    before = cal.observe(cal.LabelStats.empty(LABELS), synthetic(rng, 25, np.zeros(len(LABELS)))[0], config)
    assert before.total == 25  # young: nothing faded
    x, _ = synthetic(rng, 60, np.zeros(len(LABELS)), frequent=2, ratio=6.0)
    step = [1.0 if n <= 30 else 2.0 ** (-1 / 30) for n in range(26, 86)]  # what the record keeps at text n
    decay = np.array([np.prod(step[i + 1 :]) for i in range(len(x))])  # each text's, once the last one is in
    centred = x - x.mean(axis=1, keepdims=True)
    winners = np.argmax(x, axis=1)
    delta = cal.observe(before, x, config)
    for j in range(len(LABELS)):
        mine = winners == j
        np.testing.assert_allclose(delta.by_winner[j], decay[mine] @ centred[mine], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(delta.by_winner_squares[j], decay[mine] @ centred[mine] ** 2, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(delta.plain, decay @ centred, rtol=1e-9)
    np.testing.assert_allclose(delta.wins, np.bincount(winners, decay, len(LABELS)), rtol=1e-9)
    record = cal.merge(before, delta, config.half_life)
    share = record.wins / record.total
    w = np.minimum(1.0, np.maximum(config.cap * (1 - share) / (len(LABELS) - 1), config.cap_floor) / share)
    assert w.min() < 0.5  # the frequent class is down-weighted: the test is not of weights of 1
    weight, sums, squares = record.weighed(config)
    assert weight == pytest.approx(w @ record.wins, rel=1e-9)
    np.testing.assert_allclose(sums, w @ record.by_winner, rtol=1e-9)
    np.testing.assert_allclose(squares, w @ record.by_winner_squares, rtol=1e-9)


def test_the_same_texts_give_the_same_offsets_in_any_order_and_calls_of_any_size():
    """A skewed sample of 15 texts over six labels, one at a time, in reverse, in one call, in fours: the same
    statistics (but ``settled``, read after the texts before) and the offsets of the whole sample's ``fit``."""
    rng = np.random.default_rng(13)
    x, _ = synthetic(rng, 15, np.linspace(-1, 1, len(LABELS)), frequent=1, ratio=10.0)
    config = cal.CalibrationConfig(min_texts=10.0, skew_test=None)  # the service's, half-life included
    whole = cal.fit(x, LABELS, config)
    assert np.abs(cal.offsets(whole, config)).max() > 0.1  # a correction to compare, not zeros

    def streamed(rows: np.ndarray, size: int) -> cal.LabelStats:
        stats = cal.LabelStats.empty(LABELS)
        for start in range(0, len(rows), size):
            stats = cal.merge(stats, cal.observe(stats, rows[start : start + size], config), config.half_life)
        return stats

    for rows, size in ((x, 1), (x[::-1], 1), (x, 15), (x[rng.permutation(15)], 4)):
        stats = streamed(rows, size)
        assert_stats_close(stats, whole, names=EVERY_SUM[:-1])
        np.testing.assert_allclose(cal.offsets(stats, config), cal.offsets(whole, config), atol=1e-9)


def test_a_jobs_chunks_summed_are_the_whole_samples_fit():
    """``fit_after``: one chunk is the whole sample's ``fit``; chunks summed one after the other are the whole
    sample's sums (but ``settled``, read after the chunks before), so the job's offsets are the whole fit's."""
    rng = np.random.default_rng(12)
    x, _ = synthetic(rng, 120, np.linspace(-1, 1, len(LABELS)), frequent=1, ratio=8.0)
    whole = cal.fit(x, LABELS, NO_DECAY)
    assert_stats_close(cal.fit_after(cal.LabelStats.empty(LABELS), x, NO_DECAY), whole)
    summed = cal.LabelStats.empty(LABELS)
    for part in np.split(x, [50, 90]):
        summed = summed.plus(cal.fit_after(summed, part, NO_DECAY))
    assert_stats_close(summed, whole, names=EVERY_SUM[:-1])
    assert summed.weighed(NO_DECAY)[0] < summed.total  # the frequent class is weighed down
    np.testing.assert_allclose(cal.offsets(summed, CAPPED), cal.offsets(whole, CAPPED), atol=1e-9)


def test_merge_is_associative_so_replicas_fold_in_any_order():
    """Deltas merged among themselves first decay from where they are in the record (``at``)."""
    rng = np.random.default_rng(2)
    empty = cal.LabelStats.empty(LABELS)
    a, b, c = (cal.observe(empty, synthetic(rng, n, np.zeros(len(LABELS)))[0], NO_DECAY) for n in (5, 11, 3))
    for h in (math.inf, 4.0, 8.0, 20.0):  # 8: a young record when b begins, an old one by c
        later = cal.merge(b, c, h, at=a.texts + b.texts)
        assert_stats_close(cal.merge(cal.merge(a, b, h), c, h), cal.merge(a, later, h))


def test_without_decay_and_skew_guard_the_statistics_are_plain_sums():
    rng = np.random.default_rng(3)
    x, _ = synthetic(rng, 40, np.zeros(len(LABELS)))
    config = cal.CalibrationConfig(half_life=math.inf, min_texts=0.0, cap=math.inf)
    stats = cal.observe(cal.LabelStats.empty(LABELS), x, config)
    centred = x - x.mean(axis=1, keepdims=True)
    weight, sums, squares = stats.weighed(config)
    np.testing.assert_allclose(sums, centred.sum(0))
    np.testing.assert_allclose(stats.plain, centred.sum(0))
    np.testing.assert_allclose(squares, (centred**2).sum(0))
    assert stats.total == weight == stats.texts == 40
    assert stats.wins.sum() == 40


def test_a_record_forgets_nothing_for_a_half_life_then_halves_every_half_life():
    config = cal.CalibrationConfig(half_life=10.0, min_texts=0.0, cap=math.inf)
    first = cal.observe(cal.LabelStats.empty(("a", "b")), np.array([[4.0, 0.0]]), config)
    young = cal.merge(first, cal.observe(first, np.zeros((9, 2)), config), config.half_life)
    np.testing.assert_allclose(young.plain, [2.0, -2.0])  # the first text's +2 / -2, whole at the 10th text
    assert young.texts == young.total == 10
    older = cal.merge(young, cal.observe(young, np.zeros((10, 2)), config), config.half_life)
    np.testing.assert_allclose(older.plain, [1.0, -1.0])  # halved by the 20th
    assert older.texts == 20
    assert older.total == pytest.approx(10 * 0.5 + sum(0.5 ** (j / 10) for j in range(10)))
    np.testing.assert_allclose(cal.decayed(young, 20, 10.0).by_winner, young.by_winner / 4)
    np.testing.assert_allclose(cal.decayed(first, 9, 10.0).by_winner, first.by_winner)


def test_decay_follows_a_drift():
    """Label 'a' is biased up in old traffic, 'b' in new: after a few half-lives the offsets follow."""
    rng = np.random.default_rng(4)
    config = cal.CalibrationConfig(half_life=100.0, min_texts=10.0, cap=math.inf)
    stats = cal.LabelStats.empty(("a", "b", "c"))
    for bias in ([2.0, 0.0, 0.0], [0.0, 2.0, 0.0]):
        for _ in range(40):
            x, _ = synthetic(rng, 16, bias)
            stats = cal.merge(stats, cal.observe(stats, x, config), config.half_life)
    off = cal.offsets(stats, config)
    assert off[1] > off[0] + 1.0
    frozen = cal.LabelStats.empty(("a", "b", "c"))  # never forgetting: both biases averaged
    rng = np.random.default_rng(4)
    for bias in ([2.0, 0.0, 0.0], [0.0, 2.0, 0.0]):
        for _ in range(40):
            x, _ = synthetic(rng, 16, bias)
            frozen = cal.merge(frozen, cal.observe(frozen, x, PLAIN), math.inf)
    still = cal.offsets(frozen, PLAIN)
    assert abs(still[1] - still[0]) < 0.3


# -- the estimator -------------------------------------------------------------------------------------------
def test_a_balanced_sample_recovers_the_bias():
    """The plain mean recovers the (centred) bias; the skew guard costs a little on the labels the bias
    makes win most (their texts are capped too), never the order."""
    rng = np.random.default_rng(5)
    bias = np.array([1.0, -0.5, 0.0, 0.8, -1.0, -0.3])
    x, _ = synthetic(rng, 3000, bias)
    plain = cal.offsets(cal.fit(x, LABELS, PLAIN), PLAIN)
    np.testing.assert_allclose(plain, bias - bias.mean(), atol=0.12)
    off = cal.offsets(cal.fit(x, LABELS, NO_DECAY), NO_DECAY)
    np.testing.assert_allclose(off, bias - bias.mean(), atol=0.25)
    np.testing.assert_array_equal(np.argsort(off), np.argsort(bias))
    assert off.sum() == pytest.approx(0.0, abs=1e-9)


def test_a_common_label_is_not_learned_as_a_biased_one():
    """One class 10x as frequent as each other and no bias at all: the plain mean penalises the common
    label (it learns 'common' as 'biased'), the capped estimator hardly does, and with it accuracy on a
    balanced sample does not drop."""
    rng = np.random.default_rng(6)
    bias = np.zeros(len(LABELS))
    skewed, _ = synthetic(rng, 4000, bias, frequent=0, ratio=10.0)
    plain = cal.offsets(cal.fit(skewed, LABELS, PLAIN), PLAIN)
    capped = cal.offsets(cal.fit(skewed, LABELS, NO_DECAY), NO_DECAY)
    assert plain[0] > 0.7  # 2/3 of the texts lift label 0 by 2
    assert capped[0] < 0.5 * plain[0]
    test, truth = synthetic(np.random.default_rng(7), 4000, bias)
    assert np.mean((test - capped).argmax(1) == truth) >= np.mean(test.argmax(1) == truth) - 0.01
    assert np.mean((test - plain).argmax(1) == truth) < np.mean(test.argmax(1) == truth) - 0.02


def test_two_labels_one_common_are_rebalanced_in_full():
    """Two labels, one class 10x as frequent, no bias, a model right ~95% of the time (a sentiment set where
    one side floods): the common label's texts weigh what the other label's do, so the offsets are about
    the noise and accuracy on a balanced sample stays where the model put it. Weighing them down only to
    the balanced share (1/2) left the sample 85/15 and learned most of the plain mean's penalty (1.04 of 1.23)."""
    labels = ("negative", "positive")
    rng = np.random.default_rng(16)
    skewed, _ = synthetic(rng, 2000, np.zeros(2), lift=3.0, frequent=1, ratio=10.0)
    # the estimate itself, before the coverage guard and the margins' mixture (core.calibration_mix)
    unguarded = replace(CAPPED, coverage_slack=math.inf, mix=None)
    plain = cal.offsets(cal.fit(skewed, labels, replace(unguarded, cap=math.inf)), replace(unguarded, cap=math.inf))
    capped = cal.offsets(cal.fit(skewed, labels, unguarded), unguarded)
    assert plain[1] > 1.0
    assert abs(capped[1]) < 0.1 * plain[1]
    test, truth = synthetic(np.random.default_rng(17), 4000, np.zeros(2), lift=3.0)
    assert np.mean((test - capped).argmax(1) == truth) >= np.mean(test.argmax(1) == truth) - 0.005


def test_the_streaming_path_resists_skew_like_the_batch_fit():
    rng = np.random.default_rng(8)
    bias = np.array([0.0, 0.6, -0.6, 0.0, 0.3, -0.3])
    x, _ = synthetic(rng, 3000, bias, frequent=0, ratio=10.0)
    config = cal.CalibrationConfig(half_life=math.inf, min_texts=20.0)
    stats = cal.LabelStats.empty(LABELS)
    for start in range(0, len(x), 16):
        stats = cal.merge(stats, cal.observe(stats, x[start : start + 16], config), math.inf)
    np.testing.assert_allclose(cal.offsets(stats, config), cal.offsets(cal.fit(x, LABELS, config), config), atol=0.15)


def test_a_bias_stronger_than_the_classes_is_corrected_and_helps():
    rng = np.random.default_rng(9)
    bias = np.array([2.5, 0.0, 0.0, 0.0, 0.0, 0.0])  # label 0 wins most texts of every class
    x, truth = synthetic(rng, 2000, bias)
    off = cal.offsets(cal.fit(x[:1000], LABELS, NO_DECAY), NO_DECAY)
    assert np.mean((x[1000:] - off).argmax(1) == truth[1000:]) > np.mean(x[1000:].argmax(1) == truth[1000:]) + 0.2


def test_no_correction_below_the_minimum_and_noise_is_shrunk():
    rng = np.random.default_rng(10)
    config = cal.CalibrationConfig(half_life=math.inf, min_texts=50.0)
    x, _ = synthetic(rng, 49, np.zeros(len(LABELS)))
    stats = cal.observe(cal.LabelStats.empty(LABELS), x, config)
    assert cal.offsets(stats, config) is None  # uncalibrated
    more = cal.merge(stats, cal.observe(stats, x[:1], config), math.inf)
    assert cal.offsets(more, config) is not None
    # the capped estimate, no bias, few texts: what its weighted mean would correct is noise, and shrinkage
    # removes most of it (the plain mean the skew test picks on balanced samples is not shrunk: measured)
    raw, shrunk = [], []
    for _ in range(200):
        x, _ = synthetic(rng, 30, np.zeros(len(LABELS)), lift=0.0)
        raw.append(cal.offsets(cal.fit(x, LABELS, CAPPED), replace_shrink(CAPPED, False)))
        shrunk.append(cal.offsets(cal.fit(x, LABELS, CAPPED), CAPPED))
    assert np.mean(np.square(shrunk)) < 0.5 * np.mean(np.square(raw))
    # a clear bias and many texts: shrinkage hardly moves it
    bias = np.array([1.0, -1.0, 0.5, -0.5, 0.0, 0.0])
    x, _ = synthetic(rng, 3000, bias)
    big = cal.fit(x, LABELS, CAPPED)
    np.testing.assert_allclose(cal.offsets(big, CAPPED), cal.offsets(big, replace_shrink(CAPPED, False)), atol=0.02)


def test_the_skew_test_takes_the_plain_mean_where_the_corrected_winners_are_balanced():
    """A biased model on a balanced sample: the capped estimate leaves part of the bias in, the winners after
    it are nearly balanced, so the plain mean is used in full. One class 5x as frequent as each other: it
    still wins more than its share after the capped correction, so the capped estimate is used in full."""
    rng = np.random.default_rng(12)
    bias = np.array([1.5, -0.5, 0.0, 0.5, -1.0, -0.5])
    x, _ = synthetic(rng, 3000, bias)
    stats = cal.fit(x, LABELS, NO_DECAY)
    assert cal.capped_share(stats, NO_DECAY) == 0.0
    mean = (x - x.mean(axis=1, keepdims=True)).mean(axis=0)
    plain = mean - mean.mean()  # plain centring
    np.testing.assert_allclose(cal.offsets(stats, NO_DECAY), plain, atol=1e-9)
    capped = cal.offsets(stats, CAPPED)
    assert abs(capped[0] - plain[0]) > 0.1  # what the test buys: the capped estimate differs there
    skewed, _ = synthetic(rng, 3000, bias, frequent=0, ratio=5.0)
    stats = cal.fit(skewed, LABELS, NO_DECAY)
    assert cal.capped_share(stats, NO_DECAY) == 1.0
    np.testing.assert_allclose(cal.offsets(stats, NO_DECAY), cal.offsets(stats, CAPPED), atol=1e-12)
    # the streaming path decides the same way
    streamed = cal.LabelStats.empty(LABELS)
    for start in range(0, len(skewed), 50):
        streamed = cal.merge(streamed, cal.observe(streamed, skewed[start : start + 50], NO_DECAY), math.inf)
    assert cal.capped_share(streamed, NO_DECAY) == 1.0


def test_a_small_samples_skew_test_reads_the_winners_after_the_unshrunk_correction():
    """16 texts, no class common, a model favouring the first label (it wins 10): shrinkage holds most of the
    capped correction back on so few texts, and the winners after the shrunk correction still look skewed (the
    capped estimate would be used in full); after the unshrunk one they are balanced: the plain mean is used."""
    rng = np.random.default_rng(9)
    x, _ = synthetic(rng, 16, np.array([1.5, 0.0, 0.0, 0.0, -0.5, -1.0]))
    stats = cal.fit(x, LABELS, NO_DECAY)
    assert stats.wins[0] == 10
    unshrunk = cal.capped_offsets(stats, NO_DECAY, shrunk=False)
    np.testing.assert_array_equal(stats.settled, np.bincount(np.argmax(x - unshrunk, axis=1), minlength=6))
    assert cal.capped_share(stats, NO_DECAY) == 0.0
    centred = x - x.mean(axis=1, keepdims=True)
    plain = (centred.mean(axis=0) - centred.mean()) * cal.coverage(stats.wins, NO_DECAY.coverage_slack)
    np.testing.assert_allclose(cal.offsets(stats, NO_DECAY), plain, atol=1e-9)  # times the coverage guard
    shrunk = cal.capped_offsets(stats, NO_DECAY)
    after_shrunk = replace(stats, settled=np.bincount(np.argmax(x - shrunk, axis=1), minlength=6).astype(float))
    assert cal.capped_share(after_shrunk, NO_DECAY) == 1.0  # what reading them after the shrunk one decided


def test_under_two_texts_per_label_the_capped_estimate_is_used_without_the_skew_test():
    """Ten texts over six labels, winners balanced after the correction: too few to tell a common class from
    a favoured label, so the capped estimate is used; from twelve texts the test is made."""
    settled = np.array([2.0, 2.0, 2.0, 2.0, 1.0, 1.0])
    stats = replace(cal.LabelStats.empty(LABELS), texts=10.0, total=10.0, settled=settled)
    assert cal.capped_share(stats, NO_DECAY) == 1.0
    more = replace(stats, texts=12.0, total=12.0, settled=settled + np.array([0, 0, 0, 0, 1, 1]))
    assert cal.capped_share(more, NO_DECAY) == 0.0


def test_skew_left_is_zero_for_balanced_winners_and_discounts_chance():
    assert cal.skew_left(np.array([25.0, 25.0, 25.0, 25.0]), 100) == 0.0
    # a 60/40 split of 10 texts is what chance gives: 2 * (0.01 + 0.01) = 0.04 < (2 - 1) / 10
    assert cal.skew_left(np.array([6.0, 4.0]), 10) == 0.0
    # 5 to 1 over 600 texts: sqrt(2 * 2 * (1/3)^2 - 1/600)
    assert cal.skew_left(np.array([500.0, 100.0]), 600) == pytest.approx(math.sqrt(4 / 9 - 1 / 600))


def replace_shrink(config: cal.CalibrationConfig, shrink: bool) -> cal.CalibrationConfig:
    return replace(config, shrink=shrink)


def test_nli_entailment_logits_calibrate_the_same_way():
    """NLI evidence (entailment logits single-label, entailment - contradiction multi-label): a hypothesis
    that entails everything a little is found and corrected in either space."""
    rng = np.random.default_rng(11)
    bias = np.array([1.5, 0.0, -0.5, 0.0])
    entail, truth = synthetic(rng, 2000, bias, lift=3.0)
    contra = -entail + rng.normal(0, 0.5, entail.shape)
    for evidence in (entail, entail - contra):
        off = cal.offsets(cal.fit(evidence, ("a", "b", "c", "d"), NO_DECAY), NO_DECAY)
        assert np.argmax(off) == 0 and np.argmin(off) == 2


# -- the correction and thresholds -----------------------------------------------------------------------------
def test_thresholds_keep_their_meaning():
    """Centred offsets move labels against each other, never the set's level: single-label scores still
    sum to 1; the mean multi-label logit is the model's, so a threshold lets as many labels through on
    average; and one shared record serves both modes of an embedding model (their evidence differs by
    the constant scale * bias)."""
    rng = np.random.default_rng(13)
    bias = np.array([0.8, -0.4, 0.0, 0.3, -0.5, -0.2])
    cos = 0.83 + (synthetic(rng, 500, bias)[0] - 0.0) / 125
    scale, b = 125.0, 0.83
    single = scale * cos
    off = cal.offsets(cal.fit(single, LABELS, NO_DECAY), NO_DECAY)
    off_multi = cal.offsets(cal.fit(scale * (cos - b), LABELS, NO_DECAY), NO_DECAY)
    np.testing.assert_allclose(off, off_multi, atol=1e-9)
    # the service corrects the cosines by the offsets in cosine units (core.task), then finishes as ever
    corrected_cos = cos - off / scale
    np.testing.assert_allclose(embedding_finish(corrected_cos, scale, b, False).sum(1), 1.0)
    multi = scale * (cos - b)
    np.testing.assert_allclose((multi - off).mean(1), multi.mean(1))
    above_raw = (embedding_finish(cos, scale, b, True) >= 0.5).sum()
    above = embedding_finish(corrected_cos, scale, b, True) >= 0.5
    assert abs(above.sum() - above_raw) < 0.05 * multi.size
    # what moved: the biased label passes less often, the one biased down more often
    assert above[:, 0].sum() < (multi >= 0)[:, 0].sum()
    assert above[:, 4].sum() > (multi >= 0)[:, 4].sum()


# -- serialisation -------------------------------------------------------------------------------------------
def some_stats(seed=14, labels=LABELS) -> cal.LabelStats:
    rng = np.random.default_rng(seed)
    config = cal.CalibrationConfig(half_life=200.0, min_texts=0.0)
    return cal.observe(cal.LabelStats.empty(labels), synthetic(rng, 60, np.linspace(-1, 1, len(labels)))[0], config)


def test_hash_fields_round_trip_and_a_new_label_starts_at_zero():
    stats = some_stats(labels=("账单", "a|b", "x"))
    fields = {k.encode(): repr(v).encode() for k, v in cal.to_fields(stats).items()}  # as redis-py returns them
    assert_stats_close(cal.from_fields(stats.labels, fields), stats, rtol=0)
    assert_stats_close(cal.read_fields(stats.labels, fields, math.inf), stats, rtol=0)
    grown = cal.from_fields((*stats.labels, "new"), fields)
    assert grown.wins[-1] == grown.settled[-1] == 0.0
    assert not grown.by_winner[:, -1].any() and not grown.by_winner_squares[:, -1].any()


class FakeHash(dict):
    """A Redis hash's HINCRBYFLOAT, nothing else: what replicas do to a shared record."""

    def hincrbyfloat(self, name: str, amount: float) -> float:
        self[name] = self.get(name, 0.0) + amount
        return self[name]


@pytest.mark.parametrize("half_life", [math.inf, 40.0])
def test_replicas_share_a_record_with_increments_only(half_life):
    """Two replicas flush deltas into one hash with HINCRBYFLOAT and never read it first: the reader's
    decayed statistics are the merge of the deltas in flush order."""
    rng = np.random.default_rng(15)
    config = cal.CalibrationConfig(half_life=half_life, min_texts=0.0)
    record = FakeHash()
    expected = cal.LabelStats.empty(LABELS)
    for _ in range(12):  # replicas take turns; each computes its delta against its own (stale) view
        view = cal.read_fields(LABELS, record, half_life)
        delta = cal.observe(view, synthetic(rng, int(rng.integers(1, 20)), np.zeros(len(LABELS)))[0], config)
        position = record.hincrbyfloat("texts", delta.texts)
        for name, amount in cal.increment_fields(delta, position, float(record.get("origin", 0.0)), half_life).items():
            record.hincrbyfloat(name, amount)
        expected = cal.merge(expected, delta, half_life)
    assert_stats_close(cal.read_fields(LABELS, record, half_life), expected, rtol=1e-9)
    rebased = cal.rebase_fields(LABELS, record, half_life)
    assert rebased["origin"] == record["texts"]
    assert_stats_close(cal.read_fields(LABELS, rebased, half_life), expected, rtol=1e-9)


def test_a_long_lived_record_asks_for_a_rebase_before_floats_overflow():
    fields = {"texts": 1e6, "origin": 0.0}
    assert cal.needs_rebase(fields, 1000.0)
    assert not cal.needs_rebase(fields, math.inf)
    assert 2.0**cal.REBASE_AFTER_HALF_LIVES * 1e6 < 1e200  # a field's growth before the rebase, with room


# -- errors --------------------------------------------------------------------------------------------------
def test_mismatched_labels_and_shapes_are_refused():
    stats = some_stats()
    with pytest.raises(ValueError, match="different label sets"):
        cal.merge(stats, some_stats(labels=LABELS[::-1]), 10.0)
    with pytest.raises(ValueError, match="labels"):
        cal.observe(stats, np.zeros((3, 2)), NO_DECAY)
    with pytest.raises(ValueError, match="unique"):
        cal.LabelStats.empty(("a", "a"))
    with pytest.raises(ValueError, match="half_life"):
        cal.CalibrationConfig(half_life=0)
    assert cal.offsets(cal.fit(np.zeros((5, 1)), ("only",), NO_DECAY), NO_DECAY) is None  # one label: nothing to centre


# -- label examples as a calibration sample; the adaptive blend -------------------------------------------------
def test_leave_own_out_offsets_by_hand():
    values = np.array([[3.0, 1.0, 2.0], [1.0, 3.0, 2.0], [0.0, 0.0, 3.0], [2.0, 0.0, 1.0]])
    owner = [0, 1, 2, 2]
    centred = values - values.mean(1, keepdims=True)
    mean = np.array([centred[[1, 2, 3], 0].mean(), centred[[0, 2, 3], 1].mean(), centred[[0, 1], 2].mean()])
    np.testing.assert_allclose(cal.leave_own_out_offsets(values, owner, shrink=False), mean - mean.mean())
    # a label no other example speaks for (here the only label with examples... of a two-label set)
    alone = cal.leave_own_out_offsets(np.array([[1.0, 0.0], [2.0, 0.0]]), [0, 0], shrink=False)
    assert alone[0] == 0.0 and alone.sum() == pytest.approx(0.0)


def test_blend_shares_keep_the_weight_at_three_examples_and_its_ends():
    shares = cal.blend_shares(0.2, [1, 2, 3, 7, 20])
    assert shares[2] == pytest.approx(0.2)
    assert np.all(np.diff(shares) < 0)  # more examples, less wording
    assert shares[0] == pytest.approx(0.75 / 1.75)
    np.testing.assert_array_equal(cal.blend_shares(0.0, [1, 5]), [0.0, 0.0])
    np.testing.assert_array_equal(cal.blend_shares(1.0, [1, 5]), [1.0, 1.0])


EMB = ModelSpec(kind="embedding", default_template="{}", max_length=32, source="test", revision="r",
                logit_scale=20.0, multi_label_bias=0.3, example_shift=0.05)  # fmt: skip


def unit_rows(rng, n, dim=16):
    v = rng.normal(size=(n, dim))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("multi_label", [False, True])
def test_the_adaptive_blend_is_the_maths_by_hand(multi_label):
    """Task.example_adaptive: the wording's cosines minus their offsets from the other labels' examples,
    each example-bearing label blended with its own share n0 / (n0 + k), none where it has 5+ examples and its
    (centred) wording is not the closest to their prototype (the examples alone)."""
    rng = np.random.default_rng(16)
    counts = (2, 0, 5, 6)
    examples = tuple(tuple(f"e{i}.{j}" for j in range(n)) for i, n in enumerate(counts))
    task = Task(("t",), tuple((f"l{i}",) for i in range(4)), multi_label, examples=examples, example_rule="blend",
                example_weight=0.3, example_adaptive=True)  # fmt: skip
    rows = unit_rows(rng, 1 + 4 + sum(counts))
    text, wording, ex = rows[0], rows[1:5], rows[5:]
    groups = np.split(ex, np.cumsum(counts)[:-1])
    owner = np.repeat(np.arange(4), counts)
    alpha = cal.leave_own_out_offsets(ex @ wording.T, owner)
    cos = wording @ text - alpha
    have = [0, 2, 3]
    sim = np.array([text @ (g.mean(0) / np.linalg.norm(g.mean(0))) for g in (groups[i] for i in have)])
    shift = np.mean(sim - cos[have])
    protos = np.stack([g.mean(0) / np.linalg.norm(g.mean(0)) for g in (groups[i] for i in have)])
    closeness = protos @ wording.T - alpha
    agrees = np.array([float(counts[i] < 5 or closeness[j].argmax() == i) for j, i in enumerate(have)])
    w = cal.blend_shares(0.3, [counts[i] for i in have]) * agrees
    cos[have] = (1 - w) * (sim - shift) + w * cos[have]
    want = embedding_finish(cos, 20.0, 0.3, multi_label)
    side = label_side(task, rows[1:])
    assert 0 < side.agrees.sum() < len(have)  # this draw has a wording that points elsewhere: both cases run
    got = score_texts(EMB, task, rows[:1], side)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    # off by default: the rule the service has always applied
    plain = Task(task.texts, task.hypotheses, multi_label, examples=examples, example_rule="blend",
                 example_weight=0.3)  # fmt: skip
    assert label_side(plain, rows[1:]).wording_offsets is None


def test_held_back_moves_each_offset_towards_zero_by_its_errors_and_no_further():
    offsets = np.array([0.6, -0.1, -0.5])
    var = np.array([0.16, 0.16, 0.04])  # standard errors 0.4, 0.4, 0.2
    out = cal.held_back(offsets, var, 0.5)  # by 0.2, 0.2, 0.1: 0.4, 0 (not past it), -0.4, then centred
    np.testing.assert_allclose(out, [0.4, 0.0, -0.4], atol=1e-12)
    np.testing.assert_allclose(cal.held_back(np.array([0.3, -0.3]), np.array([1.0, 1.0]), 1.0), [0.0, 0.0])
    assert cal.held_back(offsets, var, 0.0) is offsets
    stats = cal.fit(synthetic(np.random.default_rng(16), 30, np.linspace(-1, 1, len(LABELS)))[0], LABELS, CAPPED)
    shrunk = cal.capped_offsets(stats, replace(CAPPED, hold_back=0.0))
    held = cal.capped_offsets(stats, CAPPED)
    assert 0 < np.abs(held).sum() < np.abs(shrunk).sum()  # the service's hold-back is on
    with pytest.raises(ValueError, match="hold_back"):
        cal.CalibrationConfig(hold_back=-1.0)
