"""The one place errors become HTTP answers: a status per error type, and the wrapper every endpoint wears.

Every body is ``{"error": message, "error_type": type}``, except under ``/v1`` (the OpenAI-shaped API),
where it is OpenAI's envelope ``{"error": {"message", "type", "param", "code"}}`` (``code``: the same
error type; ``param``: the request field at fault, when there is one) and a 422 (a rule no schema states)
is a 400, as OpenAI answers every invalid request: its SDK reads the message, type, param and code from
that envelope only, and raises ``UnprocessableEntityError`` for a 422, which code written for it does not
expect. The status table is the same for both. An exception that is not one of ours (a bug in the cache,
the pipeline, the scoring) is answered with a generic 500 and logged with its traceback: the caller learns
nothing it could misread as a model failure.

Request bodies that break the document are BentoML's to refuse (400 with ``detail``), in our words
(``validation_body``, applied by the edge); timeouts (504) are BentoML's too. The edge's refusals (401,
403, 404, 405, 408, 413, 415, 429, 431, 503: keys, routes, slow clients, the body bound, media type, rate and
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
from starlette.requests import Request
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
    MethodNotAllowed,
    ModelNotFound,
    ModelTooLarge,
    NoRoute,
    NotInStore,
    NotThisRole,
    Overloaded,
    PayloadTooLarge,
    RateLimited,
    RequestTimeout,
    ServiceError,
    ShuttingDown,
    Unauthorized,
    UnprocessableRequest,
    UnsupportedMediaType,
    WindowsOverLimit,
)

log = logging.getLogger("zsc.http.errors")

# most specific first: UnprocessableRequest is an InvalidRequest, WindowsOverLimit an UnprocessableRequest
STATUS: list[tuple[type[ServiceError], int]] = [
    (WindowsOverLimit, 422),
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
    (ShuttingDown, 503),
    (Unauthorized, 401),
    (Forbidden, 403),
    (NoRoute, 404),
    (NotThisRole, 404),
    (MethodNotAllowed, 405),
    (RequestTimeout, 408),
    (UnsupportedMediaType, 415),
    (HeadTooLarge, 431),
    (BackendFailure, 500),
    (InternalError, 500),
]


OPENAI_PREFIX = "/v1"  # OpenAI's API shape (http/decisions.py): its error envelope and statuses


def openai_path(path: str) -> bool:
    return path == OPENAI_PREFIX or path.startswith(OPENAI_PREFIX + "/")


def status_of(error: ServiceError, path: str = "") -> int:
    status = next((status for kind, status in STATUS if isinstance(error, kind)), 500)
    return 400 if status == 422 and openai_path(path) else status


def body_of(error: ServiceError, path: str = "") -> dict[str, Any]:
    """The error's body for a request to ``path``: OpenAI's envelope under /v1, ours elsewhere."""
    if not openai_path(path):
        return error.body()
    return openai_envelope(str(error), status_of(error, path), error.param, _openai_code(error))


def openai_envelope(message: str, status: int, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    """``{"error": {"message", "type", "param", "code"}}``, the type by status as OpenAI names them."""
    kind = _OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


_OPENAI_TYPES = {401: "authentication_error", 403: "permission_error", 429: "rate_limit_error"}


def _openai_code(error: ServiceError) -> str:
    """The error's type, or OpenAI's own code where it has one for the same thing."""
    if isinstance(error, Unauthorized) and error.invalid:
        return "invalid_api_key"
    if isinstance(error, RateLimited):
        return "rate_limit_exceeded"
    return error.error_type


REALM = 'Bearer realm="zero-shot-classifier"'


def headers_of(error: ServiceError) -> dict[str, str]:
    """The headers an error's answer carries besides its body: when to retry, how to authenticate."""
    out = {}
    if error.retry_after_s is not None:
        out["Retry-After"] = str(error.retry_after_s)
    if isinstance(error, Unauthorized):  # the challenge RFC 6750 asks for
        out["WWW-Authenticate"] = f'{REALM}, error="invalid_token"' if error.invalid else REALM
    if isinstance(error, MethodNotAllowed):
        out["Allow"] = error.allow
    return out


def error_response(error: ServiceError, ctx: Any = None, path: str = "") -> JSONResponse:
    status = status_of(error, path)
    if ctx is not None:
        ctx.response.status_code = status  # BentoML copies the context's status over the response's
    return JSONResponse(body_of(error, path), status_code=status, headers=headers_of(error) or None)


async def send_error(
    send: Callable[[dict], Awaitable[None]], error: ServiceError, path: str = "", close: bool = False
) -> None:
    """The error's answer to a request for ``path`` as ASGI messages (the edge's refusals); ``close``: the
    connection ends after it."""
    body = json.dumps(body_of(error, path)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode("latin-1")) for k, v in headers_of(error).items()]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status_of(error, path), "headers": headers})
    await send({"type": "http.response.body", "body": body})


def raw_answer(error: ServiceError, path: str = "") -> bytes:
    """The error's whole HTTP/1.1 answer as bytes, the connection closed after it: for the connection guard,
    which answers before (or instead of) the ASGI app (``path``: the request's, when its head arrived)."""
    status = status_of(error, path)
    body = json.dumps(body_of(error, path)).encode()
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
        path = next((a.url.path for a in args if isinstance(a, Request)), "")  # a Starlette handler's request
        try:
            return await endpoint(*args, **kwargs)
        except ValidationError:
            raise  # a request checked in the endpoint (the Hugging Face route): BentoML's own 400
        except Exception as exc:
            return error_response(answered_error(exc, endpoint.__name__), ctx, path)

    return answered


def answered_error(exc: Exception, endpoint: str) -> ServiceError:
    """What an endpoint's exception is answered with: a typed error as it is (a backend failure logged),
    anything else a generic 500 with its traceback logged. Call it in the ``except`` block."""
    if isinstance(exc, ServiceError):
        if isinstance(exc, BackendFailure):
            log.error("%s (%s)", exc, endpoint)
        return exc
    log.exception("unexpected error in %s", endpoint)
    return InternalError()


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
