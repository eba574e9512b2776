"""A calibration record kept per source, so that no source holds more than a bounded share of its weight.

A source is who sent the texts (an API key, else a client address). A record keeps each source's statistics
apart (``core.calibration.LabelStats``, every field a sum over that source's texts) and its offsets are
computed from their combination, each source's sums scaled so that it holds at most ``max_share`` of the
combined weight (water-filling: the largest sources are cut down to the same level, the others count as
they are). A stream that floods one label from one source therefore moves the offsets no more than its
share allows, whatever its length; a scope with one source is that source's own calibration.

In a Redis hash a source's fields are the record's field names behind ``<source>#``; the record's ``texts``
(its position, for decay) and ``origin`` stay unprefixed, so decay is the record's, shared by every source.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from service.core.calibration import (
    CalibrationConfig,
    LabelStats,
    clock,
    decay_between,
    from_fields,
    growth,
    to_fields,
    winner_weights,
)

SOURCE_SEP = "#"
OTHERS = "~"  # the source of every text whose own source came after the record's bound on sources


def capped_factors(weights: Sequence[float], max_share: float) -> list[float]:
    """Per source, the factor its sums are scaled by so that none holds more than ``max_share`` of the total
    (at least 1/n with n sources: the share every source has when all are equal)."""
    w = np.maximum(np.asarray(weights, dtype=np.float64), 0.0)
    n = len(w)
    if n == 0 or w.sum() <= 0:
        return [1.0] * n
    share = max(max_share, 1.0 / n)
    order = np.sort(w)[::-1]
    # the level L with every source above it cut to L and L = share * (the total after the cut)
    level = math.inf
    for cut in range(1, n + 1):  # the `cut` largest are cut to the level
        rest = float(order[cut:].sum())
        candidate = share * rest / (1.0 - share * cut) if share * cut < 1.0 else math.inf
        if candidate >= (order[cut] if cut < n else 0.0) and candidate <= order[cut - 1]:
            level = candidate
            break
    if math.isinf(level) or level >= order[0]:
        return [1.0] * n
    return [float(min(1.0, level / x)) if x > 0 else 1.0 for x in w]


def combined(
    per_source: Mapping[str, LabelStats], labels: Sequence[str], max_share: float, config: CalibrationConfig
) -> LabelStats:
    """One record's statistics from its sources', each scaled to its capped share of the weight (``weights``);
    ``texts`` is every source's texts (what the record has seen)."""
    if not per_source:
        return LabelStats.empty(labels)
    if len(per_source) == 1:  # one source holds the whole weight, whatever the cap
        return next(iter(per_source.values()))
    names = list(per_source)
    factors = capped_factors(weights(per_source, config), max_share)
    out = LabelStats.empty(labels)
    for name, factor in zip(names, factors):
        out = out.plus(per_source[name].scaled(factor))  # texts unscaled: what the source sent
    return out


def weights(per_source: Mapping[str, LabelStats], config: CalibrationConfig) -> list[float]:
    """Each source's weight in the record: its texts, each weighed by the skew weight of the label it won in the
    record's wins before any cap (``core.calibration.winner_weights``)."""
    stats = list(per_source.values())
    w = winner_weights(sum(s.wins for s in stats), sum(s.total for s in stats), config)
    return [float(w @ s.wins) for s in stats]


def largest_share(per_source: Mapping[str, LabelStats], config: CalibrationConfig) -> float:
    """The largest source's share of the record's weight before any cap (0 with none): what GET /label_sets
    and the metrics show."""
    found = weights(per_source, config) if per_source else []
    total = sum(found)
    return max(found) / total if total > 0 else 0.0


def texts_of(per_source: Mapping[str, LabelStats]) -> float:
    """The texts every source sent together."""
    return sum(s.texts for s in per_source.values())


def merged(
    older: Mapping[str, LabelStats], newer: Mapping[str, LabelStats], half_life: float, at: float | None = None
) -> dict[str, LabelStats]:
    """Per-source ``merge``: every source decays by the texts of all of ``newer`` (the record's decay), from
    the record's ``at`` texts (where ``newer`` begins; default: ``older``'s, the record from its first text)."""
    if not newer:
        return dict(older)
    start = texts_of(older) if at is None else at
    factor = decay_between(start, start + texts_of(newer), half_life)  # every source decays by all texts
    out = {name: old.scaled(factor) for name, old in older.items()}
    for name, new in newer.items():
        out[name] = out[name].plus(new) if name in out else new
    return out


def source_fields(source: str, stats: LabelStats, factor: float = 1.0) -> dict[str, float | str]:
    """A source's fields for a record's hash (``texts`` undecayed: what it sent), each row of sums packed in one
    field (``core.calibration.pack_row``: a record re-read every second holds 2K fields a source, not 2K²)."""
    return {f"{source}{SOURCE_SEP}{k}": v for k, v in to_fields(stats, factor, rows=True).items()}


def split_fields(fields: Mapping) -> tuple[dict[str, float | str | bytes], dict[str, dict[str, float | str | bytes]]]:
    """A record's hash as (its own fields, per source its fields without the prefix)."""
    own: dict = {}
    per: dict[str, dict] = {}
    for key, value in fields.items():
        key = key.decode() if isinstance(key, bytes) else key
        source, sep, rest = key.partition(SOURCE_SEP)
        if sep:
            per.setdefault(source, {})[rest] = value
        else:
            own[key] = value
    return own, per


def read_sources(labels: Sequence[str], fields: Mapping, factor: float) -> dict[str, LabelStats]:
    """Each source's statistics from a record's hash, decayed sums multiplied by ``factor``."""
    _, per = split_fields(fields)
    return {source: from_fields(labels, sub, factor) for source, sub in per.items()}


# -- a record in a Redis hash, written with increments only (``core.calibration.increment_fields``) -----------
def read_record(labels: Sequence[str], fields: Mapping, half_life: float) -> dict[str, LabelStats]:
    """Each source's statistics of a record written with ``increment_record``, decayed to now."""
    own, per = split_fields(fields)
    texts, origin = clock(own)
    factor = decay_between(origin, texts, half_life)
    return {source: from_fields(labels, sub, factor) for source, sub in per.items()}


def increment_record(delta: Mapping[str, LabelStats], position: float, origin: float, half_life: float) -> dict:
    """What to add into a record for a delta per source (its ``texts`` counted already: ``position`` is the
    record's ``texts`` after it): numbers to HINCRBYFLOAT, packed rows to add element by element
    (``pipeline.calibration_store``'s script)."""
    grown = growth(position, origin, half_life)
    out: dict[str, float | str] = {}
    for source, stats in delta.items():
        fields = source_fields(source, stats, grown)
        fields[f"{source}{SOURCE_SEP}texts"] = float(stats.texts)
        out.update(fields)
    return out


def rebase_record(labels: Sequence[str], fields: Mapping, half_life: float) -> dict[str, float | str]:
    """The same record on a smaller scale: ``origin`` moved to its ``texts``."""
    own, _ = split_fields(fields)
    texts, _ = clock(own)
    out: dict[str, float | str] = {"texts": texts, "origin": texts}
    for source, stats in read_record(labels, fields, half_life).items():
        out.update(source_fields(source, stats))
    return out
