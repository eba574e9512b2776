"""A job item in the store: what intake validated and the submit handler resolved comes back as the same
objects, without being validated again; an item stored by an older version (a bare body) still runs."""

from __future__ import annotations

import asyncio
import json

import pytest

from service.api.classify import ClassifyRequest
from service.build import build
from service.core.classification import Classification
from service.engine.batch_queue import batch_queue
from service.jobs import intake
from service.jobs.items import classify_items, from_store, to_store
from service.pipeline import pipeline as pipeline_module
from service.pipeline.label_sets import LabelSet, resolve
from tests.support.calls import call, classification
from tests.unit.conftest import MINILM

BODY = {
    "text": "My card was charged twice",
    "labels": [
        "shipping",
        {"name": "billing", "description": ["payments", "refunds"]},
        {"name": "q", "hypothesis": "A question."},
    ],
    "hypothesis_template": "This is about {}.",
    "multi_label": True,
    "threshold": 0.4,
    "truncation": "chunk",
    "top_k": 2,
}


def test_a_stored_item_comes_back_equal_without_validation(monkeypatch):
    resolved = resolve(classification(BODY), {}, "m:1", "r")
    stored = json.loads(json.dumps(to_store(resolved)))  # as a Redis Stream entry holds it
    monkeypatch.setattr(ClassifyRequest, "model_validate", lambda *a, **k: pytest.fail("validated again"))
    back = from_store(stored)
    assert back.request == resolved.request and back.request.labels == resolved.request.labels
    assert back.request.names == ["shipping", "billing", "q"] and back.thresholds == {} and back.warnings == []


def test_a_resolved_label_set_travels_with_its_thresholds_and_warnings():
    support = LabelSet.model_validate(
        {"name": "s", "labels": ["a", "b"], "multi_label": True, "thresholds": {"a": 0.7}, "model": "x"}
    )
    resolved = resolve(classification({"text": "t", "label_set": "s"}), {"s": support}, "m:1", "r")
    back = from_store(json.loads(json.dumps(to_store(resolved))))
    assert back.request.names == ["a", "b"] and back.request.multi_label and back.request.label_set is None
    assert back.thresholds == {"a": 0.7} and [w.code for w in back.warnings] == ["label_set_model_mismatch"]
    assert back.warnings == resolved.warnings


def test_an_item_queued_by_an_older_version_is_a_request_to_resolve():
    back = from_store({"text": "t", "labels": "a, b"})
    assert isinstance(back, Classification) and back.names == ["a", "b"]


def test_an_item_stored_in_the_request_shape_of_before_reads_the_same():
    """Items stored by the version that kept the /classify request's JSON (model_dump, nulls left out) run
    as they were resolved: the format did not change."""
    request = ClassifyRequest.model_validate(BODY)
    stored = {"request": request.model_dump(mode="json", exclude_none=True)}
    assert from_store(stored).request == resolve(request.classification(), {}, "m:1", "r").request
    assert to_store(resolve(request.classification(), {}, "m:1", "r")) == stored


def test_a_stored_item_runs_without_being_checked_again(settings_for, monkeypatch):
    """Intake checks an item once, when the job is submitted (the document's rules, then its model, label
    set and the rules no schema states); the worker runs what was stored without any of those checks. The
    same checks are live for an interactive call (the control at the end)."""
    models = build(settings_for(), [MINILM], batch_queue).models
    submitted = intake.from_json({"items": [BODY, "Where is my parcel?"], "labels": ["billing", "shipping"]}, 10)
    stored = [json.loads(json.dumps(to_store(r))) for r in intake.resolved(submitted, models.resolve)]
    checks = []

    def checked_again(*args, **kwargs):
        checks.append(args)
        raise AssertionError("a stored job item was checked again")

    monkeypatch.setattr(ClassifyRequest, "model_validate", checked_again)
    monkeypatch.setattr(Classification, "repeated_label", checked_again)
    monkeypatch.setattr(pipeline_module, "check_call", checked_again)
    results = asyncio.run(classify_items(models, stored))
    assert [r["labels"][0] for r in results] == ["billing", "shipping"] and not checks
    with pytest.raises(AssertionError, match="checked again"):
        asyncio.run(models.classify(call([submitted[1]])))  # an interactive call is checked: the spies are live


def test_a_jobs_traffic_calibration_is_its_submitting_keys(settings_for):
    """The submitting API key's id travels with each stored item: a job's traffic calibration reads and adds
    to that key's records, as its /classify calls would (none: the shared scope, API keys off)."""
    models = build(settings_for(), [MINILM], batch_queue).models
    body = {"items": ["Where is my parcel?"], "labels": ["billing", "shipping"], "calibration": "traffic"}
    submitted = intake.from_json(body, 10)
    for key, scope in (("k1", "key:k1"), (None, "shared")):
        stored = [json.loads(json.dumps(to_store(r, key))) for r in intake.resolved(submitted, models.resolve)]
        [result] = asyncio.run(classify_items(models, stored))
        assert result["calibration"]["scope"] == scope
