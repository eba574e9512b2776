"""Request validation without a server: every rule, and the message that says what to fix."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from service.config import settings
from service.schemas import ClassifyBatchRequest, ClassifyRequest, split_labels


def rejects(model, body, words):
    with pytest.raises(ValidationError) as info:
        model.model_validate(body)
    assert words in str(info.value), str(info.value)


def test_labels_split_on_ascii_and_full_width_commas():
    assert split_labels("billing, shipping，praise") == ["billing", "shipping", "praise"]
    assert split_labels([" a ", "b"]) == ["a", "b"]
    assert ClassifyRequest.model_validate({"text": "t", "labels": "x,y"}).label_list == ["x", "y"]


@pytest.mark.parametrize(
    "body, words",
    [
        ({"text": "  ", "labels": ["a"]}, "text is empty"),
        ({"labels": ["a"]}, "Field required"),
        ({"text": "t", "labels": []}, "no labels"),
        ({"text": "t", "labels": " "}, "no labels"),
        ({"text": "t", "labels": "a,,b"}, "label 1 is empty"),
        ({"text": "t", "labels": ["a", "b", "a"]}, "appears twice"),
        ({"text": "t", "labels": "a, a"}, "appears twice"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "About"}, "must contain '{}'"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "{} is {x}"}, "only '{}'"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "{0} {}"}, "only '{}'"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "{}" + "x" * 300}, "longer than"),
        ({"text": 42, "labels": ["a"]}, "string"),
        ({"text": "t", "labels": [1, 2]}, "string"),
        ({"text": "t", "labels": ["a"], "multi_label": "yes"}, "boolean"),
        ({"text": "t", "labels": ["a"], "lables": ["b"]}, "Extra inputs"),
    ],
)
def test_bad_requests_say_what_to_fix(body, words):
    rejects(ClassifyRequest, body, words)


def test_limits_name_their_setting():
    s = settings()
    rejects(ClassifyRequest, {"text": "x" * (s.max_text_chars + 1), "labels": ["a"]}, "ZSC_MAX_TEXT_CHARS")
    rejects(ClassifyRequest, {"text": "t", "labels": [f"l{i}" for i in range(s.max_labels + 1)]}, "ZSC_MAX_LABELS")
    rejects(ClassifyRequest, {"text": "t", "labels": ["y" * (s.max_label_chars + 1)]}, "ZSC_MAX_LABEL_CHARS")


def test_batch_rules():
    s = settings()
    rejects(ClassifyBatchRequest, {"items": []}, "items is empty")
    rejects(ClassifyBatchRequest, {"items": [{"text": "ok", "labels": ["a"]}, {"text": "", "labels": ["a"]}]}, "empty")
    item = {"text": "t", "labels": ["a"]}
    rejects(ClassifyBatchRequest, {"items": [item] * (s.max_batch_items + 1)}, "ZSC_MAX_BATCH_ITEMS")
    wide = {"text": "t", "labels": [f"l{i}" for i in range(s.max_labels)]}
    n = s.max_pairs_per_request // s.max_labels + 1
    rejects(ClassifyBatchRequest, {"items": [wide] * n}, "split the batch")


def test_valid_requests_keep_their_fields():
    r = ClassifyRequest.model_validate(
        {"text": "t", "labels": ["a", "b"], "hypothesis_template": "About {{x}}: {}.", "multi_label": True}
    )
    assert r.label_list == ["a", "b"] and r.multi_label and r.hypothesis_template == "About {{x}}: {}."
