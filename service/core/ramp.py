"""The one linear ramp the calibration's guards share: how far a statistic has gone from where a rule starts to
where it applies in full. Pure; no I/O."""

from __future__ import annotations


def ramp(value: float, start: float, end: float) -> float:
    """0 at or below ``start``, 1 at or above ``end``, linear between (``start < end``)."""
    return min(1.0, max(0.0, (value - start) / (end - start)))
