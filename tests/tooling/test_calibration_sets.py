"""The splits label calibration is measured on (bench/calibration_sets.py): a two-label task cut from a set keeps
exactly its two classes' texts and wordings, a skewed sample is skewed as it says, and the review-sentiment sets
read as published."""

from __future__ import annotations

import random

import numpy as np

from bench.calibration_sets import SENTIMENTS, LabelledSet, review_sets, skewed, two_label


def three_classes() -> LabelledSet:
    truth = np.array([0, 1, 2, 1, 0, 2, 2, 1])
    classes = ["sport", "money", "film"]
    wordings = {"bare": classes, "template": [f"About {c}." for c in classes]}
    return LabelledSet("news", "en", [f"text {i}" for i in range(len(truth))], truth, classes, wordings)


def test_a_two_label_task_keeps_its_classes_texts_and_wordings():
    pair = two_label(three_classes(), 0, 2)
    assert pair.name == "news sport-film" and pair.classes == ["sport", "film"]
    assert pair.texts == ["text 0", "text 2", "text 4", "text 5", "text 6"]
    assert pair.truth.tolist() == [0, 1, 0, 1, 1]  # the second class is label 1
    assert pair.wordings == {"bare": ["sport", "film"], "template": ["About sport.", "About film."]}


def test_a_skewed_sample_has_its_frequent_class_ratio_times_each_other():
    truth = np.repeat(np.arange(3), 20)
    rows = skewed(np.arange(len(truth)), truth, 1, 5, random.Random(0))
    counts = np.bincount(truth[rows], minlength=3)
    assert counts.tolist() == [4, 20, 4]
    assert set(rows[truth[rows] == 1]) == set(range(20, 40))  # every row of the frequent class, once


def test_the_review_sets_read_as_published():
    sets = review_sets()
    assert [s.name for s in sets] == ["en-yelp", "en-imdb"]
    for s in sets:
        assert len(s.texts) == 1000 and np.bincount(s.truth).tolist() == [500, 500]
        assert s.classes == SENTIMENTS == ["negative", "positive"]
        assert all(t and t == t.strip() and "\t" not in t for t in s.texts)
        assert s.wordings["template"] == ["This review is negative.", "This review is positive."]
