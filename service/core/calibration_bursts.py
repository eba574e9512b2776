"""The burst guard: a source's texts weigh less in a traffic record while their raw winners depart from the record's.

A label's bias does not change with traffic; the mix of classes does. A stream that floods one class (3,000
positive reviews after a client's balanced half, from the same address, so no per-source share bounds it:
``core.calibration_sources``) shows as a run of texts whose top label wins far more often than it does in the
record. The skew guard (``core.calibration``: weights by the winner's share, the coverage guard, the skew test)
bounds what such a run can do once it *is* the record, but each of its texts still enters the sums, and on two
labels the flood's own in-class lift then reads as bias (docs/evaluation.md, "Which estimator"). Here the run is
recognised while it comes, per source, by a CUSUM test for each label: the log-likelihood ratio of "this label
wins ``b + lift (1 - b)`` of the texts" against "it wins ``b``", its share of the record's winners, summed over
the source's texts and floored at 0 (Page's cumulative sum: a quick detector of a change of rate). A text keeps
its whole weight while the largest sum is under ``ramp[0]`` plus log K (chance grows with the labels tested), and
none from ``ramp[1]`` plus log K, linear between. A flood of one class is held back within a handful of texts; a
stream with the record's mix drifts back to 0 after each chance run.

Texts held back still count as seen (``texts``: the record's clock and its minimum), so a long flood lets what
the record knew decay but never turns it towards the flood; a record's first texts (under ``min_record``) are its
baseline and weigh in full. The caller scales the evidence by how far the record's own mix is a baseline to hold
on to (its coverage: a record that began with one class's texts is not, and the balanced traffic after it is let
in to replace it).

Process-local state: each replica follows the sources it serves (a load balancer gives it a sample of each
stream, with the same mix); the weights then go into the sums every replica shares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from service.core.ramp import ramp


@dataclass(frozen=True)
class BurstGuard:
    """What a burst is tested for and how much evidence holds a text back."""

    lift: float = 0.5  # the burst tested for: a label winning b + lift (1 - b) of the texts; 0 = no guard
    # evidence (the CUSUM, less log K): full weight up to the first, none from the second
    ramp: tuple[float, float] = (3.0, 6.0)
    min_record: float = 16.0  # texts the record has seen before its winners are a baseline

    def __post_init__(self) -> None:
        if not 0 <= self.lift < 1:
            raise ValueError("lift must be in [0, 1) (0: no burst guard)")
        if not self.ramp[0] < self.ramp[1]:
            raise ValueError("ramp must be (start, end) with start < end")


class BurstDetector:
    """One source's CUSUM per label in one record."""

    def __init__(self, labels: int, guard: BurstGuard) -> None:
        self.guard = guard
        self.sums = np.zeros(labels)
        self.last_keep = 1.0  # what its latest text kept (GET /label_sets: a source held back now)

    def keep(
        self, winners: np.ndarray, record_wins: np.ndarray, record_total: float, record_texts: float, trust: float = 1.0
    ) -> np.ndarray:
        """Per text (in order), the share of its weight it keeps, each text's winner added to the sums first;
        ``record_wins``/``record_total``: the record's decayed wins and weight before these, ``record_texts`` the
        texts it has seen (not decayed: a long burst lets the record's sums decay, never its mix, which then
        stays the baseline); ``trust`` (0-1) scales the evidence (the record's coverage)."""
        out = np.ones(len(winners))
        k = len(self.sums)
        if self.guard.lift <= 0 or not len(winners) or record_texts < self.guard.min_record or record_total <= 0:
            return out
        baseline = (np.asarray(record_wins, dtype=np.float64) + 0.5) / (record_total + 0.5 * k)
        burst = baseline + self.guard.lift * (1.0 - baseline)
        won = np.log(burst / baseline)  # the label won: evidence for its burst
        lost = np.log((1.0 - burst) / (1.0 - baseline))  # another won: evidence against
        start, end = (r + math.log(k) for r in self.guard.ramp)
        for t, j in enumerate(np.asarray(winners, dtype=np.int64).tolist()):
            self.sums += lost
            self.sums[j] += won[j] - lost[j]
            # floored at 0 (Page's CUSUM) and capped at twice where a text keeps nothing: the chance wins of other
            # labels inside a burst do not let its texts back in, and a source held back under one baseline is let
            # in a few dozen texts after the record's mix has moved to its own
            np.clip(self.sums, 0.0, 2.0 * end, out=self.sums)
            evidence = trust * float(self.sums.max())
            out[t] = 1.0 - ramp(evidence, start, end)
        self.last_keep = float(out[-1])
        return out
