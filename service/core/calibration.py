"""Label calibration: per-label offsets learned from unlabelled texts, subtracted from the raw evidence.

Zero-shot evidence carries a bias per label: some wordings sit closer to every text than others and win
too often. The correction subtracts from each label's raw value its *background level*: the mean of that
label's value over the texts of the same task, none of them labelled. Pure numpy + stdlib; no I/O.

The evidence is the value the service turns into scores (``core.scoring``), one row per text:

- embedding model: ``scale * cos`` (single-label: softmax of it; multi-label: sigmoid of it minus
  ``scale * bias``). Both modes differ by a constant per text, which the centred offsets ignore, so one
  record serves both modes;
- NLI model: the entailment logit (single-label) or entailment minus contradiction (multi-label): two
  different quantities, so two records (the caller keys them apart).

What is kept (``LabelStats``), per label set (the task: the same wordings scored together):

- ``by_winner``: per pair of labels (j, k), Σ d·x_k over the texts label j won, and ``by_winner_squares``:
  Σ d·x_k², where x_k is label k's value minus the text's mean over the set's labels (a per-text constant moves
  nothing, and removing it leaves only what differs between labels, so the noise estimate for shrinkage is
  honest), d the text's decay; summed over the rows, the plain sums (every text weighing 1);
- ``wins``: Σ d·[the label is the text's top label] (how often each label wins, before any correction) and
  ``settled``: Σ d·[the label wins after the capped correction] (the skew test, below);

and for the set: ``texts`` (texts seen, not decayed) and ``total`` (Σ d). Every field is a sum over texts, so
replicas add their deltas (Redis HINCRBYFLOAT, ``increment_fields``). A text's skew weight (below) depends only
on the label it won, so it is applied when the offsets are read, from the wins of every text the record holds
(``LabelStats.weighed``): the same texts give the same offsets in any order and in calls of any size. Weighed
as each text came, from the wins before it, a small sample's first texts weighed by chance: the English sets'
skewed samples of 10-15 texts answered up to 0.016 worse than the same texts weighed as a whole
(docs/evaluation.md, "Order-free weights"). The price is a row of sums per winning label: 2K² numbers where there
were 3K.

**Decay** is exponential in the number of texts, once the record has seen ``half_life`` texts: until then nothing
fades (its texts weigh the same, the plain mean of what it has: forgetting part of a sample smaller than the memory
only adds noise, and a 16-text half's decay tipped an answer that plain centring of the same texts did not), and
from then on a text's weight halves every ``half_life`` texts (``age``: a text counts as if it came at the
``half_life``-th text when it came before).

**Skew** (one label common is not one label biased): a text's weight is capped by how often its top
label wins: ``w = min(1, max(cap * (1 - share) / (K - 1), cap_floor) / share)``, ``share`` that label's share
of the wins, so texts won by one label count for at most what each other label wins on average (with many
labels at least ``cap_floor``, 10%). A balanced sample has weights of 1 (the plain mean); a skewed one is
re-balanced by predicted class, with two labels in full (a 91/9 sample weighs 9/9): a cap at the balanced
share 1 / K leaves such a sample lopsided, and its common class's lift is learned as bias again
(docs/evaluation.md, "The other labels' share"). The plain mean over a sample where one class is several times as
frequent learns that class's in-class lift as bias and answers worse than no correction (docs/evaluation.md,
"Label calibration"); bench/studies/label_calibration.py compares the cap with the plain mean,
leave-the-winner-out, posterior-weighted means (with and without an EM prior), the median, prior matching and
content-free inputs.

**Skew test**: the cap also binds where no class is common, for a label the model itself favours (a label
winning 70% of a balanced two-label sample is capped like a common class), and keeps part of that bias in:
on balanced samples the capped estimate stays below the plain mean (docs/evaluation.md, "The skew test"). So the
record also keeps the plain sums and who wins *after* the capped correction (``settled``): where the winners
are then balanced (``skew_left`` under ``skew_test[0]``) the excess wins were bias and the plain mean is used;
where one class still wins more than its share (``skew_test[1]`` and over: a class 5 times as frequent as
each other reads ~0.5), the capped estimate is; linear between (bench/studies/calibration_estimators.py).
The winners are read after the capped correction *before* shrinkage: the test asks whether the model's bias,
once corrected, explains the excess wins, and a small sample's shrunk correction leaves that bias in them, so
a balanced sample of a few texts per label would read as skewed (docs/evaluation.md, "Small samples"). Under
``SKEW_TEST_TEXTS_PER_LABEL`` texts per label the test is not made and the capped estimate is
used: with ten texts over six labels a noisy correction moving one text swings ``skew_left`` across the whole
test, and the plain mean of a sample that small is the worst estimate if a class is common (docs/evaluation.md,
"Small samples").

**Coverage**: a sample where one label wins nearly every text says nothing about the other labels'
background, and its offsets would only push that label down (one client's stream of one class, or a
flood): the offsets are scaled down when the raw winners do not spread over the labels (``coverage``).
A looser cap (1.5 times the balanced share) was measured too (bench/studies/calibration_estimators.py,
docs/evaluation.md "Which estimator"): a little more of a balanced sample's correction, and a common label
learned as a biased one again, so the cap stays at 1.

**Noise**: offsets estimated from few texts are noisy; each centred offset is shrunk towards 0 by an
empirical-Bayes factor ``tau² / (tau² + v_i)`` (``v_i``: its sampling variance; ``tau²``: the spread of the
offsets beyond that noise), so a small or bias-free sample corrects little, a large one fully; then each is
held back by a quarter of its standard error (``held_back``, ``CalibrationConfig.hold_back``: on ten or fifteen
texts over six labels one text of each rarer label sets offsets as large as their noise, which moved the answers
of a model that needed no correction). That is the capped estimate's; the plain mean the skew test picks is
used as it is (the test picks it where the sample is balanced, whose bar is plain centring itself; shrunk, it
stayed under that bar on small halves). Below
``min_texts`` texts seen there is no correction at all (``offsets`` returns None: "uncalibrated"). Texts
seen, not their decayed sum: the decayed sum only grows with them, and a user reading "texts: 50" in an
answer should find it corrected at the number the setting names.

**Two labels** (``core.calibration_mix``, ``CalibrationConfig.mix``): the record also keeps its texts' margins
per bin (``margins``), and where a mixture of two normal distributions fitted on them finds the sample clearly
skewed, the offsets separate the classes at the midpoint of their typical margins (a job's, at the threshold its
own mix gives: its answers are for its own texts).

**Thresholds keep their meaning**: offsets are centred to mean 0 over the set's labels, so the correction
moves labels relative to each other and leaves the set's average evidence where the model put it: a
multi-label threshold (sigmoid of the evidence) is crossed by as many labels on average as before, and a
single-label answer is still a softmax (scores sum to 1).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from service.core.calibration_bursts import BurstDetector, BurstGuard
from service.core.calibration_mix import DEFAULT_GATE, MARGIN_BINS, margin_counts, traffic_offsets
from service.core.calibration_mix import job_offsets as own_mix_offsets
from service.core.ramp import ramp

# Redis hash field names: one prefix character, a separator that no prefix contains, then the label
_SEP = "|"
_PER_LABEL = {"w": "wins", "c": "settled"}
# b|<winner>|<label>, v|<winner>|<label>: the sums of the texts one label won (its position in the record), the
# rows of labels that won any; or packed (``rows=True``) b|<winner> and v|<winner>: the row in one field, the
# record's labels in order, comma-separated (``pack_row``)
_BY_WINNER = {"b": "by_winner", "v": "by_winner_squares"}
_MARGIN = "m"  # m|<bin>: a two-label record's texts per margin bin (core.calibration_mix), the bins it has
_ARRAYS = (*_PER_LABEL.values(), *_BY_WINNER.values(), "margins")  # every array a LabelStats sums
# the skew test needs this many texts per label: below it, chance moves ``skew_left`` across the whole test
SKEW_TEST_TEXTS_PER_LABEL = 2.0
# 2**exponent stays far below the float maximum (2**1024) for every field a text can add
REBASE_AFTER_HALF_LIVES = 400.0


@dataclass(frozen=True)
class CalibrationConfig:
    """How the statistics are gathered and turned into offsets (one per model; the defaults are the study's)."""

    half_life: float = 2000.0  # texts; math.inf = never forget (a frozen fit, a job)
    # texts seen before any correction ("uncalibrated" below): from 10 texts the correction gained on average on
    # every set measured (docs/evaluation.md, "The other labels' share"), and a sample that few texts cover is held
    # back by shrinkage and the coverage guard
    min_texts: float = 10.0
    # skew guard: a text's weight is min(1, max(cap * (1 - share) / (K - 1), cap_floor) / share), share its top
    # label's share of the wins (at most what each other label wins on average); cap = math.inf: the plain mean.
    # The floor keeps a set of many labels, some naturally far more frequent than others (an intent set), from
    # treating every ordinary frequent label as skew: what moves offsets is an absolute share
    cap: float = 1.0
    shrink: bool = True  # empirical-Bayes shrinkage of noisy offsets
    # and then each offset held back by this many of its standard errors (``held_back``; with ``shrink`` only)
    hold_back: float = 0.25
    cap_floor: float = 0.1
    # coverage guard: offsets scaled by min(1, coverage_slack * c)², c in [0, 1] how far the raw winners cover
    # the labels (1: each label wins at least 1/K of the texts; 0: one label wins all); math.inf: no guard
    coverage_slack: float = 2.0
    # skew test: the capped estimate's weight grows from 0 to 1 as the skew left after it (``skew_left``)
    # goes from the first value to the second; the plain mean has the rest. None: the capped estimate alone
    skew_test: tuple[float, float] | None = (0.25, 0.45)
    # traffic only: a source's texts weigh less once one label wins clearly more often in them than in the record
    burst: BurstGuard = BurstGuard()
    # two labels only: how far from even a sample's mix, fitted on its margins, must be before the mixture moves
    # the correction (``core.calibration_mix``: traffic and frozen fits to the classes' midpoint, a job to its
    # own mix); None: the correction above alone
    mix: tuple[float, float] | None = DEFAULT_GATE

    def __post_init__(self) -> None:
        if not self.half_life > 0:
            raise ValueError("half_life must be positive (math.inf: no decay)")
        if self.min_texts < 0:
            raise ValueError("min_texts must be >= 0")
        if not self.cap > 0:
            raise ValueError("cap must be positive (math.inf: no skew guard)")
        if not self.hold_back >= 0:
            raise ValueError("hold_back must be >= 0")
        if self.skew_test is not None and not 0 <= self.skew_test[0] < self.skew_test[1]:
            raise ValueError("skew_test must be (start, end) with 0 <= start < end")
        if self.mix is not None and not 0 <= self.mix[0] < self.mix[1] <= 0.5:
            raise ValueError("mix must be (start, end) with 0 <= start < end <= 0.5")


@dataclass(frozen=True)
class LabelStats:
    """Decayed sufficient statistics of one label set; every numeric field is a sum over texts."""

    labels: tuple[str, ...]
    texts: float = 0.0  # texts seen (not decayed)
    total: float = 0.0  # Σ d
    # [winner, label]: Σ d·x and Σ d·x² over the texts each label won (by the raw evidence)
    by_winner: np.ndarray = field(default=None)  # type: ignore[assignment]
    by_winner_squares: np.ndarray = field(default=None)  # type: ignore[assignment]
    wins: np.ndarray = field(default=None)  # type: ignore[assignment]
    settled: np.ndarray = field(default=None)  # type: ignore[assignment]  # Σ d·[wins after the capped correction]
    # two labels: Σ d per margin bin (core.calibration_mix.margin_counts); other label counts: empty
    margins: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        k = len(self.labels)
        if len(set(self.labels)) != k:
            raise ValueError("labels must be unique")
        for name in _PER_LABEL.values():
            value = getattr(self, name)
            value = np.zeros(k) if value is None else np.asarray(value, dtype=np.float64).copy()
            if value.shape != (k,):
                raise ValueError(f"{name} must have one value per label ({k}), got shape {value.shape}")
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        for name in _BY_WINNER.values():
            value = getattr(self, name)
            value = np.zeros((k, k)) if value is None else np.asarray(value, dtype=np.float64).copy()
            if value.shape != (k, k):
                raise ValueError(f"{name} must have one row per winning label ({k}, {k}), got shape {value.shape}")
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        bins = (MARGIN_BINS if k == 2 else 0,)
        margins = np.zeros(bins) if self.margins is None else np.asarray(self.margins, dtype=np.float64).copy()
        if margins.shape != bins:
            raise ValueError(f"margins must have {bins[0]} bins with {k} labels, got shape {margins.shape}")
        margins.setflags(write=False)
        object.__setattr__(self, "margins", margins)

    @classmethod
    def empty(cls, labels: Sequence[str]) -> LabelStats:
        return cls(tuple(labels))

    @property
    def plain(self) -> np.ndarray:
        """Σ d·x per label, every text weighing 1 (the plain mean's sums)."""
        return self.by_winner.sum(axis=0)

    def weighed(self, config: CalibrationConfig) -> tuple[float, np.ndarray, np.ndarray]:
        """(Σ d·w, Σ d·w·x, Σ d·w·x²): the sums with each text weighed by the skew weight of the label it won
        (``winner_weights``), from the wins of every text the statistics hold."""
        w = winner_weights(self.wins, self.total, config)
        return float(w @ self.wins), w @ self.by_winner, w @ self.by_winner_squares

    def scaled(self, factor: float, texts: float | None = None) -> LabelStats:
        """Every decayed sum multiplied by ``factor`` (``texts`` kept, or replaced)."""
        per = {name: getattr(self, name) * factor for name in _ARRAYS}
        texts = self.texts if texts is None else texts
        return LabelStats._of(self.labels, texts, self.total * factor, per)

    def plus(self, other: LabelStats) -> LabelStats:
        """Every sum added, ``texts`` too (the statistics of both sets of texts, each as it is)."""
        if self.labels != other.labels:
            raise ValueError("statistics of different label sets (or label orders) do not add")
        per = {name: getattr(self, name) + getattr(other, name) for name in _ARRAYS}
        return LabelStats._of(self.labels, self.texts + other.texts, self.total + other.total, per)

    @classmethod
    def _of(cls, labels: tuple[str, ...], texts: float, total: float, per: dict) -> LabelStats:
        """The result of arithmetic on checked statistics: its arrays are new and of the right shape, so they
        are frozen as they are, without the constructor's checks and copies (a served text makes a few of
        these; the checks were most of its calibration's cost)."""
        out = object.__new__(cls)
        for name, value in (("labels", labels), ("texts", texts), ("total", total)):
            object.__setattr__(out, name, value)
        for name, value in per.items():
            value.setflags(write=False)
            object.__setattr__(out, name, value)
        return out


def age(texts: float | np.ndarray, half_life: float) -> np.floating | np.ndarray:
    """A record's age in half-lives once it has seen ``texts`` texts: 0 until ``half_life`` texts (a young
    record forgets nothing), then one more every ``half_life`` texts (always 0 with an infinite half-life). A
    sum made at age a weighs 2 ** (a - b) at age b."""
    return np.maximum(np.asarray(texts, dtype=np.float64) - half_life, 0.0) / half_life


def decay_between(start: float, end: float, half_life: float) -> float:
    """What a sum made when a record had seen ``start`` texts keeps once it has seen ``end``."""
    return float(2.0 ** (age(start, half_life) - age(end, half_life)))


def decayed(stats: LabelStats, texts: float, half_life: float) -> LabelStats:
    """A record's ``stats`` (every text since its first) as seen ``texts`` texts later."""
    return stats.scaled(decay_between(stats.texts, stats.texts + texts, half_life))


def merge(older: LabelStats, newer: LabelStats, half_life: float, at: float | None = None) -> LabelStats:
    """The statistics of ``older``'s texts followed by ``newer``'s: older decays from the record's ``at``
    texts (where ``newer`` begins; default ``older.texts``: ``older`` is the record from its first text) by
    newer's text count, then the sums add. Associative, so deltas from any number of replicas fold in any
    grouping; two replicas' concurrent deltas commute up to the decay of one delta's few texts."""
    if older.labels != newer.labels:
        raise ValueError("statistics of different label sets (or label orders) do not merge")
    start = older.texts if at is None else at
    return older.scaled(decay_between(start, start + newer.texts, half_life)).plus(newer)


def _centred_rows(evidence: np.ndarray) -> np.ndarray:
    x = np.asarray(evidence, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"expected [texts, labels] evidence, got shape {x.shape}")
    return x - x.mean(axis=1, keepdims=True)


def offsets(stats: LabelStats, config: CalibrationConfig) -> np.ndarray | None:
    """Per-label offsets to subtract from the evidence (centred: mean 0 over the labels), or None while
    fewer than ``config.min_texts`` texts are in (the answer is then uncalibrated): for texts of a mix not known
    yet (traffic, a frozen fit; a job's: ``job_offsets``)."""
    return traffic_offsets(balanced_offsets(stats, config), stats.margins, config.mix)


def job_offsets(stats: LabelStats, config: CalibrationConfig) -> np.ndarray | None:
    """A job's offsets over its own texts: ``offsets``, on two labels moved to the job's own mix where skewed."""
    return own_mix_offsets(balanced_offsets(stats, config), stats.margins, config.mix)


def balanced_offsets(stats: LabelStats, config: CalibrationConfig) -> np.ndarray | None:
    """The correction before the two-label mixture (``core.calibration_mix``) moves it: the capped estimate,
    or the plain mean as far as the skew test picks it."""
    if len(stats.labels) < 2 or stats.texts < config.min_texts or stats.total <= 0:
        return None
    out = capped_offsets(stats, config)
    share = capped_share(stats, config)
    if share < 1.0:
        plain = stats.plain / stats.total
        out = share * out + (1.0 - share) * (plain - plain.mean()) * coverage(stats.wins, config.coverage_slack)
    return out


def capped_offsets(stats: LabelStats, config: CalibrationConfig, shrunk: bool = True) -> np.ndarray:
    """The capped estimate (weighted means, shrunk and held back, times the coverage guard), whatever the texts
    seen; zeros before any weight. ``shrunk=False``: neither shrunk nor held back, whatever ``config.shrink``
    says (the correction the skew test reads its winners after: ``observe``)."""
    if len(stats.labels) < 2:
        return np.zeros(len(stats.labels))
    weight, sums, squares = stats.weighed(config)
    if weight <= 0:
        return np.zeros(len(stats.labels))
    mean = sums / weight
    # sampling variance of each label's mean, with the weight as the sample size: with weights <= 1 the
    # effective size (Σw)²/Σw² is at least Σw, so this over-states the noise, never under-states it
    var = np.maximum(squares / weight - mean**2, 0.0) / weight
    out = _centred_offsets(mean, var, config.shrink and shrunk)
    if config.shrink and shrunk:
        out = held_back(out, var, config.hold_back)
    return out * coverage(stats.wins, config.coverage_slack)


def skew_left(settled: np.ndarray, texts: float) -> float:
    """How far the winners after the capped correction (``settled``: each label's share of ``texts``) are
    from every label winning equally often: sqrt(K * Σ (s_j - 1/K)² less (K - 1) / n, what n draws from a
    uniform sample show by chance), at least 0. 0 on a balanced sample once the model's own bias is
    corrected; ~0.5 on a two-label or ten-label sample where one class is 5 times as frequent."""
    k = len(settled)
    total = float(np.sum(settled))
    if k < 2 or total <= 0 or texts <= 0:
        return 0.0
    s = settled / total
    return math.sqrt(max(0.0, k * float(np.sum((s - 1.0 / k) ** 2)) - (k - 1) / texts))


def capped_share(stats: LabelStats, config: CalibrationConfig) -> float:
    """The capped estimate's share of the offsets, the plain mean's the rest: 0 where the capped correction
    leaves the winners balanced (the excess wins were the model's bias, which the plain mean corrects in
    full), 1 where a class stays common after it (the plain mean would learn that class as bias)."""
    if config.skew_test is None or math.isinf(config.cap):
        return 1.0
    if stats.total < SKEW_TEST_TEXTS_PER_LABEL * len(stats.labels):
        return 1.0  # too few texts to tell a common class from a favoured label: the estimate safe for either
    start, end = config.skew_test
    # the decayed total as the sample size: at most the effective size, so chance is over-stated, not under
    return ramp(skew_left(stats.settled, stats.total), start, end)


def coverage(wins: np.ndarray, slack: float) -> float:
    """How much of a correction to trust from how the raw winners spread over the labels: the square of
    ``slack`` times (K * sum_j min(share_j, 1/K) - 1) / (K - 1), at most 1. A sample where one label wins
    (nearly) every text says nothing about the other labels' background: its offsets would only push that
    label down, which a flood of one label's texts must not do. A model's own bias (a label winning, say, 70%
    of a balanced two-label sample) keeps the whole correction with the default slack of 2; squared, a
    two-label sample won 95/5 keeps 4% of it (linear, a fifth of it still took a flooded pair of classes below
    uncalibrated: docs/evaluation.md, "Which estimator")."""
    k = len(wins)
    total = float(np.sum(wins))
    if math.isinf(slack) or k < 2 or total <= 0:
        return 1.0
    covered = (k * float(np.minimum(wins / total, 1.0 / k).sum()) - 1.0) / (k - 1)
    return float(min(1.0, max(0.0, slack * covered)) ** 2)


def _centred_offsets(mean: np.ndarray, var: np.ndarray, shrink: bool) -> np.ndarray:
    """Means centred to 0 over the labels, each shrunk towards 0 by tau² / (tau² + its variance), tau² the
    offsets' spread beyond their noise (empirical Bayes: pure noise is not corrected, a clear bias is)."""
    out = mean - mean.mean()
    if shrink and len(out) >= 2:
        spread = float(np.sum(out**2)) / (len(out) - 1)
        tau2 = max(spread - float(var.mean()), 0.0)
        out = out * (tau2 / (tau2 + var + 1e-300))
        out = out - out.mean()
    return out


def held_back(offsets: np.ndarray, var: np.ndarray, errors: float) -> np.ndarray:
    """Each offset moved towards 0 by ``errors`` of its standard errors, no further than 0 (a soft threshold),
    then centred again: an offset that one text of each rarer label sets is as large as its noise, and a
    model that needs no correction gets little of it (docs/evaluation.md, "Order-free weights")."""
    if errors <= 0:
        return offsets
    out = np.sign(offsets) * np.maximum(np.abs(offsets) - errors * np.sqrt(var), 0.0)
    return out - out.mean()


def winner_weights(wins: np.ndarray, total: float, config: CalibrationConfig) -> np.ndarray:
    """Per label: the skew weight (``_capped``) of the texts it won, from its share of ``wins`` (of ``total``
    texts); 1 when nothing is known yet or with no cap."""
    if math.isinf(config.cap) or total <= 0:
        return np.ones(len(wins))
    return _capped(np.asarray(wins) / total, len(wins), config)


def _capped(share: np.ndarray, k: int, config: CalibrationConfig) -> np.ndarray:
    """The skew weight of texts whose top label holds ``share`` of the wins: min(1, limit / share), limit =
    max(cap * (1 - share) / (K - 1), cap_floor), what each other label wins on average (times ``cap``). A label
    winning less than that is never weighed up: a label few texts won would carry their noise."""
    share = np.maximum(share, 1e-12)
    limit = np.maximum(config.cap * (1.0 - share) / max(k - 1, 1), config.cap_floor)
    return np.minimum(1.0, limit / share)


def observe(
    reference: LabelStats, evidence: np.ndarray, config: CalibrationConfig, keep: np.ndarray | None = None
) -> LabelStats:
    """The delta statistics of the texts ``evidence`` ([texts, labels], in order), decayed to the last of
    them, for ``merge`` into ``reference`` (the statistics they follow: a replica's view of the shared
    record plus what it has not flushed yet). Each text's sums go to the row of its top label (by the raw
    evidence): its skew weight is read from the whole record's wins when the offsets are (``winner_weights``),
    so the same texts give the same statistics in any order and in calls of any size.

    Why the raw top label and not the corrected one: the correction learned from a skewed sample already
    pushes the common label down, so it stops winning and its share no longer looks skewed; iterating to
    that fixed point drifts back towards the plain mean on synthetic skew and measured worse on a skewed
    job (docs/evaluation.md, "Calibration"). The raw winner also makes the sums independent of the offsets, so
    a replica's delta does not depend on how stale its view of them is.
    Only ``settled`` reads them: who wins after the (unshrunk) capped correction of ``reference`` and these texts
    together (a text then counts its own correction, as in ``fit``). It decides how much of the plain mean to
    use, which a slightly stale view moves little.

    ``keep``: per text, the share of its weight it keeps in every sum (``core.calibration_bursts``: a burst's
    texts weigh less); each still counts as seen (``texts``, the record's clock)."""
    x = np.asarray(evidence, dtype=np.float64)
    n, k = x.shape
    if k != len(reference.labels):
        raise ValueError(f"evidence has {k} labels, the statistics {len(reference.labels)}")
    if n == 0:
        return LabelStats.empty(reference.labels)
    # the record's age once each text is in (the reference's texts are the record's so far)
    ages = age(reference.texts + np.arange(1, n + 1, dtype=np.float64), config.half_life)
    kept = np.ones(n) if keep is None else np.asarray(keep, dtype=np.float64)
    d = 2.0 ** (ages - ages[-1]) * kept  # each text's decay once the last one is in
    stats = _summed(reference.labels, x, d)
    after = capped_offsets(merge(reference, stats, config.half_life), config, shrunk=False)
    return replace(stats, settled=np.bincount(np.argmax(x - after, axis=1), weights=d, minlength=k))


def _summed(labels: tuple[str, ...], x: np.ndarray, d: np.ndarray) -> LabelStats:
    """The statistics of the texts ``x`` weighing ``d`` each (their decay, times what the burst guard keeps)."""
    n, k = x.shape
    centred = _centred_rows(x)
    winners = np.argmax(x, axis=1)
    rows = np.zeros((n, k))
    rows[np.arange(n), winners] = d  # each text's weight in its winner's row
    return LabelStats(labels, float(n), float(d.sum()), rows.T @ centred, rows.T @ centred**2,
                      np.bincount(winners, weights=d, minlength=k), margins=_margins(x, d))  # fmt: skip


def burst_weights(
    detector: BurstDetector, reference: LabelStats, evidence: np.ndarray, config: CalibrationConfig
) -> np.ndarray:
    """Per text of one source's run (``evidence`` [texts, labels], in order), the share of its weight it keeps
    (``observe``'s ``keep``): the burst test against ``reference``'s winners, trusted as far as they cover the
    labels (``coverage``: a record that began with one class's texts is no baseline to hold on to)."""
    trust = coverage(reference.wins, config.coverage_slack)
    return detector.keep(np.argmax(evidence, axis=1), reference.wins, reference.total, reference.texts, trust)


def _margins(evidence: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray | None:
    """Two labels: the texts' (or ``weights``') sums per margin bin; None (empty) for any other label count."""
    return margin_counts(evidence, weights) if evidence.shape[1] == 2 else None


def fit(evidence: np.ndarray, labels: Sequence[str], config: CalibrationConfig) -> LabelStats:
    """Statistics of a whole sample at once, no decay, every text weighed with the whole sample's win
    shares: a frozen calibration (``zsc calibrate FILE``)."""
    if np.shape(evidence)[-1] != len(labels):
        raise ValueError(f"evidence has {np.shape(evidence)[-1]} labels, got {len(labels)} label names")
    return fit_after(LabelStats.empty(labels), evidence, config)


def fit_after(reference: LabelStats, evidence: np.ndarray, config: CalibrationConfig) -> LabelStats:
    """The statistics of a sample's texts taken as a whole (no order, no decay), to add (``plus``) to
    ``reference``'s, the sample's parts summed before it, ``settled`` read after the capped correction of both.
    A job's chunks ("calibration": "job"), summed as they come on any replica: whatever the chunks and their
    order, the job's statistics are ``fit`` of all its texts (the skew weights are read from the wins of all of
    them, ``LabelStats.weighed``), but for ``settled``, which each chunk reads after the texts before it."""
    x = np.asarray(evidence, dtype=np.float64)
    n, k = x.shape
    if k != len(reference.labels):
        raise ValueError(f"evidence has {k} labels, the statistics {len(reference.labels)}")
    stats = _summed(reference.labels, x, np.ones(n))
    after = capped_offsets(reference.plus(stats), config, shrunk=False)
    return replace(stats, settled=np.bincount(np.argmax(x - after, axis=1), minlength=k).astype(np.float64))


# -- which record a request's labels use -------------------------------------------------------------
@dataclass(frozen=True)
class Columns:
    """Where a request's labels sit in a record. A record's labels are the set's wordings sorted, so the
    same wordings in any order share one record (a label's background is only comparable to the other
    labels' when measured on the same texts: the key is the whole set, not each wording alone)."""

    digest: str  # of the sorted wordings: the record's key
    order: np.ndarray  # order[j]: the request's index of the record's j-th label

    @classmethod
    def of(cls, wordings: Sequence) -> Columns:
        """``wordings``: per request label, anything JSON can write (e.g. its hypotheses and examples)."""
        keyed = [json.dumps(w, ensure_ascii=False, separators=(",", ":")) for w in wordings]
        order = np.array(sorted(range(len(keyed)), key=keyed.__getitem__), dtype=np.int64)
        digest = hashlib.blake2b("\n".join(keyed[i] for i in order).encode("utf-8"), digest_size=16).hexdigest()
        return cls(digest, order)

    @property
    def labels(self) -> tuple[str, ...]:
        """The record's label keys: positions in the sorted wordings (short Redis fields)."""
        return tuple(str(j) for j in range(len(self.order)))

    def to_record(self, evidence: np.ndarray) -> np.ndarray:
        """Request-ordered evidence ([labels] or [texts, labels]) in the record's order."""
        return np.asarray(evidence)[..., self.order]

    def to_request(self, values: np.ndarray) -> np.ndarray:
        """Record-ordered per-label values in the request's label order."""
        out = np.empty(len(self.order))
        out[self.order] = values
        return out


# -- serialisation -----------------------------------------------------------------------------------
def to_fields(stats: LabelStats, factor: float = 1.0, rows: bool = False) -> dict[str, float | str]:
    """Flat ``{field: value}`` for a Redis hash: ``texts``, ``total``, per label ``w|label`` and ``c|label``,
    per winning label (its position j) and label ``b|j|label`` and ``v|j|label`` (the rows of labels that won
    any text; ``rows``: each row packed in one field, ``b|j`` and ``v|j``, added by the store's script) and per margin
    bin with texts ``m|bin``; decayed sums multiplied by ``factor`` (``texts`` never)."""
    out: dict[str, float | str] = {"texts": float(stats.texts), "total": stats.total * factor}
    for prefix, name in _PER_LABEL.items():
        for label, value in zip(stats.labels, getattr(stats, name)):
            out[f"{prefix}{_SEP}{label}"] = float(value) * factor
    won = np.flatnonzero(stats.by_winner.any(axis=1) | stats.by_winner_squares.any(axis=1))
    for prefix, name in _BY_WINNER.items():
        values = getattr(stats, name)
        for j in won:
            if rows:
                out[f"{prefix}{_SEP}{j}"] = pack_row(values[j] * factor)
                continue
            for label, value in zip(stats.labels, values[j]):
                out[f"{prefix}{_SEP}{j}{_SEP}{label}"] = float(value) * factor
    for b in np.flatnonzero(stats.margins):
        out[f"{_MARGIN}{_SEP}{b}"] = float(stats.margins[b]) * factor
    return out


def pack_row(values: np.ndarray) -> str:
    """One row of sums as one field: each value as Python writes a float (it reads back exactly), comma-separated.
    Text, not bytes, so that a Lua script adds two rows (``calibration_store``) and any Redis client reads them."""
    return ",".join(repr(float(v)) for v in values)


def unpack_row(value: str | bytes, k: int) -> np.ndarray | None:
    """A packed row of ``k`` sums; None for a row of another length (written for other labels)."""
    text = value.decode() if isinstance(value, bytes) else str(value)
    found = np.array(text.split(","), dtype=np.float64) if text else np.zeros(0)
    return found if found.shape == (k,) else None


def _plain(fields: Mapping) -> dict[str, float | str | bytes]:
    """A hash as redis-py returns it (bytes keys and values unless decode_responses) with str keys."""
    return {k.decode() if isinstance(k, bytes) else k: v for k, v in fields.items()}


def from_fields(labels: Sequence[str], fields: Mapping, factor: float = 1.0) -> LabelStats:
    """The statistics of ``labels`` from a hash's fields (missing ones are 0: a label new to the record);
    decayed sums multiplied by ``factor``."""
    fields = _plain(fields)

    def get(name: str) -> float:
        value = fields.get(name, 0.0)
        return float(value.decode() if isinstance(value, bytes) else value)

    per = {name: np.array([get(f"{p}{_SEP}{label}") for label in labels]) * factor for p, name in _PER_LABEL.items()}
    k = len(labels)
    column = {label: i for i, label in enumerate(labels)}
    rows = {name: np.zeros((k, k)) for name in _BY_WINNER.values()}
    for key, value in fields.items():  # one pass over the fields: a record holds only the rows of labels that won
        prefix, _, rest = key.partition(_SEP)
        j, sep, label = rest.partition(_SEP)
        if prefix not in _BY_WINNER or not j.isdigit() or int(j) >= k:
            continue
        if not sep:  # a packed row
            row = unpack_row(value, k)
            if row is not None:
                rows[_BY_WINNER[prefix]][int(j)] = row * factor
        elif label in column:
            rows[_BY_WINNER[prefix]][int(j), column[label]] = get(key) * factor
    per.update(rows)
    if len(labels) == 2:
        margins = np.zeros(MARGIN_BINS)
        for name in fields:
            prefix, sep, b = name.partition(_SEP)
            if prefix == _MARGIN and sep and b.isdigit() and int(b) < MARGIN_BINS:
                margins[int(b)] = get(name) * factor
        per["margins"] = margins
    return LabelStats(tuple(labels), get("texts"), get("total") * factor, **per)


# -- a shared record with increments only (Redis HINCRBYFLOAT) ----------------------------------------
def increment_fields(delta: LabelStats, position: float, origin: float, half_life: float) -> dict[str, float]:
    """What to HINCRBYFLOAT into a shared record so that no writer ever reads it first.

    Decay is turned into growth: a text at position p (the record's ``texts`` once it is counted) is
    stored with weight 2 ** (age(p) - age(origin)), and a reader divides by that of the record's own
    ``texts`` (``read_fields``), which is the decay. So: HINCRBYFLOAT ``texts`` by ``delta.texts`` first;
    its answer is ``position``; then add these fields (``texts`` is left out: already counted). ``origin``
    is the record's field of that name (0 when new); ``rebase_fields`` resets it long before a float
    could overflow."""
    out = to_fields(delta, growth(position, origin, half_life))
    del out["texts"]
    return out


def growth(position: float, origin: float, half_life: float) -> float:
    """The weight a text counted at a record's ``position`` is stored with: 2 ** (age(position) - age(origin))."""
    return 1.0 / decay_between(origin, position, half_life)


def clock(fields: Mapping) -> tuple[float, float]:
    """A shared record's (``texts``, ``origin``): 0 where absent (a new record)."""
    fields = _plain(fields)
    return float(fields.get("texts", 0.0) or 0.0), float(fields.get("origin", 0.0) or 0.0)


def read_fields(labels: Sequence[str], fields: Mapping, half_life: float) -> LabelStats:
    """A shared record written with ``increment_fields``, decayed to now."""
    texts, origin = clock(fields)
    return from_fields(labels, fields, decay_between(origin, texts, half_life))


def needs_rebase(fields: Mapping, half_life: float) -> bool:
    texts, origin = clock(fields)
    return float(age(texts, half_life) - age(origin, half_life)) > REBASE_AFTER_HALF_LIVES


def rebase_fields(labels: Sequence[str], fields: Mapping, half_life: float) -> dict[str, float]:
    """The same record with ``origin`` moved to its ``texts`` (to be written back atomically, e.g. in a
    WATCH/MULTI transaction or a Lua script, once every few hundred half-lives)."""
    stats = read_fields(labels, fields, half_life)
    out = to_fields(stats)
    out["origin"] = stats.texts
    return out


# -- label examples as a calibration sample ----------------------------------------------------------
def leave_own_out_offsets(values: np.ndarray, owner: Sequence[int], shrink: bool = True) -> np.ndarray:
    """Per-label offsets from a label set's own examples: ``values`` [examples, labels] is each example's
    evidence for every label (e.g. its cosine to each label's wording), ``owner`` the label each example
    belongs to. Every example is an unlabelled text for the *other* labels, so a label's background level
    is its mean over the other labels' examples (its own left out: they are its in-class texts), centred
    and shrunk as ``offsets`` does. A label no other example speaks for gets 0 (no correction)."""
    x = _centred_rows(values)
    n, k = x.shape
    own = np.asarray(owner, dtype=np.int64)
    if own.shape != (n,):
        raise ValueError(f"owner must give one label per example ({n}), got shape {own.shape}")
    mine = np.zeros((n, k), dtype=bool)
    valid = (own >= 0) & (own < k)
    mine[np.flatnonzero(valid), own[valid]] = True
    others = ~mine
    count = others.sum(axis=0).astype(np.float64)
    if n == 0 or not count.any():
        return np.zeros(k)
    safe = np.maximum(count, 1.0)
    mean = np.where(others, x, 0.0).sum(axis=0) / safe
    var = np.maximum(np.where(others, x**2, 0.0).sum(axis=0) / safe - mean**2, 0.0) / safe
    # centred over the labels that have a background; the others stay at 0, so the mean is still 0
    known = count > 0
    out = np.zeros(k)
    out[known] = _centred_offsets(mean[known], var[known], shrink)
    return out


def blend_shares(weight: float, counts: Sequence[int], reference: int = 3) -> np.ndarray:
    """The wording's share in each label's blend when the wording is worth a fixed number of examples:
    ``n0 / (n0 + k)`` for a label with ``k`` examples, with ``n0 = reference * weight / (1 - weight)``, so
    a label with ``reference`` examples gets exactly ``weight``; 0 and 1 keep their meaning (prototype
    only, wording only): one fixed share is too much wording for labels with many examples and too little for
    labels with few (docs/evaluation.md, "Examples")."""
    k = np.asarray(counts, dtype=np.float64)
    if weight >= 1.0:
        return np.ones_like(k)
    if weight <= 0.0:
        return np.zeros_like(k)
    n0 = reference * weight / (1.0 - weight)
    return n0 / (n0 + np.maximum(k, 0.0))


def wording_agrees(
    prototypes: np.ndarray,
    wording: np.ndarray,
    have: Sequence[int],
    counts: Sequence[int],
    offsets: np.ndarray | None = None,
    judged_from: int = 5,
) -> np.ndarray:
    """Per label with examples (``have``, its row of ``prototypes``, ``counts`` its examples): 0.0 where its
    examples are enough to judge its wording (``judged_from`` or more) and its own wording is not the one
    closest to their prototype among every label's (``wording``, [labels, dim]; cosines less ``offsets``, as
    texts see them), else 1.0. A wording that points at another label's examples describes something else
    than what the label's examples show, and they alone should speak for it; with fewer examples the
    prototype is too noisy to judge by, and the wording, worth more then, stays: without this gate the adaptive
    shares alone fell under the plain prototype on some samples (docs/evaluation.md, "Examples")."""
    closeness = np.asarray(prototypes) @ np.asarray(wording).T  # [have, labels]
    if offsets is not None:
        closeness = closeness - offsets
    own = closeness[np.arange(len(have)), list(have)]
    closest = (closeness > own[:, None]).sum(axis=1) == 0
    return np.where(np.asarray(counts) >= judged_from, closest, True).astype(np.float64)
