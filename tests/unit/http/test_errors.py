"""The one status table, and BentoML's 400 bodies reworded: the public schema's name, clean paths."""

from __future__ import annotations

import pytest

from service import errors
from service.http.errors import body_of, headers_of, raw_answer, status_of, validation_body


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


@pytest.mark.parametrize(
    ("error", "status", "kind", "code", "param"),
    [
        (errors.UnprocessableRequest("x"), 400, "invalid_request_error", "unprocessable_request", None),
        (
            errors.InvalidRequest("x", param="questions[0].choices"),
            400,
            "invalid_request_error",
            "invalid_request",
            "questions[0].choices",
        ),  # fmt: skip
        (errors.ModelNotFound("x", ["a"]), 404, "invalid_request_error", "model_not_found", "model"),
        (errors.Unauthorized("x", invalid=True), 401, "authentication_error", "invalid_api_key", None),
        (errors.Unauthorized("x"), 401, "authentication_error", "unauthorized", None),
        (errors.RateLimited(2, 1), 429, "rate_limit_error", "rate_limit_exceeded", None),
        (errors.AtCapacity("full", 3), 429, "rate_limit_error", "overloaded", None),
        (
            errors.MethodNotAllowed("GET", "/v1/decisions", "POST"),
            405,
            "invalid_request_error",
            "method_not_allowed",
            None,
        ),
        (errors.BackendFailure(RuntimeError("boom")), 500, "server_error", "backend_error", None),
        (errors.Overloaded(), 503, "server_error", "overloaded", None),
    ],
)
def test_under_v1_every_error_is_openais_envelope_with_the_sdks_status(error, status, kind, code, param):
    assert status_of(error, "/v1/decisions") == status
    assert body_of(error, "/v1/decisions") == {
        "error": {"message": str(error), "type": kind, "param": param, "code": code}
    }
    assert body_of(error, "/classify") == error.body()  # elsewhere the service's own shape, and its status
    assert status_of(error, "/classify") == (422 if isinstance(error, errors.UnprocessableRequest) else status)


def test_the_connection_guard_and_the_headers_follow_the_path():
    error = errors.AtCapacity("full", 7)
    assert headers_of(error) == {"Retry-After": "7"}
    assert b'"type": "rate_limit_error"' in raw_answer(error, "/v1/models") and b'"error_type"' in raw_answer(error)
    assert headers_of(errors.MethodNotAllowed("PUT", "/jobs/x", "GET, DELETE")) == {"Allow": "GET, DELETE"}
