"""NLI scores equal transformers' ZeroShotClassificationPipeline, through import, serve and HTTP.

Both layouts users import: a Hugging Face checkpoint (MNLI order, entailment = 2) and a ModelScope
StructBERT checkpoint (model_type structbert, no label names, entailment = 0 by override rule).
"""

from __future__ import annotations

import asyncio
import random

import httpx
import numpy as np
import pytest
from transformers import ZeroShotClassificationPipeline

from tests.support.tiny_models import CHINESE, WORDS

LAYOUTS = ["hf", "ms"]
TEMPLATES = {"hf": "This example is {}.", "ms": "{}"}  # each import's default template


def reference(tiny_checkpoints, layout):
    _, model = tiny_checkpoints[layout]
    return ZeroShotClassificationPipeline(model=model, tokenizer=tiny_checkpoints["tokenizer"], device="cpu")


def random_cases(n, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        words = rng.choices(WORDS + CHINESE, k=rng.randint(1, 30))
        labels = list(dict.fromkeys(rng.sample(WORDS, rng.randint(1, 7))))
        template = rng.choice([None, "This text is about {}.", "{}"])
        cases.append(
            {
                "text": " ".join(words),
                "labels": labels,
                "multi_label": rng.random() < 0.4,
                **({"hypothesis_template": template} if template else {}),
            }
        )
    return cases


def expected(pipe, case, layout):
    template = case.get("hypothesis_template") or TEMPLATES[layout]
    out = pipe(
        case["text"],
        candidate_labels=case["labels"],
        hypothesis_template=template,
        multi_label=case["multi_label"],
    )
    return dict(zip(out["labels"], out["scores"]))


def assert_same(got: dict, want: dict):
    assert set(got) == set(want)
    for label, score in want.items():
        assert got[label] == pytest.approx(score, abs=1e-5), (label, got, want)


def as_dict(response_json):
    return dict(zip(response_json["labels"], response_json["scores"]))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_single_requests_match_pipeline(nli_servers, tiny_checkpoints, layout):
    pipe = reference(tiny_checkpoints, layout)
    for case in random_cases(20, seed=hash(layout) % 1000):
        r = httpx.post(f"{nli_servers[layout]}/classify", json=case, timeout=60)
        assert r.status_code == 200, r.text
        assert_same(as_dict(r.json()), expected(pipe, case, layout))
        # ranking is by score, best first
        assert r.json()["scores"] == sorted(r.json()["scores"], reverse=True)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_batch_with_mixed_label_sets_matches_pipeline(nli_servers, tiny_checkpoints, layout):
    pipe = reference(tiny_checkpoints, layout)
    cases = random_cases(30, seed=99)
    r = httpx.post(f"{nli_servers[layout]}/classify_batch", json={"items": cases}, timeout=120)
    assert r.status_code == 200, r.text
    for case, result in zip(cases, r.json()["results"]):
        assert_same(as_dict(result), expected(pipe, case, layout))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_concurrent_requests_merged_by_batcher_match_pipeline(nli_servers, tiny_checkpoints, layout):
    pipe = reference(tiny_checkpoints, layout)
    cases = random_cases(40, seed=5)

    async def go():
        async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=40)) as c:
            return await asyncio.gather(*(c.post(f"{nli_servers[layout]}/classify", json=x) for x in cases))

    for case, r in zip(cases, asyncio.run(go())):
        assert r.status_code == 200, r.text
        assert_same(as_dict(r.json()), expected(pipe, case, layout))


def test_structbert_import_recorded_modelscope_indices(nli_servers):
    r = httpx.post(f"{nli_servers['ms']}/classify", json={"text": "我的订单", "labels": "退款，发货"}, timeout=30)
    assert r.status_code == 200, r.text
    assert r.json()["model"].startswith("tiny-ms:")
    assert np.isclose(sum(r.json()["scores"]), 1.0)


def test_batch_larger_than_one_engine_call_is_split_and_still_exact(nli_servers, tiny_checkpoints):
    """80 items x 8 labels = 640 pairs > ZSC_MAX_BATCH_SIZE (512): the dispatcher splits the job."""
    pipe = reference(tiny_checkpoints, "hf")
    rng = random.Random(21)
    cases = [
        {
            "text": " ".join(rng.choices(WORDS, k=rng.randint(3, 20))),
            "labels": rng.sample(WORDS, 8),
            "multi_label": False,
        }
        for _ in range(80)
    ]
    r = httpx.post(f"{nli_servers['hf']}/classify_batch", json={"items": cases}, timeout=300)
    assert r.status_code == 200, r.text
    for case, result in zip(cases[::7], r.json()["results"][::7]):
        assert_same(as_dict(result), expected(pipe, case, "hf"))
