"""The jobs' HTTP surface (README "Jobs"), Starlette handlers mounted beside the BentoML APIs (routes.py).

POST   /jobs                  items inline (JSON), or a JSON-lines / CSV file (multipart or the body) -> 202
GET    /jobs/{id}             state, progress, timings, errors
GET    /jobs/{id}/results     finished items in order: ?offset=&limit= pages (JSON), or all as JSON lines
                              (?format=jsonl, or Accept: application/x-ndjson)
DELETE /jobs/{id}             cancel: no chunk starts after it; finished items stay readable
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import bentoml
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from ..config import settings
from ..errors import InvalidRequest, JobStoreUnavailable, LabelSetNotFound, PayloadTooLarge, error_boundary
from . import intake
from .manager import JobManager

MAX_PAGE = 10_000
DEFAULT_PAGE = 1_000
FILE_TYPES = ("application/x-ndjson", "application/jsonl", "application/json-lines", "text/csv", "text/plain")


def _store_errors(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """The job store not answering is a 503 that says so, not an internal error."""

    @functools.wraps(handler)
    async def guarded(request: Request) -> Response:
        from redis.exceptions import RedisError

        try:
            return await handler(request)
        except (RedisError, OSError) as exc:
            raise JobStoreUnavailable(f"the job store does not answer ({type(exc).__name__}); retry later") from exc

    return guarded


def _manager() -> JobManager:
    return bentoml.get_current_service().jobs


def _view(job, manager: JobManager) -> dict[str, Any]:
    return {
        **job.as_dict(manager.backend),
        "links": {"self": f"/jobs/{job.id}", "results": f"/jobs/{job.id}/results"},
    }


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    too_large = f"the job is over {limit // 2**20} MB (ZSC_JOB_MAX_MB): split it"
    if declared and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(too_large)
    body = bytearray()
    async for part in request.stream():
        body += part
        if len(body) > limit:
            raise PayloadTooLarge(too_large)
    return bytes(body)


async def _items(request: Request) -> list[dict[str, Any]]:
    s = settings()
    body = await _body(request, s.job_max_mb * 2**20)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "multipart/form-data":
        request._body = body  # Starlette parses the form from the body already read (and bounded) above
        form = await request.form(max_files=1, max_fields=64)
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise InvalidRequest("multipart: send the items as a file field named 'file' (.jsonl or .csv)")
        data = await upload.read()
        options = {k: v for k, v in form.multi_items() if k != "file" and isinstance(v, str)}
        name, kind = upload.filename or "", upload.content_type or ""
        return await anyio.to_thread.run_sync(intake.from_file, data, name, kind, options, s.job_max_items)
    if ctype in FILE_TYPES:
        options = dict(request.query_params)
        return await anyio.to_thread.run_sync(intake.from_file, body, "", ctype, options, s.job_max_items)
    if ctype in ("application/json", ""):
        try:
            parsed = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidRequest(f"the body is not JSON: {exc}") from None
        return await anyio.to_thread.run_sync(intake.from_json, parsed, s.job_max_items)
    raise InvalidRequest(
        f"content type {ctype!r}: send application/json, multipart/form-data (a file), application/x-ndjson or text/csv"
    )


@error_boundary
@_store_errors
async def submit(request: Request) -> Response:
    manager = _manager()
    items = await _items(request)
    sets = bentoml.get_current_service().label_sets
    for item in items:  # checked here, so a job does not run to the end answering errors
        if item.get("label_set") is not None and item["label_set"] not in sets:
            raise LabelSetNotFound(item["label_set"], list(sets))
    job = await manager.submit(items)
    from .. import metrics

    metrics.JOBS.labels("submitted").inc()
    return JSONResponse(_view(job, manager), status_code=202, headers={"Location": f"/jobs/{job.id}"})


async def status_or_cancel(request: Request) -> Response:
    """One route for both methods, so that a 405 names both in its Allow header."""
    return await (cancel(request) if request.method == "DELETE" else status(request))


@error_boundary
@_store_errors
async def status(request: Request) -> Response:
    _only_query(request)
    manager = _manager()
    return JSONResponse(_view(await manager.get(request.path_params["job_id"]), manager))


@error_boundary
@_store_errors
async def cancel(request: Request) -> Response:
    _only_query(request)
    manager = _manager()
    before = await manager.get(request.path_params["job_id"])
    job = await manager.cancel(before.id)
    if before.state != job.state:
        from .. import metrics

        metrics.JOBS.labels("cancelled").inc()
    return JSONResponse(_view(job, manager))


def _only_query(request: Request, *known: str) -> None:
    """An unknown query parameter is a mistake to report (a misspelt `limit` would otherwise give a page of
    the default size without a word)."""
    unknown = sorted(set(request.query_params) - set(known))
    if unknown:
        allowed = ", ".join(known) if known else "none"
        raise InvalidRequest(
            f"unknown query parameter(s) {', '.join(map(repr, unknown))}; this endpoint takes: {allowed}"
        )


def _int(request: Request, name: str, default: int, most: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or int(raw) > most:
        raise InvalidRequest(f"{name} must be an integer from 0 to {most}, got {raw!r}")
    return int(raw)


@error_boundary
@_store_errors
async def results(request: Request) -> Response:
    _only_query(request, "offset", "limit", "format")
    manager = _manager()
    job = await manager.get(request.path_params["job_id"])
    fmt = request.query_params.get("format")
    if fmt is None:
        fmt = "jsonl" if "ndjson" in request.headers.get("accept", "") else "json"
    if fmt not in ("json", "jsonl"):
        raise InvalidRequest(f"format must be json or jsonl, got {fmt!r}")
    offset = _int(request, "offset", 0, 10**9)  # checked for jsonl too, where they do not apply
    limit = _int(request, "limit", DEFAULT_PAGE, MAX_PAGE)
    headers = {"X-Job-State": job.state, "X-Job-Done": str(job.done), "X-Job-Total": str(job.total)}
    if fmt == "jsonl":

        async def lines():
            async for entry in manager.stream(job):
                yield json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson", headers=headers)
    page = await manager.results(job, offset, limit)
    end = min(job.total, offset + limit)
    body = {
        "id": job.id,
        "state": job.state,
        "offset": offset,
        "limit": limit,
        "results": page,
        "next_offset": end if end < job.total else None,
        "complete": len(page) == end - offset,  # every item of this page is finished
    }
    return JSONResponse(body, headers=headers)
