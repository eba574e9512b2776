"""Every kind of bad input gets a 4xx whose body says what to fix; the service keeps answering. 400: the
request breaks the OpenAPI document; 422: the document calls it valid but it breaks a rule no schema can
state (unique names once trimmed, pairs, the model's window); 415 / 404: a body the API cannot read, a path
it does not have."""

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
        "exactly one '{}'",
    ),
    (
        "template with two {}",
        "classify",
        {"text": "hi", "labels": ["a"], "hypothesis_template": "{} or {}"},
        "exactly one",
    ),
    (
        "template with only {{}}",
        "classify",
        {"text": "hi", "labels": ["a"], "hypothesis_template": "a {{}}"},
        "exactly one",
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
]

UNPROCESSABLE = [
    ("duplicate label", "classify", {"text": "hi", "labels": ["a", "b", "a"]}, "appears twice"),
    ("duplicate after strip", "classify", {"text": "hi", "labels": ["a", " a"]}, "appears twice"),
    ("duplicate in a string", "classify", {"text": "hi", "labels": "a, a"}, "appears twice"),
    (
        "duplicate label object names",
        "classify",
        {"text": "hi", "labels": [{"name": "a", "description": "x"}, {"name": "a", "description": "y"}]},
        "appears twice",
    ),
    (
        "duplicate in a batch item",
        "classify_batch",
        {"items": [{"text": "t", "labels": "a"}, {"text": "t", "labels": "a,a"}]},
        "item 1: label",
    ),
    ("duplicate in a job", "jobs", {"texts": ["t"], "labels": ["a", "a"]}, "item 1: label 'a' appears twice"),
    (
        "too many pairs",
        "classify_batch",
        {"items": [{"text": "t", "labels": [f"l{i}" for i in range(64)]}] * 65},
        "split the call",
    ),
]


@pytest.mark.parametrize("name, endpoint, body, words", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_a_helpful_400(default_server, name, endpoint, body, words):
    r = httpx.post(f"{default_server}/{endpoint}", json=body, timeout=30)
    assert r.status_code == 400, r.text
    payload = r.json()
    assert "error" in payload and payload["detail"], payload
    assert words in r.text, payload


@pytest.mark.parametrize("name, endpoint, body, words", UNPROCESSABLE, ids=[c[0] for c in UNPROCESSABLE])
def test_a_rule_no_schema_states_gets_a_helpful_422(default_server, name, endpoint, body, words):
    r = httpx.post(f"{default_server}/{endpoint}", json=body, timeout=30)
    assert r.status_code == 422, r.text
    assert r.json()["error_type"] == "unprocessable_request" and words in r.json()["error"], r.text


@pytest.mark.parametrize("endpoint", ["classify", "classify_batch", "hf/zero-shot-classification"])
def test_a_body_that_is_not_json_gets_415(default_server, endpoint):
    form = httpx.post(f"{default_server}/{endpoint}", data={"text": "hi", "labels": "a,b"}, timeout=30)
    assert form.status_code == 415 and "Content-Type: application/json" in form.json()["error"], form.text


@pytest.mark.parametrize("endpoint", ["classify", "jobs"])
def test_multipart_without_its_boundary_is_a_400_not_a_500(default_server, endpoint):
    headers = {"content-type": "multipart/form-data"}
    r = httpx.post(f"{default_server}/{endpoint}", content=b'{"text": "hi"}', headers=headers, timeout=30)
    assert r.status_code in (400, 415) and "error" in r.json(), r.text


def test_an_unknown_path_is_a_json_404(default_server):
    for path in ("/nope", "/jobs/a/b/c", "/jobs/%C2%A7%0A%7C"):
        r = httpx.get(f"{default_server}{path}", timeout=30)
        assert r.status_code == 404 and r.headers["content-type"] == "application/json", (path, r.text)
        assert r.json()["error_type"] in ("not_found", "job_not_found"), r.text


def test_unknown_query_parameters_are_refused(default_server):
    r = httpx.get(f"{default_server}/jobs/0123456789abcdef", params={"limt": 5}, timeout=30)
    assert r.status_code == 400 and "'limt'" in r.json()["error"], r.text


def test_malformed_json_is_a_4xx(default_server):
    r = httpx.post(f"{default_server}/classify", content=b"{not json", headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, r.text


def test_service_still_answers_after_bad_input(default_server):
    for _, endpoint, body, _ in CASES[:5]:
        httpx.post(f"{default_server}/{endpoint}", json=body, timeout=30)
    r = httpx.post(f"{default_server}/classify", json={"text": "hi there", "labels": ["greeting", "complaint"]})
    assert r.status_code == 200
