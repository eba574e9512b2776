"""The one place errors become HTTP answers: a status per error type, and the wrapper every endpoint wears.

Every body is ``{"error": message, "error_type": type}``. An exception that is not one of ours (a bug in
the cache, the pipeline, the scoring) is answered with a generic 500 and logged with its traceback: the
caller learns nothing it could misread as a model failure.

Request bodies that break the document are BentoML's to refuse (400 with ``detail``), in our words
(``validation_body``, applied by the edge); timeouts (504) are BentoML's too. The edge's refusals (401,
403, 404, 408, 413, 415, 429, 431, 503: keys, routes, slow clients, the body bound, media type, rate and
in-flight limits) are errors of the same table, sent by ``send_error`` (ASGI) or written by
``raw_answer`` (the connection guard, below ASGI).
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

from pydantic import ValidationError
from starlette.responses import JSONResponse

from service.api.validation import public_errors, summary
from service.errors import (
    AtCapacity,
    BackendFailure,
    BodiesOverBudget,
    Forbidden,
    HeadTooLarge,
    InternalError,
    InvalidRequest,
    JobNotFound,
    JobStoreUnavailable,
    LabelSetNotFound,
    LastModel,
    ManyWorkers,
    ModelNotFound,
    ModelTooLarge,
    NoRoute,
    NotInStore,
    Overloaded,
    PayloadTooLarge,
    RateLimited,
    RequestTimeout,
    ServiceError,
    Unauthorized,
    UnprocessableRequest,
    UnsupportedMediaType,
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
    (AtCapacity, 429),
    (RateLimited, 429),
    (BodiesOverBudget, 503),
    (Overloaded, 503),
    (Unauthorized, 401),
    (Forbidden, 403),
    (NoRoute, 404),
    (RequestTimeout, 408),
    (UnsupportedMediaType, 415),
    (HeadTooLarge, 431),
    (BackendFailure, 500),
    (InternalError, 500),
]


def status_of(error: ServiceError) -> int:
    return next((status for kind, status in STATUS if isinstance(error, kind)), 500)


REALM = 'Bearer realm="zero-shot-classifier"'


def headers_of(error: ServiceError) -> dict[str, str]:
    """The headers an error's answer carries besides its body: when to retry, how to authenticate."""
    out = {}
    if error.retry_after_s is not None:
        out["Retry-After"] = str(error.retry_after_s)
    if isinstance(error, Unauthorized):  # the challenge RFC 6750 asks for
        out["WWW-Authenticate"] = f'{REALM}, error="invalid_token"' if error.invalid else REALM
    return out


def error_response(error: ServiceError, ctx: Any = None) -> JSONResponse:
    status = status_of(error)
    if ctx is not None:
        ctx.response.status_code = status  # BentoML copies the context's status over the response's
    return JSONResponse(error.body(), status_code=status, headers=headers_of(error) or None)


async def send_error(send: Callable[[dict], Awaitable[None]], error: ServiceError, close: bool = False) -> None:
    """The error's answer as ASGI messages (the edge's refusals); ``close``: the connection ends after it."""
    body = json.dumps(error.body()).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode("latin-1")) for k, v in headers_of(error).items()]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status_of(error), "headers": headers})
    await send({"type": "http.response.body", "body": body})


def raw_answer(error: ServiceError) -> bytes:
    """The error's whole HTTP/1.1 answer as bytes, the connection closed after it: for the connection guard,
    which answers before (or instead of) the ASGI app."""
    status = status_of(error)
    body = json.dumps(error.body()).encode()
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", "content-type: application/json"]
    lines += [f"content-length: {len(body)}", "connection: close"]
    lines += [f"{k.lower()}: {v}" for k, v in headers_of(error).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


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
