"""The int8 study's bookkeeping (bench/studies/int8.py): calibration text never overlaps what is evaluated, the
top-1/margin maths, agreement and accuracy per group, and the default rule of issue 17."""

from __future__ import annotations

import numpy as np
import pytest

from bench.studies.int8 import EvalSet, calibration_texts, eval_sets, judge, meets, top1, verdict
from loadtest.workload import SHARED

needs_data = pytest.mark.skipif(not (SHARED / "thucnews_test.tsv").is_file(), reason="../shared/datasets missing")


@needs_data
def test_calibration_text_is_held_out_and_sets_are_stratified():
    sets = eval_sets(1000)
    evaluated = {t for s in sets for t in s.texts}
    calibration = calibration_texts(1000)
    assert len(calibration) >= 200 and not evaluated & set(calibration)
    thucnews = next(s for s in sets if s.name == "thucnews")
    assert len(thucnews.texts) == 1000 and np.bincount(thucnews.gold).tolist() == [100] * 10  # every class
    cic = next(s for s in sets if s.name == "cic")
    assert len(cic.labels) >= 100 and all(0 <= g < len(cic.labels) for g in cic.gold)
    assert {s.group for s in sets} == {"workload-en", "workload-zh", "thucnews", "cic"}


def test_top1_and_margin():
    texts = np.array([[1.0, 0.0], [0.6, 0.8]])
    labels = np.array([[1.0, 0.0], [0.0, 1.0], [0.8, 0.6]])
    best, margin = top1(texts, labels)
    # cosines: [1, 0, 0.8] and [0.6, 0.8, 0.96]
    assert best.tolist() == [0, 2]
    assert margin == pytest.approx([0.2, 0.16])


def _sets():
    return [
        EvalSet("workload-en-news", "en", "workload-en", ["a", "b"], [0, 1], ["x", "y"]),
        EvalSet("workload-en-support", "en", "workload-en", ["c", "d"], [0, 0], ["x", "y"]),
        EvalSet("cic", "zh", "cic", ["e", "f", "g", "h"], [0, 1, 1, 0], ["x", "y"]),
    ]


def test_judge_groups_sets_and_counts_only_the_models_languages():
    ref = {"workload-en-news": np.array([0, 1]), "workload-en-support": np.array([0, 1]), "cic": np.array([0, 1, 1, 1])}
    pred = {
        "workload-en-news": np.array([0, 1]),
        "workload-en-support": np.array([0, 0]),
        "cic": np.array([1, 0, 0, 0]),
    }
    j = judge(_sets(), ref, pred, ("en",))
    en = j["sets"]["workload-en"]
    assert en["texts"] == 4 and en["agreement"] == 0.75 and en["counted"]
    assert en["accuracy_fp32"] == 0.75 and en["accuracy"] == 1.0 and en["accuracy_change_pt"] == pytest.approx(25.0)
    assert not j["sets"]["cic"]["counted"] and j["sets"]["cic"]["agreement"] == 0.0
    assert j["min_agreement"] == j["agreement"] == 0.75  # the Chinese set is not counted for an English model
    both = judge(_sets(), ref, pred, ("en", "zh"))
    assert both["min_agreement"] == 0.0 and both["agreement"] == pytest.approx(3 / 8)
    assert both["worst_accuracy_change_pt"] == pytest.approx(-50.0)  # cic: 0.75 -> 0.25


@pytest.mark.parametrize(
    ("agreement", "change", "speedup", "ok"),
    [(0.99, -0.5, 1.8, True), (0.989, 0.0, 3.0, False), (1.0, -0.6, 3.0, False), (1.0, 0.0, 1.79, False)],
)
def test_the_default_rule(agreement, change, speedup, ok):
    c = {"min_agreement": agreement, "worst_accuracy_change_pt": change, "speedup_vs_torch_fp32": speedup}
    assert meets(c) is ok


def test_verdict_picks_the_fastest_passing_candidate():
    good = {"min_agreement": 0.995, "worst_accuracy_change_pt": 0.0}
    results = {
        "candidates": {
            "a": {**good, "speedup_vs_torch_fp32": 2.0},
            "b": {**good, "speedup_vs_torch_fp32": 2.4},
            "c cascade": {**good, "min_agreement": 0.9, "speedup_vs_torch_fp32": 3.0},
        }
    }
    assert verdict(results) == {"passing": ["a", "b"], "chosen": "b"}
    results["candidates"] = {"a": {**good, "speedup_vs_torch_fp32": 1.5}}
    assert verdict(results) == {"passing": [], "chosen": None}
