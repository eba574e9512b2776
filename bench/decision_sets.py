"""The labelled sets of the decision evaluations, shared by the tools that ask them through the service
(``bench.decisions_eval``, ``bench.systemone_eval``) and the study that chose how decisions are answered
(``bench.studies.decisions_study``): THUCNews headlines and CIC customer-service utterances
(``../shared/datasets``) and the project's English news and support rows (``loadtest/data/workload.jsonl``),
each with its predicate wording (statement and question), two realistic choice instructions and, where the
project has a phrasings file, a description per class."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np
import yaml

from harness import ROOT
from loadtest.workload import SHARED, WORKLOAD

DATA = ROOT / "loadtest" / "data"
L = TypeVar("L", str, int)  # a row's class: a name or an index


def stratified(rows: list[tuple[str, L]], per_class: int, seed: int) -> list[tuple[str, L]]:
    """Up to ``per_class`` rows of each class (the second item: a name or an index), classes in sorted order,
    each class's rows shuffled by one generator seeded with ``seed``."""
    by_class: dict[L, list[tuple[str, L]]] = defaultdict(list)
    for row in rows:
        by_class[row[1]].append(row)
    rng = random.Random(seed)
    out = []
    for label in sorted(by_class):
        picked = by_class[label][:]
        rng.shuffle(picked)
        out += picked[:per_class]
    return out


@dataclass
class LabelledSet:
    name: str
    lang: str
    texts: list[str]
    labels: np.ndarray  # index into classes
    classes: list[str]
    statement: str  # the predicate's wording, with {} for the class
    question: str  # the same as a question
    instructions: tuple[str, ...]  # realistic instructions of a choice question over the classes
    descriptions: dict[str, str] = field(default_factory=dict)  # class -> a description (phrasings file)


def _first_phrasings(path: Path) -> dict[str, str]:
    return {k: v[0] for k, v in yaml.safe_load(path.read_text(encoding="utf-8")).items()}


def load_sets(per_class: int, cic_per_intent: int | None, seed: int) -> list[LabelledSet]:
    out = []
    names = (SHARED / "thucnews_classes.txt").read_text(encoding="utf-8").split()
    rows = [line.rsplit("\t", 1) for line in (SHARED / "thucnews_test.tsv").read_text(encoding="utf-8").splitlines()]
    rows = stratified([(t, names[int(i)]) for t, i in rows if t], per_class, seed)
    out.append(
        _labelled(
            "thucnews",
            "zh",
            rows,
            names,
            "这条新闻是关于{}的。",
            "这条新闻是关于{}的吗？",
            ("这条新闻属于哪个类别？", "What is this news headline about?"),
            _first_phrasings(DATA / "thucnews-phrasings.yaml"),
        )
    )
    intents = [json.loads(line)["label_des"] for line in (SHARED / "cic_labels.json").read_text().splitlines() if line]
    rows = [json.loads(line) for line in (SHARED / "cic_test_public.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = [(r["sentence"], r["label_des"]) for r in rows if r.get("sentence")]
    if cic_per_intent:
        rows = stratified(rows, cic_per_intent, seed)
    # CIC's intents are statements already (买家咨询是否有活动: "the buyer asks whether there is a sale")
    out.append(
        _labelled("cic", "zh", rows, intents, "{}", "{}吗？", ("买家的意图是什么？", "What does the customer want?"))
    )
    workload = [json.loads(line) for line in WORKLOAD.read_text(encoding="utf-8").splitlines() if line]
    for domain, statement, question, instructions, phrasings in (
        (
            "news",
            "This news is about {}.",
            "Is this news about {}?",
            ("What is this news headline about?", "Which section of the newspaper does this belong in?"),
            "news-phrasings.yaml",
        ),
        (
            "support",
            "The customer writes about {}.",
            "Does the customer write about {}?",
            ("What does the customer write about?", "Which team should handle this message?"),
            "support-phrasings.yaml",
        ),
    ):
        rows = [(r["text"], r["label"]) for r in workload if r["lang"] == "en" and r["domain"] == domain]
        classes = sorted({c for _, c in rows})
        out.append(
            _labelled(
                f"en-{domain}",
                "en",
                rows,
                classes,
                statement,
                question,
                instructions,
                _first_phrasings(DATA / phrasings),
            )
        )
    return out


def _labelled(name, lang, rows, classes, statement, question, instructions, descriptions=None) -> LabelledSet:
    return LabelledSet(
        name,
        lang,
        [t for t, _ in rows],
        np.array([classes.index(c) for _, c in rows]),
        list(classes),
        statement,
        question,
        instructions,
        descriptions or {},
    )
