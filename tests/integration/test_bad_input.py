"""Every kind of bad input gets a 400 whose body says what to fix; the service keeps answering."""

from __future__ import annotations

import httpx
import pytest

LONG = "x" * 10_001

CASES = [
    # (name, endpoint, body, words the message must contain)
    ("empty text", "classify", {"text": "   ", "labels": ["a", "b"]}, "text is empty"),
    ("missing text", "classify", {"labels": ["a"]}, "Field required"),
    ("no labels (list)", "classify", {"text": "hi", "labels": []}, "no labels"),
    ("no labels (string)", "classify", {"text": "hi", "labels": " "}, "no labels"),
    ("empty label", "classify", {"text": "hi", "labels": "a,,b"}, "label 1 is empty"),
    ("duplicate label", "classify", {"text": "hi", "labels": ["a", "b", "a"]}, "appears twice"),
    ("duplicate after strip", "classify", {"text": "hi", "labels": "a, a"}, "appears twice"),
    (
        "template without {}",
        "classify",
        {"text": "hi", "labels": ["a"], "hypothesis_template": "About"},
        "must contain '{}'",
    ),
    (
        "template with named field",
        "classify",
        {"text": "hi", "labels": ["a"], "hypothesis_template": "{} is {x}"},
        "only '{}'",
    ),
    ("text wrong type", "classify", {"text": 42, "labels": ["a"]}, "string"),
    ("labels wrong type", "classify", {"text": "hi", "labels": [1, 2]}, "string"),
    ("multi_label wrong type", "classify", {"text": "hi", "labels": ["a"], "multi_label": "yes"}, "boolean"),
    ("unknown field", "classify", {"text": "hi", "labels": ["a"], "lables": ["b"]}, "Extra inputs"),
    ("text too long", "classify", {"text": LONG, "labels": ["a"]}, "the limit is 10000"),
    (
        "too many labels",
        "classify",
        {"text": "hi", "labels": [f"l{i}" for i in range(65)]},
        "the limit is 64",
    ),
    ("label too long", "classify", {"text": "hi", "labels": ["y" * 101]}, "the limit is 100"),
    ("empty batch", "classify_batch", {"items": []}, "items is empty"),
    (
        "bad batch item",
        "classify_batch",
        {"items": [{"text": "ok", "labels": ["a"]}, {"text": "", "labels": ["a"]}]},
        "text is empty",
    ),
    (
        "too many items",
        "classify_batch",
        {"items": [{"text": "t", "labels": ["a"]}] * 257},
        "the limit is 256",
    ),
    (
        "label object with both wordings",
        "classify",
        {"text": "hi", "labels": [{"name": "a", "description": "x", "hypothesis": "y"}]},
        "both a description and a hypothesis",
    ),
    ("label object without a name", "classify", {"text": "hi", "labels": [{"description": "x"}]}, "Field required"),
    (
        "empty phrasing",
        "classify",
        {"text": "hi", "labels": [{"name": "a", "description": ["ok", ""]}]},
        "description 1 is empty",
    ),
    ("unknown truncation", "classify", {"text": "hi", "labels": ["a"], "truncation": "middle"}, "'chunk'"),
    ("unknown aggregation", "classify", {"text": "hi", "labels": ["a"], "chunk_aggregation": "min"}, "'mean'"),
    ("threshold out of range", "classify", {"text": "hi", "labels": ["a"], "threshold": 2}, "less than or equal to 1"),
    ("top_k zero", "classify", {"text": "hi", "labels": ["a"], "top_k": 0}, "greater than or equal to 1"),
    (
        "hf route without labels",
        "hf/zero-shot-classification",
        {"inputs": "hi", "parameters": {"candidate_labels": []}},
        "no labels",
    ),
    (
        "too many pairs",
        "classify_batch",
        {"items": [{"text": "t", "labels": [f"l{i}" for i in range(64)]}] * 65},
        "split the batch",
    ),
]


@pytest.mark.parametrize("name, endpoint, body, words", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_a_helpful_400(default_server, name, endpoint, body, words):
    r = httpx.post(f"{default_server}/{endpoint}", json=body, timeout=30)
    assert r.status_code == 400, r.text
    payload = r.json()
    assert "error" in payload and payload["detail"], payload
    assert words in r.text, payload


def test_malformed_json_is_a_4xx(default_server):
    r = httpx.post(f"{default_server}/classify", content=b"{not json", headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, r.text


def test_service_still_answers_after_bad_input(default_server):
    for _, endpoint, body, _ in CASES[:5]:
        httpx.post(f"{default_server}/{endpoint}", json=body, timeout=30)
    r = httpx.post(f"{default_server}/classify", json={"text": "hi there", "labels": ["greeting", "complaint"]})
    assert r.status_code == 200
