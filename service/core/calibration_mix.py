"""A job's own mix of two classes: its answers fitted to the mix its texts are, once the labels' bias is removed.

Traffic calibration corrects each label's bias for texts still to come, whose mix of classes nobody knows: its
offsets aim at a balanced mix (``core.calibration``). A job is different: its texts are all there, and its
answers are for those texts alone. On two labels a skewed job is where that matters: from unlabelled texts a
class that is common and a label that is favoured look alike, and the balanced correction of a job made mostly of
one class pushes that class down on the very texts it answers (THUCNews' 45 two-label tasks, jobs of one class ten
times the other: -0.013 on average against no correction, 35 of 45 under it; docs/evaluation.md, "A job's own
mix").

Here the job's *margins* (the evidence of the second label less the first's, one per text, in logits) are fitted
with a mixture of two normal distributions of one variance (EM: Dempster, Laird and Rubin; what Saerens, Latinne
and Decaestecker (2002) do to a classifier's outputs for a new mix of classes, on the margin itself, so the
model's scores need not be probabilities): the mixture's weight is the job's mix, its two means the classes'
typical margins. Each text is then answered as the class more likely given that mix: the threshold on the margin
is the midpoint of the means moved by ``variance / (high - low) * log((1 - mix) / mix)``, towards the rarer class.
A job whose mix is near even keeps the balanced correction as it is: the mixture's share grows from 0 to 1 as the
mix departs from one half by ``gate[0]`` to ``gate[1]`` (a balanced job's fitted mix wanders a little, and its
midpoint is noisier than the plain mean the balanced correction is), and as the two means move from 1.5 to 2.5
standard deviations apart (``SEPARATION``): closer, the margins are one hump and a mixture's weight is a guess
(two confusable classes of THUCNews, 财经-股票, balanced jobs fitted as 80/20 and lost up to 0.13 before this).

The margins are kept as counts per bin of ``MARGIN_BIN`` logits (a sum per bin, so chunks scored on any replica
add up in the job's hash like every other statistic); margins beyond ``MARGIN_LIMIT`` fall in the last bin. Pure
numpy and stdlib; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

MARGIN_BIN = 0.1  # logits: a tenth of what moves a two-label softmax from 0.50 to 0.52
MARGIN_LIMIT = 40.0  # logits either way: far beyond any answer's doubt
# the balanced correction's share falls from 1 to 0 as the job's mix departs from one half by these
DEFAULT_GATE = (0.2, 0.35)
SEPARATION = (1.5, 2.5)  # ... and as the classes' mean margins move this many standard deviations apart


def margin_counts(evidence: np.ndarray) -> dict[int, float]:
    """Texts per margin bin of two-label evidence ([texts, 2]): ``{bin: count}``, bin ``floor(margin / MARGIN_BIN)``."""
    x = np.asarray(evidence, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 2:
        raise ValueError(f"expected [texts, 2] evidence, got shape {x.shape}")
    edge = int(MARGIN_LIMIT / MARGIN_BIN)
    bins = np.clip(np.floor((x[:, 1] - x[:, 0]) / MARGIN_BIN), -edge, edge - 1).astype(np.int64)
    found, counts = np.unique(bins, return_counts=True)
    return {int(b): float(c) for b, c in zip(found, counts)}


@dataclass(frozen=True)
class TwoClassMix:
    """Two normal distributions of one variance over the margin: the classes' typical margins and the job's mix."""

    low: float  # mean margin of the first label's texts
    high: float  # mean margin of the second label's
    variance: float
    share: float  # the second label's share of the texts

    def threshold(self) -> float:
        """The margin above which a text is more likely the second label's, given the mix."""
        odds = math.log((1 - self.share) / self.share)
        return (self.low + self.high) / 2 + self.variance / (self.high - self.low) * odds


def fit_mix(counts: Mapping[int, float], iterations: int = 200, tolerance: float = 1e-7) -> TwoClassMix | None:
    """EM over the binned margins (each bin's texts at its centre), started from the raw answers (margin above
    0: the second label); None where the raw answers are all one label's or the two components merge."""
    if not counts:
        return None
    x = (np.fromiter(counts.keys(), dtype=np.float64) + 0.5) * MARGIN_BIN
    w = np.fromiter(counts.values(), dtype=np.float64)
    total = float(w.sum())
    high = x > 0
    if total <= 0 or not w[high].sum() > 0 or not w[~high].sum() > 0:
        return None
    share = float(w[high].sum()) / total
    mu0 = float(w[~high] @ x[~high]) / float(w[~high].sum())
    mu1 = float(w[high] @ x[high]) / float(w[high].sum())
    var = max(float(w @ (x - np.where(high, mu1, mu0)) ** 2) / total, MARGIN_BIN**2)
    for _ in range(iterations):
        # responsibilities of the second component, in log space (far margins underflow a plain exp)
        a = math.log(share) - (x - mu1) ** 2 / (2 * var)
        b = math.log(1 - share) - (x - mu0) ** 2 / (2 * var)
        r = 1.0 / (1.0 + np.exp(np.clip(b - a, -700, 700)))
        r1, r0 = float(w @ r), float(w @ (1 - r))
        if r1 <= 0 or r0 <= 0:
            return None
        new = (r1 / total, float(w @ (r * x)) / r1, float(w @ ((1 - r) * x)) / r0)
        var = max(float(w @ (r * (x - new[1]) ** 2 + (1 - r) * (x - new[2]) ** 2)) / total, MARGIN_BIN**2)
        moved = abs(new[0] - share) + abs(new[1] - mu1) + abs(new[2] - mu0)
        share, mu1, mu0 = min(max(new[0], 1e-4), 1 - 1e-4), new[1], new[2]
        if moved < tolerance:
            break
    if not mu1 > mu0:
        return None
    return TwoClassMix(low=mu0, high=mu1, variance=var, share=share)


def _ramp(value: float, start: float, end: float) -> float:
    return min(1.0, max(0.0, (value - start) / (end - start)))


def mix_weight(mix: TwoClassMix | None, gate: tuple[float, float] = DEFAULT_GATE) -> float:
    """How much of the answer follows the job's mix: 0 while it is within ``gate[0]`` of even or the classes'
    margins are within ``SEPARATION[0]`` standard deviations, 1 from ``gate[1]`` and ``SEPARATION[1]``."""
    if mix is None:
        return 0.0
    apart = (mix.high - mix.low) / math.sqrt(mix.variance)
    return _ramp(abs(mix.share - 0.5), *gate) * _ramp(apart, *SEPARATION)


def job_offsets(
    balanced: np.ndarray | None, counts: Mapping[int, float], gate: tuple[float, float] | None = DEFAULT_GATE
) -> np.ndarray | None:
    """A two-label job's offsets: the balanced correction (``balanced``, record order; None: uncalibrated, which
    stays so) moved towards the threshold the job's own mix gives (``counts``: its margins, ``margin_counts``)."""
    if balanced is None or gate is None or len(balanced) != 2:
        return balanced
    mix = fit_mix(counts)
    weight = mix_weight(mix, gate)
    if mix is None or weight <= 0:
        return balanced
    t = mix.threshold()  # the margin x1 - x0 is compared with t: offsets (-t/2, t/2), centred as every offset is
    return weight * np.array([-t / 2, t / 2]) + (1 - weight) * np.asarray(balanced, dtype=np.float64)
