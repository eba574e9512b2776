"""Realistic request bodies: short English and Chinese news and customer-service sentences.

``data/workload.jsonl`` ships with the project (written for it). When ``../shared/datasets`` is present
(THUCNews headlines, CIC customer-service intents) its rows can be mixed in with ``extra_datasets=True``.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOAD = HERE / "data" / "workload.jsonl"
SHARED = HERE.parent.parent / "shared" / "datasets"


@dataclass(frozen=True)
class Row:
    text: str
    label: str
    lang: str
    domain: str


def load_rows(path: Path = WORKLOAD, extra_datasets: bool = False, extra_limit: int = 2000) -> list[Row]:
    rows = [Row(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if extra_datasets and SHARED.is_dir():
        rows += _shared_rows(extra_limit)
    return rows


def _shared_rows(limit: int) -> list[Row]:
    out: list[Row] = []
    classes_file = SHARED / "thucnews_classes.txt"
    if classes_file.is_file():
        classes = classes_file.read_text(encoding="utf-8").split()
        for line in (SHARED / "thucnews_test.tsv").read_text(encoding="utf-8").splitlines()[::5][: limit // 2]:
            title, idx = line.rsplit("\t", 1)
            out.append(Row(title, classes[int(idx)], "zh", "thucnews"))
    cic = SHARED / "cic_test_public.jsonl"
    if cic.is_file():
        for line in cic.read_text(encoding="utf-8").splitlines()[: limit // 2]:
            r = json.loads(line)
            out.append(Row(r["sentence"], r["label_des"], "zh", "cic"))
    return out


CIC_MOODS = {  # CIC intents by the buyer's mood (bench.studies.decisions_study's groups): 0 upset, 1 pleased
    0: ("买家表达不满/生气", "买家抱怨商品涨价了", "买家表示伤心难过"),
    1: ("买家表达赞美/满意", "买家表示麻烦卖家，表达感谢"),
}


def cic_moods(per_side: int = 60) -> tuple[list[str], list[int]]:
    """Real customer messages of upset (0) and pleased (1) buyers from CIC, up to ``per_side`` of each."""
    rows = [json.loads(line) for line in (SHARED / "cic_test_public.jsonl").read_text(encoding="utf-8").splitlines()]
    texts, truth = [], []
    for pleased, intents in CIC_MOODS.items():
        picked = [r["sentence"] for r in rows if r["label_des"] in intents][:per_side]
        texts += picked
        truth += [pleased] * len(picked)
    return texts, truth


def label_pools(rows: list[Row]) -> dict[tuple[str, str], list[str]]:
    """Candidate labels per (lang, domain): every class seen there."""
    pools: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in rows:
        pools[(r.lang, r.domain)].add(r.label)
    return {k: sorted(v) for k, v in pools.items()}


def request_body(row: Row, pools: dict[tuple[str, str], list[str]], rng: random.Random, n_labels: int) -> dict:
    """The row's text with its true label plus ``n_labels - 1`` others from its domain, shuffled."""
    pool = [label for label in pools[(row.lang, row.domain)] if label != row.label]
    labels = [row.label] + rng.sample(pool, min(len(pool), max(0, n_labels - 1)))
    rng.shuffle(labels)
    return {"text": row.text, "labels": labels}
