"""The edge's body layer (``http/edge/body.py``) as an ASGI app: the whole body is read before the request
goes on (in one piece), a streamed body over the bound is 413 as soon as it passes it, and a worker holding
``ZSC_BODY_BUFFER_MB`` of bodies still arriving refuses the next chunk with 503 and Retry-After."""

from __future__ import annotations

import asyncio
import json

from service.config import Settings
from service.http.edge.body import BodyReader


def scope(path: str = "/classify", content_type: bytes = b"application/json") -> dict:
    return {"type": "http", "method": "POST", "path": path, "headers": [(b"content-type", content_type)]}


async def run(reader: BodyReader, chunks: list[bytes], path: str = "/classify") -> tuple[list[dict], list[dict]]:
    """Feed ``chunks`` as a streamed body; returns (what the app received, what went back to the client)."""
    incoming = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]
    sent: list[dict] = []

    async def receive() -> dict:
        if incoming:
            return incoming.pop(0)
        await asyncio.sleep(3600)  # the client waits for its answer
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    async def app(scope, receive_, send_) -> None:
        got.append(await receive_())
        await send_({"type": "http.response.start", "status": 200, "headers": []})
        await send_({"type": "http.response.body", "body": b"{}"})

    got: list[dict] = []
    reader.app = app
    await reader(scope(path), receive, send)
    return got, sent


def settings(**env: str) -> Settings:
    return Settings.from_env({"ZSC_MAX_BODY_MB": "1", "ZSC_JOB_MAX_MB": "2", "ZSC_BODY_BUFFER_MB": "2", **env})


def test_the_app_gets_the_whole_body_in_one_piece():
    reader = BodyReader(None, settings())
    got, sent = asyncio.run(run(reader, [b'{"text": ', b'"a"', b"}"]))
    assert got == [{"type": "http.request", "body": b'{"text": "a"}', "more_body": False}]
    assert sent[0]["status"] == 200 and reader.held == 0


def test_a_streamed_body_over_the_bound_is_413_and_closes():
    reader = BodyReader(None, settings())
    got, sent = asyncio.run(run(reader, [b"x" * 600_000, b"x" * 600_000, b"never read"]))
    assert got == [] and sent[0]["status"] == 413 and (b"connection", b"close") in sent[0]["headers"]
    assert "ZSC_MAX_BODY_MB" in json.loads(sent[1]["body"])["error"] and reader.held == 0
    _, jobs = asyncio.run(run(reader, [b"x" * 600_000, b"x" * 600_000], path="/jobs"))
    assert jobs[0]["status"] == 200  # a job upload has its own bound (ZSC_JOB_MAX_MB)


def test_bodies_over_the_worker_s_buffer_are_503_with_retry_after():
    reader = BodyReader(None, settings())

    async def scenario():
        reader.held = 2 * 2**20 - 100  # other uploads under way hold nearly all of it
        return await run(reader, [b"x" * 200])

    got, sent = asyncio.run(scenario())
    assert got == [] and sent[0]["status"] == 503
    headers = dict(sent[0]["headers"])
    assert headers[b"retry-after"] == b"1" and headers[b"connection"] == b"close"
    assert "ZSC_BODY_BUFFER_MB" in json.loads(sent[1]["body"])["error"]
