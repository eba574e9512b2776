"""The estimator study's summary over many tasks (bench/studies/calibration_estimators.py): each protocol is read
against its own bar, a tie is not a loss, and the worst task is the one furthest under it; and what two of its
candidates do that the service's estimator does not."""

from __future__ import annotations

import numpy as np

from bench.studies.calibration_estimators import (
    IN_ORDER,
    PROTOCOLS,
    against_the_bar,
    capped_median,
    plain,
    scaled_by_changed_answers,
)


def task(balanced_plain: float, balanced_service: float, skewed_uncalibrated: float, skewed_service: float) -> dict:
    rows = {"uncalibrated": {}, "plain centring": {}, "service": {}}
    for p in PROTOCOLS:
        balanced = p in ("balanced", "job")
        rows["uncalibrated"][p] = 0.5 if balanced else skewed_uncalibrated
        rows["plain centring"][p] = balanced_plain if balanced else 0.1  # plain is never the bar of a skewed sample
        rows["service"][p] = balanced_service if balanced else skewed_service
    del rows["plain centring"][IN_ORDER]  # measured for the service alone
    return {"skew left after the cap": {p: 0.3 for p in PROTOCOLS}, **rows}


def test_each_protocol_is_read_against_its_bar_and_a_tie_is_not_a_loss():
    results = {
        "a": task(0.60, 0.60, 0.80, 0.79),  # balanced: a tie with plain; skewed: 0.01 under uncalibrated
        "b": task(0.70, 0.6996, 0.90, 0.93),  # 0.0004 under plain is a tie; skewed: 0.03 above
    }
    lines = against_the_bar(results).splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == ["estimator", *PROTOCOLS]
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.strip("|").split("|")[1:]] for r in lines[2:]}
    assert set(rows) == {"plain centring", "service"}  # the bars' own rows: plain is a candidate, uncalibrated not
    cells = dict(zip(PROTOCOLS, rows["service"]))
    assert cells["balanced"] == "-0.0002 (0/2 under, worst -0.000)"
    assert cells["skew x5"] == "+0.0100 (1/2 under, worst -0.010)"
    plain = dict(zip(PROTOCOLS, rows["plain centring"]))
    assert plain["one class"] == "-0.7500 (2/2 under, worst -0.800)"
    assert plain[IN_ORDER] == "—" and cells[IN_ORDER] == cells["skew x5"]  # not measured: no number, no count


def test_a_correction_that_changes_none_of_its_own_answers_is_not_applied():
    wide = np.array([[5.0, 0.0], [0.0, 5.0], [4.0, 0.5]])  # margins far wider than the correction
    nudge = scaled_by_changed_answers(lambda e, src: np.array([0.5, -0.5]))
    assert np.array_equal(nudge(wide, np.zeros(3)), [0.0, 0.0])
    close = np.array([[0.2, 0.0], [0.0, 5.0], [4.0, 0.5]])  # the first text's answer changes
    assert np.array_equal(nudge(close, np.zeros(3)), [0.5, -0.5])


def test_the_median_candidate_learns_a_bias_every_text_shows_not_one_class_s_lift():
    rng = np.random.default_rng(0)
    e = rng.normal(0.0, 0.5, size=(200, 4))
    e[:, 1] += 0.3  # a bias every text shows
    e[:20, 2] += 3.0  # one class's lift of its own label: the mean learns it as bias, the median hardly
    mean, found = plain(e, np.zeros(200)), capped_median(e, np.zeros(200))
    assert mean[2] > 0.05 and int(np.argmax(found)) == 1
    assert found[2] < mean[2] / 4
