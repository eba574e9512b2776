"""The burst guard: a source's texts weigh less in a traffic record while their raw winners depart from the record's.

A label's bias does not change with traffic; the mix of classes does. A stream that floods one class (3,000
positive reviews after a client's balanced half, from the same address, so no per-source share bounds it:
``core.calibration_sources``) shows as a run of texts whose top label wins far more often than it does in the
record. The skew guard (``core.calibration``: weights by the winner's share, the coverage guard, the skew test)
bounds what such a run can do once it *is* the record, but each of its texts still enters the sums, and on two
labels the flood's own in-class lift then reads as bias (docs/evaluation.md, "Which estimator"). Here the run is
recognised while it comes: per source, the recent raw winners (exponentially decayed, ``window`` texts' half-life)
are compared with the record's winners (its ``wins``: what the texts already kept won), and each new text keeps
``1`` of its weight while they agree and ``0`` once they depart, linear between.

The departure is the largest binary Kullback-Leibler divergence over the labels between a label's recent share
of the wins and its share in the record, less what chance gives (one degree of freedom over the recent texts'
effective number): a label that suddenly wins most texts departs by ~0.25-3.5 nats (two labels: 50 % -> 95 %
is 0.53; a 118-intent set's intent from 2 % to 95 % is 3.5), while an unchanged mix stays within a few
hundredths on two labels and a many-label set alike (a single label's share, not the whole distribution, whose
chance level grows with the number of labels). Texts held back still count as seen (``texts``: the record's
clock and its minimum), so a long flood lets what the record knew decay but never turns it towards the flood;
a record's first texts (under ``min_record``) are its baseline and weigh in full.

Process-local state: each replica follows the sources it serves (a load balancer gives it a sample of each
stream, with the same mix); the weights then go into the sums every replica shares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BurstGuard:
    """How a source's recent winners are followed and when they count as a burst."""

    window: float = 16.0  # texts: the recent winners' half-life; 0 = no guard
    # evidence of a departure (about -log of its chance, less log K): full weight up to the first, none from the second
    ramp: tuple[float, float] = (0.0, 1.4)
    min_record: float = 16.0  # texts the record has seen before its winners are a baseline

    def __post_init__(self) -> None:
        if self.window < 0:
            raise ValueError("window must be >= 0 (0: no burst guard)")
        if not self.ramp[0] < self.ramp[1]:
            raise ValueError("ramp must be (start, end) with start < end")


def binary_kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """KL(Bernoulli(p) || Bernoulli(q)) per element, in nats (q kept inside (0, 1))."""
    q = np.clip(q, 1e-9, 1.0 - 1e-9)
    p = np.clip(p, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(p / q), 0.0)
        b = np.where(p < 1, (1.0 - p) * np.log((1.0 - p) / (1.0 - q)), 0.0)
    return a + b


class RecentWinners:
    """One source's recent raw winners in one record: decayed counts per label (``window`` texts' half-life),
    filled with the record's mix where the source is new, so a newcomer starts agreeing with the record."""

    def __init__(self, labels: int, guard: BurstGuard) -> None:
        self.guard = guard
        self.counts = np.zeros(labels)
        self.mass = 0.0  # Σ decay: the window's size in texts
        self._q = 2.0 ** (-1.0 / guard.window) if guard.window > 0 else 0.0
        self.last_keep = 1.0  # what its latest text kept (GET /label_sets: a source held back now)

    def keep(
        self, winners: np.ndarray, record_wins: np.ndarray, record_total: float, record_texts: float, trust: float = 1.0
    ) -> np.ndarray:
        """Per text (in order), the share of its weight it keeps, following each into the recent winners;
        ``record_wins``/``record_total``: the record's decayed wins and weight before these, ``record_texts`` the
        texts it has seen (not decayed: a long burst lets the record's sums decay, never its mix, which then
        stays the baseline). ``trust`` (0-1) scales the evidence: how far the record's own mix is a baseline to
        hold on to (its coverage: a record that began with one class's texts is not, and the balanced traffic
        that follows is let in to replace it)."""
        out = np.ones(len(winners))
        if self.guard.window <= 0 or not len(winners):
            return out
        k = len(self.counts)
        q = self._q
        baseline = None
        if record_texts >= self.guard.min_record and record_total > 0:
            baseline = (np.asarray(record_wins, dtype=np.float64) + 0.5) / (record_total + 0.5 * k)
            full = 1.0 / (1.0 - q)  # a window's size once it has seen many texts
            if self.mass < full:  # a new source: what it has not shown yet is taken as the record's mix
                self.counts += baseline * (full - self.mass)
                self.mass = full
        start, end = self.guard.ramp
        start, end = start + math.log(k), end + math.log(k)  # the most departed of k labels: chance grows as log k
        for t, j in enumerate(np.asarray(winners, dtype=np.int64).tolist()):
            self.counts *= q
            self.counts[j] += 1.0
            self.mass = self.mass * q + 1.0
            if baseline is None:
                continue
            # about -log P(a label wins this often by chance) (Chernoff: the window's texts times the divergence)
            shares = self.counts / self.mass
            evidence = trust * self.mass * float(np.max(np.where(shares > baseline, binary_kl(shares, baseline), 0.0)))
            out[t] = min(1.0, max(0.0, (end - evidence) / (end - start)))
        self.last_keep = float(out[-1])
        return out
