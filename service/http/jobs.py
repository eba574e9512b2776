"""The jobs' HTTP surface (docs/api.md "Jobs"): Starlette handlers made by ``routes`` for the job manager
and the pipeline they are given, mounted beside the BentoML APIs (``routes.py``).

POST   /jobs                  items inline (JSON), or a JSON-lines / CSV file (multipart or the body) -> 202
GET    /jobs/{id}             state, progress, timings, errors
GET    /jobs/{id}/results     finished items in order: ?offset=&limit= pages (JSON), or all as JSON lines
                              (?format=jsonl, or Accept: application/x-ndjson)
POST   /jobs/{id}/cancel      cancel: no chunk starts after it; the job and its finished items stay readable
DELETE /jobs/{id}             delete: cancel, then forget the job and its results (204; a 404 from then on)

Cancel and delete apart, as Google's long-running operations and OpenAI's batches have them: DELETE means
the resource is gone (every route on the id answers 404 after it), so stopping a job whose results are still
wanted is a POST on its own ``cancel`` action.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from service.api.classify import ClassifyRequest
from service.config import Settings
from service.errors import InvalidRequest, JobStoreUnavailable
from service.http.errors import error_boundary
from service.http.sender import key_of
from service.jobs import intake
from service.jobs.items import to_store
from service.jobs.manager import JobManager
from service.jobs.records import ACTIVE
from service.obs import metrics

if TYPE_CHECKING:  # the pipeline's modules load the tokenizer's library: not at import time
    from service.pipeline.registry import ModelRegistry

MAX_PAGE = 10_000
DEFAULT_PAGE = 1_000
FILE_TYPES = ("application/x-ndjson", "application/jsonl", "application/json-lines", "text/csv", "text/plain")


def routes(manager: JobManager, models: ModelRegistry, settings: Settings) -> list[Route]:
    """The jobs API's routes, for this manager (its store and worker) and these models (their label sets)."""

    @error_boundary
    @_store_errors
    async def submit(request: Request) -> Response:
        requests = await _items(request, settings)
        # each item's model chosen and label set resolved here, once: an unknown model or set is a 404 before
        # anything is queued, and every replica runs the item as this one resolved it (off the event loop)
        key = key_of(request.scope)  # the submitting API key's: its items' traffic calibration is that key's
        items = await anyio.to_thread.run_sync(
            lambda: [to_store(r, key) for r in intake.resolved(requests, models.resolve)]
        )
        job = await manager.submit(items)
        metrics.JOBS.labels("submitted").inc()
        return JSONResponse(_view(job, manager), status_code=202, headers={"Location": f"/jobs/{job.id}"})

    async def status_or_delete(request: Request) -> Response:
        """One route for both methods, so that a 405 names both in its Allow header."""
        return await (delete(request) if request.method == "DELETE" else status(request))

    @error_boundary
    @_store_errors
    async def status(request: Request) -> Response:
        _only_query(request)
        return JSONResponse(_view(await manager.get(request.path_params["job_id"]), manager))

    @error_boundary
    @_store_errors
    async def cancel(request: Request) -> Response:
        _only_query(request)
        before = await manager.get(request.path_params["job_id"])
        job = await manager.cancel(before.id)
        if before.state != job.state:
            metrics.JOBS.labels("cancelled").inc()
        return JSONResponse(_view(job, manager))

    @error_boundary
    @_store_errors
    async def delete(request: Request) -> Response:
        _only_query(request)
        job = await manager.delete(request.path_params["job_id"])
        if job.state in ACTIVE:
            metrics.JOBS.labels("cancelled").inc()
        metrics.JOBS.labels("deleted").inc()
        return Response(status_code=204)

    results = _results(manager)

    return [
        Route("/jobs", submit, methods=["POST"]),
        Route("/jobs/{job_id:str}", status_or_delete, methods=["GET", "DELETE"]),
        Route("/jobs/{job_id:str}/cancel", cancel, methods=["POST"]),
        Route("/jobs/{job_id:str}/results", results, methods=["GET"]),
    ]


def _results(manager: JobManager) -> Callable[[Request], Awaitable[Response]]:
    """GET /jobs/{id}/results: a page of finished items (JSON), or all of them streamed as JSON lines."""

    @error_boundary
    @_store_errors
    async def results(request: Request) -> Response:
        _only_query(request, "offset", "limit", "format")
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

    return results


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


def _view(job, manager: JobManager) -> dict[str, Any]:
    return {
        **job.as_dict(manager.backend),
        "links": {"self": f"/jobs/{job.id}", "results": f"/jobs/{job.id}/results", "cancel": f"/jobs/{job.id}/cancel"},
    }


async def _items(request: Request, s: Settings) -> list[ClassifyRequest]:
    body = await request.body()  # read whole and bounded (ZSC_JOB_MAX_MB) by the edge already
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


def _only_query(request: Request, *known: str) -> None:
    """An unknown query parameter is a mistake to report (a misspelt `limit` would otherwise give a page of
    the default size without a word)."""
    unknown = sorted(set(request.query_params) - set(known))
    if unknown:
        allowed = ", ".join(known) if known else "none"
        raise InvalidRequest(
            f"unknown query parameter(s) {', '.join(map(repr, unknown))}; this endpoint takes: {allowed}"
        )
    counts = Counter(name for name, _ in request.query_params.multi_items())
    repeated = sorted(name for name, n in counts.items() if n > 1)
    if repeated:  # which of two values was meant cannot be guessed
        raise InvalidRequest(f"give each query parameter once; repeated: {', '.join(map(repr, repeated))}")


def _int(request: Request, name: str, default: int, most: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    # isascii: str.isdigit is true of digits int() refuses, such as "²"
    if not (raw.isascii() and raw.isdigit()) or int(raw) > most:
        raise InvalidRequest(f"{name} must be an integer from 0 to {most}, got {raw!r}")
    return int(raw)
