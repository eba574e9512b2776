"""The one status table, and BentoML's 400 bodies reworded: the public schema's name, clean paths."""

from __future__ import annotations

import pytest

from service import errors
from service.http.errors import status_of, validation_body


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (errors.UnprocessableRequest("x"), 422),
        (errors.InvalidRequest("x"), 400),
        (errors.LabelSetNotFound("x", []), 404),
        (errors.JobNotFound("x", 1), 404),
        (errors.PayloadTooLarge("x"), 413),
        (errors.JobStoreUnavailable("x"), 503),
        (errors.Overloaded(), 503),
        (errors.BackendFailure(RuntimeError("boom")), 500),
        (errors.InternalError(), 500),
    ],
)
def test_every_error_has_its_status(error, status):
    assert status_of(error) == status
    assert error.body() == {"error": str(error), "error_type": error.error_type}


def test_every_error_type_is_in_the_table():
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    from service.http.errors import STATUS

    assert set(subclasses(errors.ServiceError)) <= {kind for kind, _ in STATUS}


def test_bentomls_validation_body_in_our_words():
    bentoml_body = {
        "error": "1 validation error for ClassifyRequestIODescriptor",
        "detail": [
            {
                "type": "string_type",
                "loc": ["labels", "list[union[str,function-after[_one_wording(), LabelObject]]]", 0, "str"],
                "msg": "Input should be a valid string",
            },
            {
                "type": "value_error",
                "loc": [
                    "labels",
                    "list[union[str,function-after[_one_wording(), LabelObject]]]",
                    0,
                    "function-after[_one_wording(), LabelObject]",
                ],
                "msg": "Value error, label 'a' has both a description and a hypothesis: give one of them",
            },
            {"type": "string_type", "loc": ["labels", "str"], "msg": "Input should be a valid string"},
        ],
    }
    body = validation_body(bentoml_body)
    assert body == {
        "error": "1 validation error for ClassifyRequest: labels.0: label 'a' has both a description and a "
        "hypothesis: give one of them",
        "detail": [
            {
                "loc": ["labels", 0],
                "msg": "label 'a' has both a description and a hypothesis: give one of them",
                "type": "value_error",
            }
        ],
    }
    assert "IODescriptor" not in str(body) and "function-after" not in str(body)
    assert validation_body({"error": "inference failed: boom", "error_type": "backend_error"}) is None
