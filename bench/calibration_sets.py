"""The labelled sets and splits of label calibration, shared by the tool that measures it through the
service (``bench.calibration_eval``) and the studies that chose it (``bench.studies.label_calibration``,
``bench.studies.calibration_estimators``, ``bench.studies.examples_rule``): THUCNews (headlines stratified by
class; the rest as an unlabelled pool), CIC (118 intents), the project's English news and support rows, two
English review-sentiment sets (Yelp and IMDb sentences, negative or positive), each with its bare class names and a
second wording; stratified halves and skewed samples of them."""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench.decision_sets import stratified
from loadtest.workload import WORKLOAD

# review sentiment, two labels (bench/data/reviews/README.md): 1,000 sentences each, half of them positive
REVIEWS = Path(__file__).parent / "data" / "reviews"
REVIEW_SOURCES = ("yelp", "imdb")
SENTIMENTS = ["negative", "positive"]  # the files' label 0 and 1
REVIEW_TEMPLATE = "This review is {}."


@dataclass
class LabelledSet:
    name: str
    lang: str
    texts: list[str]
    truth: np.ndarray  # class index per text
    classes: list[str]  # the candidate labels (those that occur and any that never do)
    # wording variant -> one hypothesis per class (the label side the service embeds, before its prefix)
    wordings: dict[str, list[str]] = field(default_factory=dict)
    extra: list[str] = field(default_factory=list)  # unlabelled texts of the same task (an estimation pool)
    extra_truth: np.ndarray | None = None  # their classes: the drift stream's composition, never an estimator's


def load_sets(datasets: Path, thucnews_per_class: int = 200, cic_limit: int = 0, seed: int = 7) -> list[LabelledSet]:
    out = []
    names = (datasets / "thucnews_classes.txt").read_text(encoding="utf-8").split()
    rows = [line.rsplit("\t", 1) for line in (datasets / "thucnews_test.tsv").read_text(encoding="utf-8").splitlines()]
    rows = [(t, int(i)) for t, i in rows if t]
    sample = stratified(rows, thucnews_per_class, seed)  # the file is sorted by class
    chosen = set(sample)
    out.append(LabelledSet(
        "thucnews", "zh", [t for t, _ in sample], np.array([c for _, c in sample]), names,
        {"bare": names, "template": [f"这是一条关于{n}的新闻" for n in names]},
        [t for t, c in rows if (t, c) not in chosen], np.array([c for t, c in rows if (t, c) not in chosen]),
    ))  # fmt: skip
    labels = [json.loads(line) for line in (datasets / "cic_labels.json").read_text(encoding="utf-8").splitlines()]
    intents = [r["label_des"] for r in sorted(labels, key=lambda r: int(r["label"]))]
    cic = [json.loads(line) for line in (datasets / "cic_test_public.jsonl").read_text(encoding="utf-8").splitlines()]
    if cic_limit:
        cic = random.Random(seed).sample(cic, cic_limit)
    out.append(LabelledSet(
        "cic", "zh", [r["sentence"] for r in cic], np.array([intents.index(r["label_des"]) for r in cic]), intents,
        {"bare": intents, "no-buyer": [i.removeprefix("买家") for i in intents]},
    ))  # fmt: skip
    workload = [json.loads(line) for line in WORKLOAD.read_text(encoding="utf-8").splitlines() if line.strip()]
    for domain, template in (
        ("news", "This is a news article about {}."),
        ("support", "The customer writes about {}."),
    ):
        rows_d = [r for r in workload if r["lang"] == "en" and r["domain"] == domain]
        classes = sorted({r["label"] for r in rows_d})
        out.append(LabelledSet(
            f"en-{domain}", "en", [r["text"] for r in rows_d], np.array([classes.index(r["label"]) for r in rows_d]),
            classes, {"bare": classes, "template": [template.format(c) for c in classes]},
        ))  # fmt: skip
    return out + review_sets()


def review_sets() -> list[LabelledSet]:
    """The review-sentiment sets (``REVIEWS``), each sentence as published (its trailing spaces dropped)."""
    out = []
    for source in REVIEW_SOURCES:
        lines = (REVIEWS / f"{source}_labelled.txt").read_text(encoding="utf-8").splitlines()
        rows = [line.rsplit("\t", 1) for line in lines]
        out.append(LabelledSet(
            f"en-{source}", "en", [t.strip() for t, _ in rows], np.array([int(c) for _, c in rows]), SENTIMENTS,
            {"bare": SENTIMENTS, "template": [REVIEW_TEMPLATE.format(c) for c in SENTIMENTS]},
        ))  # fmt: skip
    return out


# two-label tasks (as sentiment is) cut from THUCNews' ten classes: 财经-房产 (the class e5's bias favours against
# one it confuses it with), 股票-社会, 教育-体育
THUCNEWS_PAIRS = ((0, 1), (2, 5), (3, 7))


def two_label(data: LabelledSet, i: int, j: int) -> LabelledSet:
    """``data``'s texts of classes ``i`` and ``j`` against those two labels alone (its wordings kept), named
    ``<set> <class i>-<class j>``."""
    rows = np.flatnonzero((data.truth == i) | (data.truth == j))
    return LabelledSet(
        f"{data.name} {data.classes[i]}-{data.classes[j]}", data.lang, [data.texts[r] for r in rows],
        (data.truth[rows] == j).astype(int), [data.classes[i], data.classes[j]],
        {name: [w[i], w[j]] for name, w in data.wordings.items()},
    )  # fmt: skip


def halves(truth: np.ndarray, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """A random half stratified by class (an odd class's extra row goes to a random side), and the rest."""
    a, b = [], []
    by_class: dict[int, list[int]] = defaultdict(list)
    for i, c in enumerate(truth):
        by_class[int(c)].append(i)
    for c in sorted(by_class):
        idx = by_class[c][:]
        rng.shuffle(idx)
        h = len(idx) // 2 + (len(idx) % 2 and rng.random() < 0.5)
        a += idx[:h]
        b += idx[h:]
    return np.array(sorted(a)), np.array(sorted(b))


def skewed(idx: np.ndarray, truth: np.ndarray, frequent: int, ratio: int, rng: random.Random) -> np.ndarray:
    """Rows of ``idx`` where class ``frequent`` is at least ``ratio`` times as frequent as each other class:
    the others keep ceil(n_frequent / ratio) rows each, the frequent class all of its rows, repeated in turn
    when it has fewer than ``ratio`` times that (the tiny English sets)."""
    by_class: dict[int, list[int]] = defaultdict(list)
    for i in idx:
        by_class[int(truth[i])].append(int(i))
    mine = by_class[frequent][:]
    rng.shuffle(mine)
    cap = max(1, math.ceil(len(mine) / ratio))
    out = []
    for c, rows in by_class.items():
        if c != frequent:
            rows = rows[:]
            rng.shuffle(rows)
            out += rows[:cap]
    need = ratio * cap
    out += [mine[j % len(mine)] for j in range(max(need, len(mine)))]
    return np.array(out)


def frequent_classes(idx: np.ndarray, truth: np.ndarray, rng: random.Random, most: int) -> list[int]:
    counts = np.bincount(truth[idx], minlength=int(truth.max()) + 1)
    enough = [int(c) for c in np.flatnonzero(counts >= min(5, counts.max()))]
    return rng.sample(enough, min(most, len(enough)))
