"""The bootstrap interval of a mean, and the calibration bench's cells against their bars (bench.calibration_eval)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.calibration_eval import against_the_bar, bar_report
from harness.intervals import mean_interval


def test_an_interval_holds_its_mean_and_narrows_with_more_runs():
    rng = np.random.default_rng(1)
    few, many = rng.normal(0.01, 0.02, 10), rng.normal(0.01, 0.02, 1000)
    small, large = mean_interval(few), mean_interval(many)
    assert small.low < small.mean < small.high and large.low < large.mean < large.high
    assert small.mean == pytest.approx(few.mean())
    assert large.high - large.low < (small.high - small.low) / 5  # ~ 1 / sqrt(n)
    assert large.excludes_zero() and large.low > 0  # 1000 runs of a +0.01 difference tell it from chance


def test_one_run_of_ten_a_text_under_is_chance_and_five_of_forty_are_not():
    one = mean_interval([0.0] * 9 + [-0.001])
    assert one.mean < 0 and one.high == 0.0 and not one.excludes_zero()
    five = mean_interval([0.0] * 35 + [-0.033, -0.033, -0.067, -0.033, -0.033])
    assert five.high < 0 and five.excludes_zero()


def test_an_interval_is_the_same_every_time_it_is_written():
    values = [0.01, -0.02, 0.0, 0.03, 0.005]
    assert mean_interval(values) == mean_interval(values)
    with pytest.raises(ValueError):
        mean_interval([])
    with pytest.raises(ValueError):
        mean_interval([1.0], level=1.0)


def result(half: list[float], plain: list[float], skew: list[float]) -> dict:
    def column(runs: list[float]) -> dict:
        return {"mean": float(np.mean(runs)), "min": min(runs), "n": len(runs), "calibrated": True, "runs": runs}

    return {"set": "thucnews", "wording": "bare",
            "gains": {"half": column(half), "half plain": column(plain), "skew": column(skew)}}  # fmt: skip


def test_a_cell_is_compared_with_its_own_bar_run_by_run():
    # the half gains more than the plain mean in every run but one, by less than the runs differ from each other:
    # unpaired means would say nothing, paired they are a clear loss in one run and otherwise level
    r = result(half=[0.02, 0.05, 0.01, 0.03], plain=[0.02, 0.05, 0.01, 0.04], skew=[0.01, -0.01, 0.0, 0.02])
    interval, differences = against_the_bar(r, "half")
    assert differences == pytest.approx([0.0, 0.0, 0.0, -0.01])
    assert interval.mean == pytest.approx(-0.0025)
    skew, _ = against_the_bar(r, "skew")  # against no calibration: the gain itself
    assert skew.mean == pytest.approx(0.005)
    assert against_the_bar(r, "job") is None  # not measured
    old = result([0.01], [0.01], [0.0])
    del old["gains"]["half"]["runs"]  # a report written before the runs were kept
    assert against_the_bar(old, "half") is None


def test_the_report_lists_the_cells_under_their_bar_and_says_which_chance_explains():
    chance = result(half=[0.0] * 9 + [-0.001], plain=[0.0] * 10, skew=[0.01] * 10)
    under = result(half=[0.02] * 10, plain=[0.02] * 10, skew=[0.0] * 35 + [-0.033] * 5)
    lines = bar_report([chance, under])
    text = "\n".join(lines)
    assert "Of 4 cells, 2 are at or above their bar" in text
    rows = [line for line in lines if line.startswith("| thucnews")]
    assert len(rows) == 2
    assert "| half | plain centring | -0.0001 |" in rows[0] and rows[0].endswith("| 1 / 9 / 0 | within chance |")
    assert "| skew | uncalibrated | -0.0041 |" in rows[1] and rows[1].endswith("| 5 / 35 / 0 | under |")
