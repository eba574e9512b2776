"""Validation errors in the API's words: public field paths, union branches folded into the mistake that
was made, our own messages without pydantic's prefix; and the one-line summary."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from service.api.classify import ClassifyBatchRequest, ClassifyRequest
from service.api.validation import first_mistake, public_errors, summary


def errors_of(model, body):
    with pytest.raises(ValidationError) as info:
        model.model_validate(body)
    exc = info.value
    return exc, public_errors(exc.errors(include_context=False, include_input=False, include_url=False))


@pytest.mark.parametrize(
    ("body", "want"),
    [
        (
            {"text": "x", "labels": [{"name": "a", "description": "d", "hypothesis": "h"}]},
            [(["labels", 0], "label 'a' has both a description and a hypothesis: give one of them")],
        ),
        ({"text": "", "labels": ["a"]}, [(["text"], "text is empty: send the text to classify")]),
        (
            {"text": "x", "labels": [1]},
            [
                (["labels", 0], "Input should be a valid string"),
                (["labels", 0], "Input should be a valid dictionary or instance of LabelObject"),
            ],
        ),
        ({"text": "x"}, [([], "no labels: send labels, or the name of a label set (label_set)")]),
        (
            {"text": "x", "labels": [{"name": "a", "description": []}]},
            [
                (
                    ["labels", 0, "description"],
                    "description is an empty list: give at least one phrasing, or leave it out",
                )
            ],
        ),
        (
            {"text": 42, "labels": ["a"], "colour": 1},
            [(["text"], "Input should be a valid string"), (["colour"], "Extra inputs are not permitted")],
        ),
    ],
)
def test_public_errors(body, want):
    _, errors = errors_of(ClassifyRequest, body)
    assert [(e["loc"], e["msg"]) for e in errors] == want
    for e in errors:
        assert not any(isinstance(s, str) and ("[" in s or s[:1].isupper()) for s in e["loc"])


def test_nested_paths_and_the_summary():
    exc, errors = errors_of(
        ClassifyBatchRequest, {"items": [{"text": "ok", "labels": ["a"]}, {"text": " ", "labels": ["a"]}]}
    )
    assert errors == [
        {"loc": ["items", 1, "text"], "msg": "text is empty: send the text to classify", "type": "value_error"}
    ]
    assert summary("ClassifyBatchRequest", errors) == (
        "1 validation error for ClassifyBatchRequest: items.1.text: text is empty: send the text to classify"
    )
    assert first_mistake(exc) == "items.1.text: text is empty: send the text to classify"
    assert summary("X", [*errors, *errors]).startswith("2 validation errors for X: ")
