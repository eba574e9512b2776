"""The service's own errors, and the one place that turns them into HTTP answers.

Endpoints and the layers below raise typed errors; ``error_boundary`` wraps every endpoint and maps them
with one status table. Every body is ``{"error": message, "error_type": type}``. An exception that is not
one of ours (a bug in the cache, the classifier, the scoring) is answered with a generic 500 and logged
with its traceback: the caller learns nothing it could misread as a model failure.

Schema violations never get here: BentoML answers them itself with 400 and a ``detail`` list (see the
README's error table). Timeouts (504) are BentoML's too; the edge's answers (401, 413, 429: keys, body
bound, in-flight and rate limits) are middleware.py's, in the same body shape.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from pydantic import ValidationError
from starlette.responses import JSONResponse

log = logging.getLogger("zsc.errors")


class ServiceError(Exception):
    """An error with a documented status and body."""

    error_type: ClassVar[str]
    status: ClassVar[int]
    message: ClassVar[str] = ""  # errors that always say the same thing

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.message)

    def body(self) -> dict[str, str]:
        return {"error": str(self), "error_type": self.error_type}


class InvalidRequest(ServiceError):
    """A request that breaks the API's document, found outside BentoML's schema validation (a job's items,
    lines or rows; a query parameter)."""

    error_type = "invalid_request"
    status = 400


class UnprocessableRequest(InvalidRequest):
    """A request the document calls valid that breaks a rule no JSON schema can state: label names unique
    once trimmed, (text window, phrasing) pairs within ZSC_MAX_PAIRS_PER_REQUEST, a text within the model's
    window with truncation "error", windows within ZSC_MAX_WINDOWS. 422, so that 400 always means "the
    document says why"."""

    error_type = "unprocessable_request"
    status = 422


class LabelSetNotFound(ServiceError):
    """A request names a label set the service does not hold."""

    error_type = "label_set_not_found"
    status = 404

    def __init__(self, name: str, available: list[str]) -> None:
        have = ", ".join(sorted(available)) if available else "none (ZSC_LABEL_SETS is not set or empty)"
        super().__init__(f"unknown label set {name!r}; the service holds: {have}")


class JobNotFound(ServiceError):
    """A job id this service does not know: never submitted, or its results expired."""

    error_type = "job_not_found"
    status = 404

    def __init__(self, job_id: str, ttl_s: int) -> None:
        super().__init__(
            f"no job {job_id!r}: it was never submitted, or it expired (a job is kept {ttl_s} s after its last "
            "progress, ZSC_JOB_TTL_S)"
        )


class PayloadTooLarge(ServiceError):
    """A job upload over ZSC_JOB_MAX_MB, refused before it is read to the end."""

    error_type = "payload_too_large"
    status = 413


class JobStoreUnavailable(ServiceError):
    """The job store (Redis) does not answer; interactive classification is unaffected."""

    error_type = "job_store_unavailable"
    status = 503


class Overloaded(ServiceError):
    """Adaptive batching predicted this request would wait past ZSC_MAX_LATENCY_MS and shed it."""

    error_type = "overloaded"
    status = 503
    message = "the service is overloaded: this request would wait past ZSC_MAX_LATENCY_MS; retry later"


class BackendFailure(ServiceError):
    """The model failed on the batch this request was merged into; every request of that batch gets it."""

    error_type = "backend_error"
    status = 500

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"inference failed: {cause}")


class InternalError(ServiceError):
    """Anything else: a bug of ours. The body stays generic; the traceback goes to the log."""

    error_type = "internal_error"
    status = 500
    message = "internal error: the request could not be completed; the server log has the details"


def error_response(error: ServiceError, ctx: Any = None) -> JSONResponse:
    if ctx is not None:
        ctx.response.status_code = error.status  # BentoML copies the context's status over the response's
    return JSONResponse(error.body(), status_code=error.status)


def error_boundary(endpoint: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Wrap an async BentoML endpoint (its ``ctx`` passed by keyword): typed errors become their answer,
    anything else a logged 500. The signature BentoML reads is the endpoint's (``functools.wraps``)."""

    @functools.wraps(endpoint)
    async def answered(*args: Any, **kwargs: Any) -> Any:
        ctx = kwargs.get("ctx")
        try:
            return await endpoint(*args, **kwargs)
        except ServiceError as exc:
            if isinstance(exc, BackendFailure):
                log.error("%s (%s)", exc, endpoint.__name__)
            return error_response(exc, ctx)
        except ValidationError:
            raise  # a request checked in the endpoint (the Hugging Face route): BentoML's own 400
        except Exception:
            log.exception("unexpected error in %s", endpoint.__name__)
            return error_response(InternalError(), ctx)

    return answered
