"""A mean and its bootstrap interval: how much a handful of runs can say about a difference.

A benchmark that compares two things run by run (the same seeds, the same texts: paired) reports the mean of the
per-run differences; whether a mean a thousandth under zero is a loss or chance depends on how the runs spread.
The percentile bootstrap makes no assumption about that spread (per-run accuracy differences are often mostly
zeros and a few whole texts), which a normal interval would. Pure numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    level: float

    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def mean_interval(values: Sequence[float], level: float = 0.95, resamples: int = 10_000, seed: int = 0) -> Interval:
    """The mean of ``values`` and its percentile-bootstrap interval at ``level`` (the runs resampled with
    replacement, ``resamples`` times, from a fixed ``seed``: a report reads the same every time it is written)."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or not len(x):
        raise ValueError("values must be a non-empty sequence of numbers")
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    means = x[np.random.default_rng(seed).integers(0, len(x), size=(resamples, len(x)))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(float(x.mean()), float(low), float(high), level)
