"""The one place errors become HTTP answers: a status per error type, and the wrapper every endpoint wears.

Every body is ``{"error": message, "error_type": type}``. An exception that is not one of ours (a bug in
the cache, the pipeline, the scoring) is answered with a generic 500 and logged with its traceback: the
caller learns nothing it could misread as a model failure.

Request bodies that break the document are BentoML's to refuse (400 with ``detail``), in our words
(``validation_body``, applied by the middleware); timeouts (504) are BentoML's too; the edge's answers
(401, 413, 415, 429: keys, body bound, media type, in-flight and rate limits) are the middleware's, in the
same body shape.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError
from starlette.responses import JSONResponse

from service.api.validation import public_errors, summary
from service.errors import (
    BackendFailure,
    InternalError,
    InvalidRequest,
    JobNotFound,
    JobStoreUnavailable,
    LabelSetNotFound,
    LastModel,
    ManyWorkers,
    ModelNotFound,
    ModelOverloaded,
    ModelTooLarge,
    NotInStore,
    Overloaded,
    PayloadTooLarge,
    ServiceError,
    UnprocessableRequest,
)

log = logging.getLogger("zsc.http.errors")

# most specific first: UnprocessableRequest is an InvalidRequest
STATUS: list[tuple[type[ServiceError], int]] = [
    (UnprocessableRequest, 422),
    (InvalidRequest, 400),
    (LabelSetNotFound, 404),
    (NotInStore, 404),
    (ModelNotFound, 404),
    (LastModel, 409),
    (ManyWorkers, 409),
    (ModelTooLarge, 507),
    (JobNotFound, 404),
    (PayloadTooLarge, 413),
    (JobStoreUnavailable, 503),
    (ModelOverloaded, 429),
    (Overloaded, 503),
    (BackendFailure, 500),
    (InternalError, 500),
]


def status_of(error: ServiceError) -> int:
    return next((status for kind, status in STATUS if isinstance(error, kind)), 500)


def error_response(error: ServiceError, ctx: Any = None) -> JSONResponse:
    status = status_of(error)
    if ctx is not None:
        ctx.response.status_code = status  # BentoML copies the context's status over the response's
    retry = error.retry_after_s
    headers = {"Retry-After": str(retry)} if retry is not None else None
    return JSONResponse(error.body(), status_code=status, headers=headers)


def error_boundary(endpoint: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Wrap an async endpoint (a BentoML API with its ``ctx`` by keyword, or a Starlette handler): typed
    errors become their answer, anything else a logged 500. ``functools.wraps`` keeps the signature
    BentoML reads."""

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


_TITLE = re.compile(r"^\d+ validation errors? for (\w+?)(?:IODescriptor)?$")


def validation_body(body: dict[str, Any]) -> dict[str, Any] | None:
    """BentoML's 400 for a body that fails validation (``{"error": "N validation error for X", "detail":
    [pydantic errors]}``) in the API's words: the public schema's name, field paths without pydantic's
    union tags, one error per mistake, the first in ``error``. None for any other body (left alone)."""
    match = _TITLE.match(str(body.get("error", "")))
    detail = body.get("detail")
    if match is None or not isinstance(detail, list):
        return None
    errors = public_errors(d for d in detail if isinstance(d, dict))
    return {"error": summary(match.group(1), errors), "detail": errors}
