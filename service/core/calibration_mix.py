"""Two labels: the classes' margins as a mixture, for skewed samples (traffic: the classes' midpoint; a job: its mix).

On two labels a class that is common and a label that is favoured look alike in unlabelled texts, and the
balanced correction of ``core.calibration`` (capped weights, the skew test, the coverage guard) leaves skewed
samples a little under no correction on average; a job made mostly of one class loses more, since its
correction pushes that class down on the very texts it answers (docs/evaluation.md, "Every two-label task" and
"Two labels: the margins' mixture").

Both are served by the shape of the *margins* (the evidence of the second label less the first's, one per text, in
logits), fitted with a mixture of two normal distributions of one variance (EM, started from the raw answers): its
weight is the sample's mix, its two means the classes' typical margins, whatever the mix. Traffic and a frozen fit,
whose coming texts' mix nobody knows, then separate the classes at the midpoint of the two means (what a balanced
sample's correction aims at: ``traffic_offsets``), held back by its noise (below). A job's answers are for its own
texts, so each is answered as the class more likely given the job's mix: the midpoint moved by ``variance / (high -
low) * log((1 - mix) / mix)`` towards the rarer class (``job_offsets``; Saerens, Latinne and Decaestecker (2002)
adjust a classifier's outputs to a new mix the same way, here on the margin itself, so the scores need not be
probabilities).

A skewed sample's fitted midpoint is noisy (its rarer class has few texts) and, where the classes' margins are not
normal, off target even with the labels (on a review set's skewed samples the midpoint the labels give answers a
balanced set under no correction). So the midpoint moves the threshold from 0 (the model's own) only by as much as
it lies beyond ``MIDPOINT_ERRORS`` standard errors of it (a soft threshold: ``TwoClassMix.midpoint``): a bias the
sample can tell from noise is corrected less that margin, one it cannot is left as the model has it. The error is
the fit's own, from the mixture's observed information (``midpoint_error``): the sample does not say which class
each text is, so the midpoint varies more than two means of known classes would (the formula for known classes,
``known_classes_error``, is its floor). Where the mixture is trusted only in part, the rest of the answer, the
balanced correction, moves the threshold no further than the held-back midpoint, nor the other way (``_bounded``):
on a sample the mixture finds skewed it has learned part of the common class as bias (docs/evaluation.md, "Two
labels: the midpoint held back by its noise" and "... by the fit's own error"); three errors, where two
still moved IMDb's threshold from the model's own, its best, on one skewed sample in seven ("Order-free weights").

A sample whose mix is near even keeps the balanced correction as it is (a plain mean, less noisy than a fitted
midpoint): the mixture's share grows from 0 to 1 as the fitted mix departs from one half by ``gate[0]`` to
``gate[1]``, and as the two means move from 2 to 3 standard deviations apart (``SEPARATION``): closer, the
margins are one hump and a mixture's weight is a guess (a confusable pair's balanced jobs were fitted as 80/20 and
lost heavily before this gate: docs/evaluation.md, "Two labels: the margins' mixture").

The margins are kept as sums per bin of ``MARGIN_BIN`` logits (``LabelStats.margins``, decayed and weighed like
every other sum, so replicas and a job's chunks add them up); margins beyond ``MARGIN_LIMIT`` fall in the last
bin. Pure numpy and stdlib; no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from service.core.ramp import ramp

MARGIN_BIN = 0.1  # logits: a two-label softmax moves from 0.50 to 0.52 over two bins
MARGIN_LIMIT = 25.0  # logits either way: a softmax of 1 - 1e-11, far beyond any answer's doubt
MARGIN_BINS = int(2 * MARGIN_LIMIT / MARGIN_BIN)  # bin i holds margins from (i - MARGIN_BINS / 2) * MARGIN_BIN
# the balanced correction gives way to the mixture as a sample's fitted mix departs from one half by these
DEFAULT_GATE = (0.2, 0.35)
SEPARATION = (2.0, 3.0)  # ... and as the classes' mean margins move this many standard deviations apart
# the midpoint moves the threshold only as far as it lies beyond this many of its standard errors from 0
MIDPOINT_ERRORS = 3.0


def margin_bins(evidence: np.ndarray) -> np.ndarray:
    """Each text's margin bin (0 .. MARGIN_BINS - 1) of two-label evidence ([texts, 2])."""
    x = np.asarray(evidence, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 2:
        raise ValueError(f"expected [texts, 2] evidence, got shape {x.shape}")
    half = MARGIN_BINS // 2
    return (np.clip(np.floor((x[:, 1] - x[:, 0]) / MARGIN_BIN), -half, half - 1) + half).astype(np.int64)


def margin_counts(evidence: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Texts (or ``weights``) per margin bin: the [MARGIN_BINS] sums ``LabelStats.margins`` keeps."""
    return np.bincount(margin_bins(evidence), weights=weights, minlength=MARGIN_BINS).astype(np.float64)


@dataclass(frozen=True)
class TwoClassMix:
    """Two normal distributions of one variance over the margin: the classes' typical margins and the job's mix."""

    low: float  # mean margin of the first label's texts
    high: float  # mean margin of the second label's
    variance: float
    share: float  # the second label's share of the texts
    error: float = 0.0  # the standard error of the classes' midpoint (0: the means are known, not estimated)

    def midpoint(self, errors: float = MIDPOINT_ERRORS) -> float:
        """The classes' midpoint, held back towards 0 (the model's own threshold) by ``errors`` standard errors:
        0 where the sample cannot tell it from noise."""
        mid = (self.low + self.high) / 2
        return math.copysign(max(0.0, abs(mid) - errors * self.error), mid)

    def threshold(self) -> float:
        """The margin above which a text is more likely the second label's, given the mix."""
        odds = math.log((1 - self.share) / self.share)
        return self.midpoint() + self.variance / (self.high - self.low) * odds


def known_classes_error(variance: float, share: float, texts: float) -> float:
    """The midpoint's standard error were each text's class known: half the deviation times sqrt(1 / rarer + 1 /
    commoner), the least a fitted midpoint can have."""
    second, first = max(texts * share, 1.0), max(texts * (1 - share), 1.0)
    return math.sqrt(variance) / 2 * math.sqrt(1 / second + 1 / first)


def _responsibility(x: np.ndarray, share: float, low: float, high: float, variance: float) -> np.ndarray:
    """Each margin's responsibility of the second component, in log space (far margins underflow a plain exp)."""
    a = math.log(share) - (x - high) ** 2 / (2 * variance)
    b = math.log(1 - share) - (x - low) ** 2 / (2 * variance)
    return 1.0 / (1.0 + np.exp(np.clip(b - a, -700, 700)))


def _bounded_share(share: float) -> float:
    # a side whose texts have decayed for dozens of half-lives rounds to 0, whose log the fit cannot take
    return min(max(share, 1e-4), 1 - 1e-4)


def midpoint_error(x: np.ndarray, w: np.ndarray, share: float, low: float, high: float, variance: float) -> float:
    """The standard error of the fitted midpoint ``(low + high) / 2`` from the mixture's observed information
    (the outer product of each margin's score for share, both means and the variance, ``w`` texts at each ``x``),
    at least ``known_classes_error``: the sample does not say which class each text is, and a text between
    the classes informs both means less than one that is clearly either."""
    r = _responsibility(x, share, low, high, variance)
    d1, d0 = x - high, x - low
    scores = np.stack([
        r / share - (1 - r) / (1 - share),
        r * d1 / variance,
        (1 - r) * d0 / variance,
        (r * d1**2 + (1 - r) * d0**2) / (2 * variance**2) - 1 / (2 * variance),
    ])  # fmt: skip
    total = float(w.sum())
    floor = known_classes_error(variance, share, total)
    # per text, then divided by the texts: the same inverse without sums of 1e12-weighted squares; a near-singular
    # information (too few distinct margins) overflows, and says no more than the floor
    try:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            covariance = np.linalg.inv((scores * (w / total)) @ scores.T) / total
    except np.linalg.LinAlgError:
        return floor
    if not np.isfinite(covariance).all():
        return floor
    half = np.array([0.0, 0.5, 0.5, 0.0])
    spread = float(half @ covariance @ half)
    return max(math.sqrt(spread), floor) if spread > 0 else floor


def fit_mix(counts: np.ndarray, iterations: int = 200, tolerance: float = 1e-7) -> TwoClassMix | None:
    """EM over the binned margins (``margin_counts``: each bin's texts at its centre), started from the raw
    answers (margin above 0: the second label); None where the raw answers are all one label's or the two
    components merge."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.shape != (MARGIN_BINS,):
        return None
    used = np.flatnonzero(counts > 0)
    x = (used - MARGIN_BINS // 2 + 0.5) * MARGIN_BIN
    w = counts[used]
    total = float(w.sum())
    high = x > 0
    if total <= 0 or not w[high].sum() > 0 or not w[~high].sum() > 0:
        return None
    share = _bounded_share(float(w[high].sum()) / total)
    mu0 = float(w[~high] @ x[~high]) / float(w[~high].sum())
    mu1 = float(w[high] @ x[high]) / float(w[high].sum())
    var = max(float(w @ (x - np.where(high, mu1, mu0)) ** 2) / total, MARGIN_BIN**2)
    for _ in range(iterations):
        r = _responsibility(x, share, mu0, mu1, var)
        r1, r0 = float(w @ r), float(w @ (1 - r))
        if r1 <= 0 or r0 <= 0:
            return None
        new = (r1 / total, float(w @ (r * x)) / r1, float(w @ ((1 - r) * x)) / r0)
        var = max(float(w @ (r * (x - new[1]) ** 2 + (1 - r) * (x - new[2]) ** 2)) / total, MARGIN_BIN**2)
        moved = abs(new[0] - share) + abs(new[1] - mu1) + abs(new[2] - mu0)
        share, mu1, mu0 = _bounded_share(new[0]), new[1], new[2]
        if moved < tolerance:
            break
    if not mu1 > mu0:
        return None
    return TwoClassMix(mu0, mu1, var, share, midpoint_error(x, w, share, mu0, mu1, var))


def mix_weight(mix: TwoClassMix | None, gate: tuple[float, float] = DEFAULT_GATE) -> float:
    """How much of the answer follows the job's mix: 0 while it is within ``gate[0]`` of even or the classes'
    margins are within ``SEPARATION[0]`` standard deviations, 1 from ``gate[1]`` and ``SEPARATION[1]``."""
    if mix is None:
        return 0.0
    apart = (mix.high - mix.low) / math.sqrt(mix.variance)
    return ramp(abs(mix.share - 0.5), *gate) * ramp(apart, *SEPARATION)


def _fitted(counts: np.ndarray, gate: tuple[float, float] | None) -> tuple[TwoClassMix | None, float]:
    mix = None if gate is None or not np.any(counts) else fit_mix(counts)
    return mix, (0.0 if mix is None else mix_weight(mix, gate))


def _moved(offsets: np.ndarray, threshold: float, weight: float) -> np.ndarray:
    # the margin x1 - x0 is compared with the threshold: offsets (-t/2, t/2), centred as every offset is
    return weight * np.array([-threshold / 2, threshold / 2]) + (1 - weight) * np.asarray(offsets, dtype=np.float64)


def _towards_midpoint(balanced: np.ndarray, mix: TwoClassMix, weight: float) -> np.ndarray:
    """``balanced`` moved by ``weight`` to the held-back midpoint, its own threshold first kept between 0 and
    that midpoint (``_bounded``)."""
    mid = mix.midpoint()
    return _moved(_bounded(balanced, mid), mid, weight)


def _bounded(offsets: np.ndarray, midpoint: float) -> np.ndarray:
    """The balanced correction's threshold kept between 0 and the (held back) midpoint: on a sample the
    mixture finds skewed the balanced correction learns part of the common class as bias, so it moves the
    threshold no further than the midpoint does, nor the other way."""
    own = float(offsets[1] - offsets[0])
    own = min(max(own, min(0.0, midpoint)), max(0.0, midpoint))
    return np.array([-own / 2, own / 2])


def traffic_offsets(
    balanced: np.ndarray | None, counts: np.ndarray, gate: tuple[float, float] | None = DEFAULT_GATE
) -> np.ndarray | None:
    """Two labels' offsets for texts of a mix nobody knows yet: the balanced correction (``balanced``, record
    order; None: uncalibrated, which stays so) moved towards the midpoint of the classes' margins where the
    sample (``counts``: its margins, ``margin_counts``) is clearly skewed, and kept within it there
    (``_bounded``)."""
    if balanced is None or len(balanced) != 2:
        return balanced
    mix, weight = _fitted(counts, gate)
    return balanced if mix is None or weight <= 0 else _towards_midpoint(balanced, mix, weight)


def job_offsets(
    balanced: np.ndarray | None, counts: np.ndarray, gate: tuple[float, float] | None = DEFAULT_GATE
) -> np.ndarray | None:
    """A two-label job's offsets: ``balanced`` moved as ``traffic_offsets`` moves it, then towards the threshold
    the job's own mix gives, where that mix is clearly skewed (one fit for both)."""
    if balanced is None or len(balanced) != 2:
        return balanced
    mix, weight = _fitted(counts, gate)
    if mix is None or weight <= 0:
        return balanced
    return _moved(_towards_midpoint(balanced, mix, weight), mix.threshold(), weight)
