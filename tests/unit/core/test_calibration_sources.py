"""Per-source records: no source holds more than its share of the weight; the Redis form round-trips."""

from __future__ import annotations

import math

import numpy as np
import pytest

from service.core import calibration as cal
from service.core import calibration_sources as src

LABELS = ("0", "1")
CONFIG = cal.CalibrationConfig(half_life=math.inf, min_texts=0.0)


def test_the_largest_sources_are_cut_to_their_share():
    assert src.capped_factors([3000.0, 305.0], 0.5) == pytest.approx([305 / 3000, 1.0])
    assert src.capped_factors([100.0], 0.5) == [1.0]  # alone: its own calibration
    assert src.capped_factors([10.0, 10.0, 10.0], 0.5) == [1.0, 1.0, 1.0]
    f = src.capped_factors([900.0, 50.0, 50.0], 0.4)
    weights = np.array([900.0, 50.0, 50.0]) * f
    assert weights[0] / weights.sum() == pytest.approx(0.4)


def test_a_flood_from_another_source_moves_the_offsets_no_further_than_its_share():
    rng = np.random.default_rng(1)
    own = rng.normal(0, 1, (300, 2)) + np.array([0.5, 0.0])  # a bias towards label 0
    flood = rng.normal(0, 1, (3000, 2)) + np.array([0.0, 3.0])  # texts of label 1 only
    plain = cal.CalibrationConfig(half_life=math.inf, min_texts=0.0, cap=math.inf, coverage_slack=math.inf, mix=None)
    alone = cal.offsets(cal.fit(own, LABELS, plain), plain)
    sources = {"a": cal.fit(own, LABELS, plain), "b": cal.fit(flood, LABELS, plain)}
    capped = src.combined(sources, LABELS, 0.5, plain)
    assert capped.weighed(plain)[0] == pytest.approx(2 * sources["a"].weighed(plain)[0]) and capped.texts == 3300
    both = cal.offsets(capped, plain)
    uncapped = cal.offsets(src.combined(sources, LABELS, 1.0, plain), plain)
    assert abs(both[1] - alone[1]) < 0.6 * abs(uncapped[1] - alone[1])
    assert src.largest_share(sources, plain) > 0.9


def test_a_record_round_trips_through_its_hash_fields():
    rng = np.random.default_rng(2)
    delta = {
        "a": cal.fit(rng.normal(size=(5, 2)), LABELS, CONFIG),
        "b": cal.fit(rng.normal(size=(3, 2)), LABELS, CONFIG),
    }
    fields = src.increment_record(delta, 8.0, 0.0, 2000.0)
    fields["texts"] = 8.0
    back = src.read_record(LABELS, {k.encode(): str(v).encode() for k, v in fields.items()}, 2000.0)
    assert set(back) == {"a", "b"}
    assert back["a"].texts == 5 and np.allclose(back["a"].by_winner, delta["a"].by_winner)
    assert np.allclose(back["a"].by_winner_squares, delta["a"].by_winner_squares)
    assert back["a"].margins.sum() > 0 and np.allclose(back["a"].margins, delta["a"].margins)  # two labels' bins
    rebased = src.rebase_record(LABELS, fields, 2000.0)
    again = src.read_record(LABELS, rebased, 2000.0)
    assert np.allclose(again["b"].by_winner, back["b"].by_winner) and np.allclose(again["b"].margins, back["b"].margins)


def test_one_label_winning_everything_is_not_trusted():
    assert cal.coverage(np.array([50.0, 50.0]), 2.0) == 1.0
    assert cal.coverage(np.array([70.0, 30.0]), 2.0) == 1.0  # a model's own bias keeps the correction
    assert cal.coverage(np.array([100.0, 0.0]), 2.0) == 0.0
    assert 0.0 < cal.coverage(np.array([95.0, 5.0]), 2.0) < 0.5


def add_field(current, delta):
    """A hash field plus an increment as the store's script adds them: numbers summed, packed rows element by
    element, a missing field 0."""
    if not isinstance(delta, str):
        return float(current or 0.0) + float(delta)
    if current is None:
        return delta
    return cal.pack_row(cal.unpack_row(current, delta.count(",") + 1) + cal.unpack_row(delta, delta.count(",") + 1))


def test_packed_rows_add_element_by_element_as_the_statistics_merge():
    """A record's hash with each row of sums in one field: two replicas' deltas added field by field (numbers
    summed, rows element by element, as the store's script does) read back as the merged statistics; a source's
    hash holds 2K fields of rows, not 2K²."""
    labels = tuple(f"label {i}" for i in range(7))
    config = cal.CalibrationConfig(half_life=math.inf, min_texts=0.0)
    rng = np.random.default_rng(4)
    a, b = (cal.fit(rng.normal(size=(n, len(labels))), labels, config) for n in (40, 25))
    record: dict = {}
    position = 0.0
    for delta in (a, b):
        position += delta.texts
        record["texts"] = position
        for name, value in src.increment_record({"x": delta}, position, 0.0, math.inf).items():
            record[name] = add_field(record.get(name), value)
    back = src.read_record(labels, {k.encode(): str(v).encode() for k, v in record.items()}, math.inf)["x"]
    whole = a.plus(b)
    for name in ("by_winner", "by_winner_squares", "wins", "settled"):
        np.testing.assert_allclose(getattr(back, name), getattr(whole, name), rtol=1e-12, err_msg=name)
    assert back.texts == whole.texts == 65 and back.total == pytest.approx(whole.total)
    rows = [k for k in record if k.startswith("x#b|") or k.startswith("x#v|")]
    assert len(rows) == 2 * int(whole.wins.astype(bool).sum()) and all("," in record[k] for k in rows)
    assert cal.unpack_row(cal.pack_row(np.array([0.1, -2.5e-300, 3.0])), 3).tolist() == [0.1, -2.5e-300, 3.0]
    assert cal.unpack_row("1.0,2.0", 3) is None  # a row written for other labels is not read as this one's
