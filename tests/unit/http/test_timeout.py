"""The per-request timeout that replaces BentoML's (service/http/timeout.py), on a real event loop with
plain ASGI apps: the timer is gone once the answer starts, a request with no answer by the timeout gets
BentoML's 504 and its app is cancelled, an answer that has started is never cut, and BentoML builds its
apps with it once installed."""

from __future__ import annotations

import asyncio
import json

from service.http.timeout import TimeoutMiddleware, install

SCOPE = {"type": "http", "method": "POST", "path": "/classify", "headers": []}


async def receive() -> dict:
    return {"type": "http.request", "body": b"", "more_body": False}


def answer(delay_s: float = 0.0, between_s: float = 0.0, state: dict | None = None):
    async def app(scope, receive, send):
        try:
            await asyncio.sleep(delay_s)
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await asyncio.sleep(between_s)
            await send({"type": "http.response.body", "body": b"ok"})
        except asyncio.CancelledError:
            if state is not None:
                state["cancelled"] = True
            raise

    return app


def run(app, timeout: float) -> tuple[list[dict], list]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def go():
        await TimeoutMiddleware(app, timeout)(SCOPE, receive, send)
        for _ in range(3):
            await asyncio.sleep(0)  # a cancelled app's own sleep ends on the loop's next turns
        loop = asyncio.get_running_loop()
        return [h for h in loop._scheduled if not h.cancelled()]  # timers still due

    return sent, asyncio.run(go())


def test_a_quick_answer_leaves_no_timer_behind():
    sent, pending = run(answer(), timeout=60)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"] and sent[0]["status"] == 200
    assert pending == []  # BentoML's own kept a 60 s timer per request


def test_no_answer_by_the_timeout_is_bentomls_504_and_the_app_is_cancelled():
    state: dict = {}
    sent, pending = run(answer(delay_s=5, state=state), timeout=0.1)
    assert sent[0]["status"] == 504 and state.get("cancelled")
    assert json.loads(sent[1]["body"]) == {"error": "Not able to process the request in 0.1 seconds"}
    assert pending == []


def test_an_answer_that_has_started_is_not_cut():
    sent, _ = run(answer(between_s=0.3), timeout=0.1)
    assert sent[0]["status"] == 200 and sent[-1]["body"] == b"ok"


def test_bentoml_builds_its_apps_with_it_once_installed():
    from bentoml._internal.server.http import traffic

    install()
    assert traffic.TimeoutMiddleware is TimeoutMiddleware
