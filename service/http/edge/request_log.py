"""The outermost layer: the request id, the headers every answer carries, and the access line.

- the request id: the client's ``X-Request-ID`` when it is a plain token, else a new one, answered in the
  same header (and in ``x-typesafe-request-id`` on /v1/systemone, where TypeSafe's SDK reads it) and put on
  every log line of the request (``obs.request_context``, ``obs.logs``);
- ``Retry-After`` on a 429 or 503 that passes through without one (BentoML's own 503s);
- one access line per request (endpoint, status, duration, cache status, pairs, models, key id), none for
  probes and scrapes; the in-flight limit's refusals get a line a second saying how many (``EverySecond``).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from service.http.edge.paths import QUIET, SYSTEM_ONE, header, under
from service.obs import request_context
from service.obs.logs import EverySecond

log = logging.getLogger("zsc.access")
REFUSED = "refused by the in-flight limit since the last such line"


class RequestLog:
    def __init__(self, app: Any, retry_after_s: int) -> None:
        self.app = app
        self.retry_after = str(retry_after_s).encode()
        self.refusals = EverySecond(on_line=_refusals_line)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        info = request_context.begin(request_context.request_id_from(header(scope, b"x-request-id")))
        rid = info.request_id.encode()
        started = time.perf_counter()
        answer: dict[str, Any] = {"status": 500, "cache": None}

        async def send_with_request_id(message: dict) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                out = []
                retry = False
                for name, value in message.get("headers", ()):
                    lower = name.lower()
                    if lower == b"x-request-id":
                        continue
                    retry |= lower == b"retry-after"
                    if lower == b"x-cache":
                        answer["cache"] = value.decode("latin-1")
                    out.append((name, value))
                out.append((b"x-request-id", rid))
                if scope["path"] == SYSTEM_ONE:  # where typesafe-sdk reads its request_id
                    out.append((b"x-typesafe-request-id", rid))
                if message["status"] in (429, 503) and not retry:
                    out.append((b"retry-after", self.retry_after))
                message = {**message, "headers": out}
            await send(message)

        try:
            await self.app(scope, receive, send_with_request_id)
        finally:
            if info.shed:
                counts = self.refusals.count()
                if counts:
                    self._line(scope, answer, info, started, counts[""])
            elif not under(scope["path"], QUIET):
                self._line(scope, answer, info, started)

    @staticmethod
    def _line(scope: dict, answer: dict, info: request_context.RequestInfo, started: float, refused: int = 0) -> None:
        path = scope["path"]
        log.info(
            "%s %s %s%s",
            scope["method"],
            path,
            answer["status"],
            f" ({refused} {REFUSED})" if refused else "",
            extra={
                **({"refused": refused} if refused else {}),
                "endpoint": path,
                "method": scope["method"],
                "status": answer["status"],
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                "cache": answer["cache"],
                "pairs": info.pairs,
                "model": ",".join(info.models) if info.models else None,
                "key_id": scope.get("state", {}).get("zsc_key_id"),
            },
        )


def _refusals_line(counts: dict[str, int]) -> None:
    refused = counts[""]
    log.info("429 (%d %s)", refused, REFUSED, extra={"status": 429, "refused": refused})
