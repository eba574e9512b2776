"""The request body, read whole before the request goes on: its media type, its size, the memory it takes.

- a body the route cannot read is refused before anything parses it: 415 for a JSON API sent anything but
  JSON (BentoML would try to read a form), 400 for multipart without its boundary (Starlette fails deep
  inside with a 500);
- the body bound, ``ZSC_MAX_BODY_MB`` (``ZSC_JOB_MAX_MB`` for a job upload): 413 on its Content-Length, or
  as soon as a streamed body passes it; a compressed body (``Content-Encoding``: ``encoding.py``) is
  decoded here, within the same bound;
- the whole body is read here, then handed on in one piece: admission (``admit.py``) comes after, so a
  client still uploading holds no place in flight and its upload time never reaches the learned limit. How
  long a body may take is the connection's business (``http/connections.py``: 408);
- what a worker holds of bodies still arriving is bounded (``ZSC_BODY_BUFFER_MB``): past it 503 with
  Retry-After, so many fast uploads at once cannot take the replica's memory.
"""

from __future__ import annotations

from typing import Any

from service.config import Settings
from service.errors import BodiesOverBudget, InvalidRequest, PayloadTooLarge, ServiceError, UnsupportedMediaType
from service.http.edge.encoding import IDENTITY, decoded
from service.http.edge.paths import JOBS, JSON_BODIES, header
from service.http.errors import send_error

WITH_BODY = ("POST", "PUT", "PATCH")


class BodyReader:
    def __init__(self, app: Any, settings: Settings) -> None:
        self.app = app
        self.max_body = settings.max_body_mb * 2**20
        self.max_job = settings.job_max_mb * 2**20
        self.budget = settings.body_buffer_mb * 2**20
        self.budget_mb = settings.body_buffer_mb
        self.retry_after_s = settings.retry_after_s
        self.held = 0  # bytes of bodies this worker is receiving now

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if scope["method"] in WITH_BODY:
            problem = _media_type_problem(path, header(scope, b"content-type") or "")
            if problem is not None:
                await send_error(send, problem, path)
                return
        limit = self.max_job if path == JOBS else self.max_body
        length = header(scope, b"content-length")
        if length is not None and length.isascii() and length.isdigit() and int(length) > limit:
            await send_error(send, self._too_large(path, limit), path)
            return
        chunks: list[bytes] = []
        received = 0
        try:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away: nobody to answer
                chunk = message.get("body", b"")
                received += len(chunk)
                if received > limit:
                    await send_error(send, self._too_large(path, limit), path, close=True)
                    return
                if self.held + len(chunk) > self.budget:
                    await send_error(send, BodiesOverBudget(self.budget_mb, self.retry_after_s), path, close=True)
                    return
                self.held += len(chunk)
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        finally:
            self.held -= sum(map(len, chunks))
        body = b"".join(chunks) if len(chunks) != 1 else chunks[0]
        del chunks
        encoding = header(scope, b"content-encoding")
        if encoding is not None and encoding.strip().lower() not in IDENTITY:
            try:
                body = decoded(body, encoding, limit, lambda: self._too_large(path, limit))
            except ServiceError as exc:
                await send_error(send, exc, path)
                return
            scope = {**scope, "headers": _decoded_headers(scope["headers"], len(body))}
        whole = {"type": "http.request", "body": body, "more_body": False}
        given = False

        async def replay() -> dict:
            nonlocal given
            if not given:
                given = True
                return whole
            return await receive()  # what comes after the body: the client's disconnect

        await self.app(scope, replay, send)

    @staticmethod
    def _too_large(path: str, limit: int) -> ServiceError:
        if path == JOBS:
            return PayloadTooLarge(f"the job is over {limit // 2**20} MB (ZSC_JOB_MAX_MB): split it")
        return PayloadTooLarge(
            f"the request body is over {limit // 2**20} MB (ZSC_MAX_BODY_MB); send fewer items per call to {path}, "
            "or a job (POST /jobs) for bulk work"
        )


def _decoded_headers(headers: list, length: int) -> list:
    """The request's headers as the decoded body's: no Content-Encoding, its own Content-Length."""
    kept = [(k, v) for k, v in headers if k not in (b"content-encoding", b"content-length")]
    return [*kept, (b"content-length", str(length).encode())]


def _media_type_problem(path: str, content_type: str) -> ServiceError | None:
    if not content_type:
        return None
    media, _, params = content_type.partition(";")
    media = media.strip().lower()
    if path in JSON_BODIES and media != "application/json":
        return UnsupportedMediaType(
            f"{path} reads JSON: send the body with 'Content-Type: application/json', not {media!r}"
        )
    if media == "multipart/form-data" and "boundary=" not in params.lower():
        return InvalidRequest(
            "multipart/form-data without its boundary parameter: let the HTTP client set the header "
            "(e.g. 'multipart/form-data; boundary=...')"
        )
    return None
