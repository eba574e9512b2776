"""Label sets on the request path: a request naming a set gets the set's labels, template, multi_label and
thresholds where it says nothing itself, a warning when the set was tuned on another model, and a 404 for
a set the service does not hold. Resolving validates nothing again."""

from __future__ import annotations

import pytest

from service.api.classify import ClassifyRequest
from service.errors import LabelSetNotFound
from service.pipeline.label_sets import LabelSet, resolve
from tests.support.calls import classification


def test_a_label_set_fills_in_what_the_request_does_not_say(tmp_path):
    support = LabelSet.model_validate(
        {
            "name": "support",
            "labels": [{"name": "billing", "description": "payments"}, "shipping"],
            "hypothesis_template": "The customer writes about {}.",
            "multi_label": True,
            "thresholds": {"billing": 0.7},
            "model": "multilingual-e5-small",
            "revision": "r1",
        }
    )
    sets = {"support": support}
    r = resolve(classification({"text": "t", "label_set": "support"}), sets, "multilingual-e5-small:x", "r1")
    assert r.request.names == ["billing", "shipping"] and r.request.multi_label
    assert r.request.hypothesis_template == "The customer writes about {}."
    assert r.thresholds == {"billing": 0.7} and r.warnings == []
    own = resolve(
        classification({"text": "t", "label_set": "support", "threshold": 0.2, "labels": ["a", "b"]}),
        sets,
        "other:y",
        "r2",
    )
    assert own.request.names == ["a", "b"] and own.thresholds == {}  # the request's own labels and threshold
    assert [w.code for w in own.warnings] == ["label_set_model_mismatch"]
    with pytest.raises(LabelSetNotFound, match=r"unknown label set 'nope'; the service holds: support"):
        resolve(classification({"text": "t", "label_set": "nope"}), sets, "m", "r")


def test_null_fields_are_not_given_and_nothing_is_validated_again(monkeypatch):
    support = LabelSet.model_validate({"name": "support", "labels": ["billing", "shipping"], "threshold": 0.4})
    request = ClassifyRequest.model_validate({"text": "t", "label_set": "support", "labels": None, "top_k": 1})
    monkeypatch.setattr(ClassifyRequest, "model_validate", lambda *a, **k: pytest.fail("validated again"))
    r = resolve(request.classification(), {"support": support}, "m", "r")
    assert r.request.names == ["billing", "shipping"] and r.request.threshold == 0.4 and r.request.top_k == 1
    assert r.request.label_set is None and request.label_set == "support"  # the caller's request is untouched
