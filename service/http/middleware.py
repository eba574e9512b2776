"""The service's HTTP edge, one ASGI middleware in front of every route (BentoML's APIs, jobs, the page):

- a request id (the client's ``X-Request-ID`` when it is a plain token, else a new one), answered in the
  same header and put on every log line of the request (logs.py);
- the API key (``Authorization: Bearer``) when keys are configured: 401 with ``WWW-Authenticate``
  otherwise; health checks, the page's static files and, as configured, /metrics and the docs stay open;
  the admin API (/admin) wants an admin key (``ZSC_ADMIN_KEYS``), and a data key gets 403 there;
- a per-key rate limit, and the bound on requests in flight: learned from the latency it measures against
  ``ZSC_TARGET_LATENCY_MS`` (``core.adaptive_limit``), at most ZSC_MAX_CONCURRENCY (taken over from
  BentoML's traffic setting): 429 with a ``Retry-After`` of the time the replica needs to finish what it
  holds; the refused request's body is read first (it is small: the body bound holds), so that its
  keep-alive connection stays usable (answering before reading makes the server close it, and a client
  that already reused it sees a dropped connection);
- a bound on the request body: 413 before the body is read when Content-Length says so, and as soon as a
  streamed body passes it otherwise;
- ``Retry-After`` on every 429 and 503 that passes through without one;
- BentoML's 400 for a body that breaks the document, reworded in the API's terms (``errors.validation_body``:
  the public schema's name, field paths without pydantic's internals);
- one access log line per request: endpoint, status, duration, cache status, pairs, the model(s); of the
  requests the in-flight limit refuses, one line a second with how many (``ShedLines``).

Pure ASGI (no BaseHTTPMiddleware): bodies stream through untouched, and it costs a few microseconds.
BentoML adds it inside its own tracing, timeout and concurrency middlewares (``add_asgi_middleware``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import Callable
from typing import Any

from service.config import Settings
from service.core.adaptive_limit import Slot
from service.http.auth import ApiKeys, KeyRateLimiter, bearer_token, key_id
from service.http.errors import validation_body
from service.obs import metrics, request_context

log = logging.getLogger("zsc.access")

HEALTH = ("/livez", "/healthz", "/readyz", "/ui")  # probes, and the page (its calls carry the key)
# BentoML's Swagger page is its index ("/", assets under /static_content or /assets)
DOCS = ("/", "/docs.json", "/schema.json", "/openapi.json", "/static_content", "/assets")
QUIET = ("/livez", "/healthz", "/readyz", "/metrics")  # no access line: probes and scrapes every few seconds
REALM = 'Bearer realm="zero-shot-classifier"'
ADMIN = "/admin"  # the admin API: admin keys only
REPLICA = "*"  # zsc_in_flight_limit's model label for the replica-wide limit (one model served)
JSON_APIS = ("/classify", "/classify_batch", "/hf/zero-shot-classification")  # BentoML APIs: JSON bodies only


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


class _TooLarge(Exception):
    pass


class ShedLines:
    """Access lines for requests the in-flight limit refused: the first, then at most one every ``every_s``
    with how many were refused since the last. At ten times a replica's capacity a line per refusal was a
    third of what refusing costs (and a thousand lines a second that say the same)."""

    def __init__(self, every_s: float = 1.0) -> None:
        self.every_s = every_s
        self._count = 0
        self._next_at = float("-inf")

    def refused(self, now: float) -> int:
        """One more refusal at ``now``: how many the line to write now stands for (0: write none)."""
        self._count += 1
        if now < self._next_at:
            return 0
        count, self._count, self._next_at = self._count, 0, now + self.every_s
        return count

    def take(self, now: float) -> int:
        """The refusals held back since the last line (a line for them is written now), 0 if none."""
        count, self._count = self._count, 0
        if count:
            self._next_at = now + self.every_s
        return count


class ServedCount:
    """How many models this worker serves, bound once its components exist (``bind``; the middleware is
    made before them): 1 until then."""

    def __init__(self) -> None:
        self._count: Callable[[], int] = lambda: 1

    def bind(self, count: Callable[[], int]) -> None:
        self._count = count

    def __call__(self) -> int:
        return self._count()


class EdgeMiddleware:
    def __init__(self, app: Any, settings: Settings, models: ServedCount | None = None) -> None:
        self.app = app
        self.settings = settings
        self.keys = ApiKeys(settings.keys_from_env(), settings.api_keys_file) if settings.auth_enabled else None
        self.admin_keys = ApiKeys(settings.admin_key_list()) if settings.admin_keys else None
        self.limiter = (
            KeyRateLimiter(settings.rate_limit_rps, settings.rate_limit_burst) if settings.rate_limit_rps else None
        )
        self.open = HEALTH + (("/metrics",) if settings.open_metrics == "true" else ())
        self.open += DOCS if settings.open_docs == "true" else ()
        self.uncounted = HEALTH + DOCS + ("/metrics", ADMIN)  # never held against the in-flight bound
        self.retry_after = str(settings.retry_after_s).encode()
        self.max_in_flight = settings.max_in_flight_per_worker()
        self.limit = settings.learned_limit(metrics.IN_FLIGHT_LIMIT.labels(REPLICA).set)
        if self.limit is not None:
            metrics.IN_FLIGHT_LIMIT.labels(REPLICA).set(self.limit.current)
        self.models = models or ServedCount()
        self.shed_lines = ShedLines()
        self._flush_due = False
        self.in_flight = 0

    def _admit(self) -> Slot | bool:
        """A slot (the learned limit), True (the static bound), or a falsy value: refuse. With several
        models each model's own limit decides (``pipeline.registry``): here only the static bound."""
        if self.limit is not None and self.models() == 1:
            return self.limit.try_acquire()
        return self.in_flight < self.max_in_flight

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path: str = scope["path"]
        info = request_context.begin(request_context.request_id_from(headers.get("x-request-id")))
        rid = info.request_id.encode()
        started = time.perf_counter()
        seen: dict[str, Any] = {"status": 500, "cache": None}

        async def reply(status: int, body: dict, extra: list[tuple[bytes, bytes]] = ()) -> None:
            payload = json.dumps(body).encode()
            await send_with_id(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(payload)).encode()),
                        *extra,
                    ],
                }
            )
            await send_with_id({"type": "http.response.body", "body": payload})

        async def send_with_id(message: dict) -> None:
            if message["type"] == "http.response.start":
                if message["status"] == 404 and _plain_text(message):  # the router's "Not Found": no route
                    await reply(404, _no_route(scope))
                    seen["replaced"] = True
                    return
                if message["status"] == 400 and path in JSON_APIS and _json(message) and "held" not in seen:
                    seen["held"], seen["body"] = message, b""  # reworded once the body is complete
                    return
            elif seen.get("body") is not None:
                seen["body"] += message.get("body", b"")
                if message.get("more_body"):
                    return
                start, body = seen["held"], seen.pop("body")
                try:
                    reworded = validation_body(json.loads(body))
                except ValueError:
                    reworded = None
                if reworded is not None:
                    body = json.dumps(reworded).encode()
                headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
                await send_with_id({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
                message = {"type": "http.response.body", "body": body}
            if message["type"] == "http.response.start":
                seen["status"] = message["status"]
                out = [h for h in message.get("headers", []) if h[0].lower() != b"x-request-id"]
                out.append((b"x-request-id", rid))
                if message["status"] in (429, 503) and not any(h[0].lower() == b"retry-after" for h in out):
                    out.append((b"retry-after", self.retry_after))
                for name, value in out:
                    if name.lower() == b"x-cache":
                        seen["cache"] = value.decode("latin-1")
                message = {**message, "headers": out}
            elif seen.get("replaced"):
                return  # the body of the router's plain-text answer, replaced above
            await send(message)

        try:
            denied = self._deny(scope, path, headers)
            if denied is not None:
                await reply(*denied)
                return
            unreadable = _content_type_problem(scope, path, headers.get("content-type", ""))
            if unreadable is not None:
                await reply(*unreadable)
                return
            limit = self._body_limit(scope, path)
            length = headers.get("content-length", "")
            if limit is not None and length.isdigit() and int(length) > limit:
                await reply(413, _too_large(limit, path))
                return
            bounded = bool(self.max_in_flight) and not _under(path, self.uncounted)
            slot = self._admit() if bounded else None
            if bounded and not slot:
                await _drain(receive, limit)
                await reply(*self._refusal())
                seen["shed"] = True
                return
            self.in_flight += bounded
            taken = time.perf_counter()
            try:
                await self._call_bounded(scope, receive, send_with_id, reply, limit)
            finally:
                self.in_flight -= bounded
                if isinstance(slot, Slot):
                    self.limit.release(slot, time.perf_counter() - taken)
        finally:
            if seen.get("shed"):
                refused = self.shed_lines.refused(time.monotonic())
                if refused:
                    self._access_line(scope, path, seen, info, started, refused)
                elif not self._flush_due:  # the ones held back get their line when the second is up
                    self._flush_due = True
                    asyncio.get_running_loop().call_later(self.shed_lines.every_s, self._flush_shed_lines)
            elif not _under(path, QUIET):
                self._access_line(scope, path, seen, info, started)

    def _refusal(self) -> tuple:
        if self.limit is None or self.models() > 1:
            message = f"the service holds {self.in_flight} requests, its limit (ZSC_MAX_CONCURRENCY)"
            wait = self.retry_after
        else:
            message = (
                f"the service holds {self.in_flight} requests, as many as it answers within "
                f"{self.limit.goal_s() * 1000:.0f} ms (ZSC_TARGET_LATENCY_MS; at most {self.max_in_flight}, "
                "ZSC_MAX_CONCURRENCY)"
            )
            wait = str(self.limit.retry_after_s()).encode()
        body = {"error": f"{message}; retry after the Retry-After seconds, or add replicas", "error_type": "overloaded"}
        return 429, body, [(b"retry-after", wait)]

    def _deny(self, scope: dict, path: str, headers: dict[str, str]) -> tuple | None:
        """(status, body, headers) of a refusal, or None to go on."""
        if _under(path, (ADMIN,)):
            return self._deny_admin(headers)
        if self.keys is None or scope["method"] == "OPTIONS" or _under(path, self.open):
            return None
        token = bearer_token(headers.get("authorization"))
        if token is None:
            return _unauthorized("this service needs an API key: send the header 'Authorization: Bearer <key>'")
        if not self.keys.check(token):
            return _unauthorized("the API key is not valid (rotated or mistyped?)", invalid=True)
        if self.limiter is not None:
            wait = self.limiter.acquire(token)
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                return (
                    429,
                    {
                        "error": f"rate limit: this key may send {self.limiter.rate:g} requests/s "
                        f"(ZSC_RATE_LIMIT_RPS); retry after {seconds} s",
                        "error_type": "rate_limited",
                    },
                    [(b"retry-after", str(seconds).encode())],
                )
        scope.setdefault("state", {})["zsc_key_id"] = key_id(token)
        return None

    def _deny_admin(self, headers: dict[str, str]) -> tuple | None:
        if self.admin_keys is None:
            return 403, {"error": "the admin API is off on this replica: set ZSC_ADMIN_KEYS", "error_type": "forbidden"}
        token = bearer_token(headers.get("authorization"))
        if token is None:
            return _unauthorized("the admin API needs an admin key: 'Authorization: Bearer <key>'")
        if self.admin_keys.check(token):
            return None
        if self.keys is not None and self.keys.check(token):
            return 403, {
                "error": "a data key (ZSC_API_KEYS) may not call the admin API: use an admin key (ZSC_ADMIN_KEYS)",
                "error_type": "forbidden",
            }
        return _unauthorized("the admin key is not valid", invalid=True)

    def _body_limit(self, scope: dict, path: str) -> int | None:
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            return None
        if path == "/jobs":  # uploads: the jobs API bounds them itself (ZSC_JOB_MAX_MB) while it streams them
            return None
        return self.settings.max_body_mb * 2**20

    async def _call_bounded(self, scope, receive, send, reply, limit: int | None) -> None:
        if limit is None:
            await self.app(scope, receive, send)
            return
        received = 0
        state = {"over": False, "started": False}

        async def counting_receive() -> dict:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    state["over"] = True
                    raise _TooLarge()
            return message

        async def guarded_send(message: dict) -> None:
            if state["over"]:
                return  # the app's answer to a body cut short: ours goes out instead
            state["started"] |= message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except _TooLarge:
            pass
        if state["over"] and not state["started"]:
            await reply(413, _too_large(limit, scope["path"]))

    def _flush_shed_lines(self) -> None:
        self._flush_due = False
        refused = self.shed_lines.take(time.monotonic())
        if refused:
            log.info(
                "429 (%d refused by the in-flight limit since the last such line)",
                refused,
                extra={"status": 429, "refused": refused},
            )

    def _access_line(
        self, scope: dict, path: str, seen: dict, info: request_context.RequestInfo, started, refused: int = 0
    ) -> None:
        more = {"refused": refused} if refused else {}
        log.info(
            "%s %s %s%s",
            scope["method"],
            path,
            seen["status"],
            f" ({refused} refused by the in-flight limit since the last such line)" if refused else "",
            extra={
                **more,
                "endpoint": path,
                "method": scope["method"],
                "status": seen["status"],
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                "cache": seen["cache"],
                "pairs": info.pairs,
                "model": ",".join(info.models) if info.models else None,
                "key_id": scope.get("state", {}).get("zsc_key_id"),
            },
        )


def _content_type_problem(scope: dict, path: str, content_type: str) -> tuple[int, dict] | None:
    """A body the endpoint cannot read, refused before anything parses it (BentoML would try to read a
    form from a JSON API's body, and a multipart body without its boundary fails deep in Starlette: 500)."""
    if scope["method"] not in ("POST", "PUT", "PATCH") or not content_type:
        return None
    media, _, params = content_type.partition(";")
    media = media.strip().lower()
    if path in JSON_APIS and media != "application/json":
        return 415, {
            "error": f"{path} reads JSON: send the body with 'Content-Type: application/json', not {media!r}",
            "error_type": "unsupported_media_type",
        }
    if media == "multipart/form-data" and "boundary=" not in params.lower():
        return 400, {
            "error": "multipart/form-data without its boundary parameter: let the HTTP client set the header "
            "(e.g. 'multipart/form-data; boundary=...')",
            "error_type": "invalid_request",
        }
    return None


def _plain_text(start: dict) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"text/plain") for k, v in start.get("headers", []))


def _json(start: dict) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in start.get("headers", []))


def _no_route(scope: dict) -> dict:
    """Every error of this API is JSON, an unknown path too."""
    return {
        "error": f"no such endpoint: {scope['method']} {scope['path']!r}; the API is described at /openapi.json",
        "error_type": "not_found",
    }


def _too_large(limit: int, path: str) -> dict:
    return {
        "error": f"the request body is over {limit // 2**20} MB (ZSC_MAX_BODY_MB); send fewer items per call "
        f"to {path}, or a job (POST /jobs) for bulk work",
        "error_type": "payload_too_large",
    }


def _unauthorized(message: str, invalid: bool = False) -> tuple:
    """401 with the challenge RFC 6750 asks for (``invalid_token`` when a key was sent but is not valid)."""
    challenge = f'{REALM}, error="invalid_token"' if invalid else REALM
    return 401, {"error": message, "error_type": "unauthorized"}, [(b"www-authenticate", challenge.encode())]


async def _drain(receive: Any, limit: int | None) -> None:
    """Read a refused request's body (at most ``limit`` bytes) so its connection can carry the next one."""
    received = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        received += len(message.get("body", b""))
        if not message.get("more_body") or (limit is not None and received > limit):
            return
