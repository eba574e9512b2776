"""BentoML's per-request timeout (``traffic.timeout``, ``ZSC_TIMEOUT_S``: a 504 when no answer has started
by then), with its timer cancelled once the answer starts.

BentoML's ``TimeoutMiddleware`` schedules ``loop.call_later(timeout, ...)`` for every request and never
cancels it: each request leaves a timer alive for the whole timeout (60 s), holding its future, its
context and a bound method. At ten times a CPU replica's capacity (1,400 requests/s, nearly all of them
answered 429 within a millisecond) that was 80,000 live timers and half a million objects the garbage
collector kept walking: full collections grew to 100-200 ms, about once a second, paused everything the
process serves, and took a tenth of its CPU (measured with ``gc.callbacks`` on the overload run,
docs/reliability.md). This one behaves the same (a 504 with the same body, the app cancelled, nothing timed
once the answer has started: a download may take longer) and cancels its timer when the answer starts or
the request ends.

``install`` puts it where BentoML looks for its middleware when it builds the worker's app (the class is
imported from ``bentoml._internal.server.http.traffic`` at that moment); the service module calls it at
import, before any app exists.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bentoml._internal.server.http import traffic
from starlette.responses import JSONResponse

from service.http.errors import openai_envelope, openai_path


class TimeoutMiddleware:
    def __init__(self, app: Any, timeout: float) -> None:
        self.app = app
        self.timeout = timeout

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        started = loop.create_future()  # done when the answer starts, or the request ends
        timer = loop.call_later(self.timeout, _expire, started)

        async def send_started(message: dict) -> None:
            if not started.done():
                started.set_result(None)
                timer.cancel()
            await send(message)

        call = asyncio.ensure_future(self.app(scope, receive, send_started))
        call.add_done_callback(lambda _: started.done() or started.set_result(None))
        try:
            await started
        except TimeoutError:
            if call.cancel():
                message = f"Not able to process the request in {self.timeout} seconds"
                body = openai_envelope(message, 504) if openai_path(scope["path"]) else {"error": message}
                await JSONResponse(body, status_code=504)(scope, receive, send)
            return
        finally:
            timer.cancel()
        await call


def _expire(started: asyncio.Future) -> None:
    if not started.done():
        started.set_exception(TimeoutError())


def install() -> None:
    """BentoML builds each worker's app with this timeout middleware from now on."""
    traffic.TimeoutMiddleware = TimeoutMiddleware  # type: ignore[misc]
