"""Request validation without a server: every rule, and the message that says what to fix."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import ValidationError

from service.api import limits
from service.api.classify import ClassifyBatchRequest, ClassifyRequest, split_labels
from service.config import Settings
from service.core.classification import pairs_of


def rejects(model, body, words):
    with pytest.raises(ValidationError) as info:
        model.model_validate(body)
    assert words in str(info.value), str(info.value)


def test_labels_split_on_ascii_and_full_width_commas():
    assert split_labels("billing, shipping，praise") == ["billing", "shipping", "praise"]
    assert split_labels([" a ", "b"]) == ["a", "b"]
    assert ClassifyRequest.model_validate({"text": "t", "labels": "x,y"}).classification().names == ["x", "y"]


@pytest.mark.parametrize(
    "body, words",
    [
        ({"text": "  ", "labels": ["a"]}, "text is empty"),
        ({"labels": ["a"]}, "Field required"),
        ({"text": "t", "labels": []}, "no labels"),
        ({"text": "t", "labels": " "}, "no labels"),
        ({"text": "t", "labels": "a,,b"}, "label 1 is empty"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "About"}, "must contain '{}'"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "{} is {x}"}, "exactly one '{}'"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "{0} {}"}, "exactly one '{}'"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "{} and {}"}, "exactly one '{}'"),
        ({"text": "t", "labels": ["a"], "hypothesis_template": "no label {{}}"}, "exactly one '{}'"),
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
    s = limits.in_force()
    rejects(ClassifyRequest, {"text": "x" * (s.max_text_chars + 1), "labels": ["a"]}, "ZSC_MAX_TEXT_CHARS")
    rejects(ClassifyRequest, {"text": "t", "labels": [f"l{i}" for i in range(s.max_labels + 1)]}, "ZSC_MAX_LABELS")
    rejects(ClassifyRequest, {"text": "t", "labels": ["y" * (s.max_label_chars + 1)]}, "ZSC_MAX_LABEL_CHARS")


def test_batch_rules():
    s = limits.in_force()
    rejects(ClassifyBatchRequest, {"items": []}, "items is empty")
    rejects(ClassifyBatchRequest, {"items": [{"text": "ok", "labels": ["a"]}, {"text": "", "labels": ["a"]}]}, "empty")
    item = {"text": "t", "labels": ["a"]}
    rejects(ClassifyBatchRequest, {"items": [item] * (s.max_batch_items + 1)}, "ZSC_MAX_BATCH_ITEMS")
    # the pairs of a whole batch are a rule no schema states: prepare_call answers them (422, pipeline/test_prepare.py)


def test_valid_requests_keep_their_fields():
    r = ClassifyRequest.model_validate(
        {"text": "t", "labels": ["a", "b"], "hypothesis_template": "About {{x}}: {}.", "multi_label": True}
    )
    assert r.classification().names == ["a", "b"] and r.multi_label and r.hypothesis_template == "About {{x}}: {}."


@pytest.mark.parametrize(
    "label, words",
    [
        ({"name": "a", "description": "x", "hypothesis": "y"}, "both a description and a hypothesis"),
        ({"name": "a", "description": []}, "description is an empty list"),
        ({"name": "a", "description": ["ok", " "]}, "description 1 is empty"),
        ({"name": "a", "hypothesis": ["h"] * 9}, "9 phrasings; the limit is 8 (ZSC_MAX_PHRASINGS)"),
        ({"name": "a", "description": "d" * 301}, "the limit is 300 (ZSC_MAX_DESCRIPTION_CHARS)"),
        ({"name": " ", "description": "x"}, "label 0 is empty"),
        ({"description": "x"}, "Field required"),
        ({"name": "a", "descriptions": "x"}, "Extra inputs"),
        ({"name": 3}, "valid string"),
    ],
)
def test_bad_label_objects_say_what_to_fix(label, words):
    rejects(ClassifyRequest, {"text": "t", "labels": [label]}, words)


def test_label_objects_and_names_mix_and_must_be_unique():
    r = ClassifyRequest.model_validate(
        {"text": "t", "labels": ["a", {"name": "b", "description": ["x", "y"]}, {"name": "c", "hypothesis": "h"}]}
    )
    assert r.classification().names == ["a", "b", "c"] and pairs_of(r.classification().labels) == 4
    twice = ClassifyRequest.model_validate({"text": "t", "labels": ["a", {"name": "a", "description": "x"}]})
    assert "label 'a' appears twice" in twice.classification().repeated_label()


@pytest.mark.parametrize(
    "labels",
    [
        ["a", "b", "a"],
        ["a", " a"],
        "a, a",
        "x，a,a ",
        [{"name": "a", "hypothesis": "h"}, {"name": "a ", "description": "d"}],
    ],
)
def test_names_unique_once_trimmed_is_a_rule_the_schema_cannot_state(labels):
    request = ClassifyRequest.model_validate({"text": "t", "labels": labels})  # valid by the document
    assert "appears twice: labels must be unique" in request.classification().repeated_label()


def test_limits_come_from_the_validation_context_else_the_ones_in_force():
    """A validator reads its limits from the context it is given (built from Settings), never the
    environment; without one, the limits the process put in force (``use``)."""
    tight = replace(limits.in_force(), max_labels=2, max_text_chars=5)
    body = {"text": "t", "labels": ["a", "b", "c"]}
    assert ClassifyRequest.model_validate(body).classification().names == ["a", "b", "c"]
    rejects_with = pytest.raises(ValidationError, match=r"3 labels; the limit is 2 \(ZSC_MAX_LABELS\)")
    with rejects_with:
        ClassifyRequest.model_validate(body, context=limits.context(tight))
    with rejects_with:  # nested: a batch's items get the batch's context
        ClassifyBatchRequest.model_validate({"items": [body]}, context=limits.context(tight))
    before = limits.in_force()
    limits.use(tight)
    try:
        with pytest.raises(ValidationError, match="text has 6 characters; the limit is 5"):
            ClassifyRequest.model_validate({"text": "sixsix", "labels": ["a"]})
    finally:
        limits.use(before)
    assert limits.RequestLimits.from_settings(Settings.from_env({"ZSC_MAX_LABELS": "7"})).max_labels == 7


@pytest.mark.parametrize(
    "extra, words",
    [
        ({"truncation": "middle"}, "'end', 'start', 'error' or 'chunk'"),
        ({"chunk_aggregation": "min"}, "'max' or 'mean'"),
        ({"threshold": 1.5}, "less than or equal to 1"),
        ({"threshold": -0.1}, "greater than or equal to 0"),
        ({"threshold": "0.5"}, "valid number"),
        ({"threshold": True}, "valid number"),
        ({"top_k": 0}, "greater than or equal to 1"),
        ({"top_k": 1.5}, "valid integer"),
    ],
)
def test_bad_options_say_what_to_fix(extra, words):
    rejects(ClassifyRequest, {"text": "t", "labels": ["a"], **extra}, words)
