"""Slow and idle clients against uvicorn with the connection guard (``http/connections.py``), in process: a
real uvicorn server on a loopback socket, real sockets for clients, short timeouts. A head or a body that
does not arrive in time gets 408 and the connection closes; a body that keeps arriving earns more time; a
head too large is 431; a full table of pending connections closes the oldest for a new one; an answer left
unread is dropped after the send timeout; an idle keep-alive connection closes."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest
import uvicorn

from service.http.connections import ConnectionLimits, GuardedProtocol

LIMITS = ConnectionLimits(head_timeout_s=0.6, body_timeout_s=0.6, send_timeout_s=0.6, keep_alive_s=0.6, max_pending=4)
BIG = b"x" * (32 * 2**20)  # more than loopback's socket buffers hold: the server must wait for the reader


async def app(scope, receive, send):
    """Reads the whole body, answers its length; /big answers 32 MB; /slow, /dies and /stream: ``answer_apart``."""
    if scope["type"] != "http":
        return
    if scope["path"] in ("/slow", "/dies", "/stream"):
        await answer_apart(scope["path"], send)
        return
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = BIG if scope["path"] == "/big" else json.dumps({"received": size}).encode()
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def answer_apart(path: str, send) -> None:
    """The head, then 0.4 s, then the body: /slow; /dies fails instead of sending it; /stream has no length."""
    headers = [] if path == "/stream" else [(b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await asyncio.sleep(0.4)
    if path == "/dies":
        raise RuntimeError("the replica died between the head and the body")
    await send({"type": "http.response.body", "body": b"{}"})


@pytest.fixture
def serve(monkeypatch):
    """Runs ``scenario(port, server)`` against a guarded uvicorn on a free loopback port."""
    monkeypatch.setattr(GuardedProtocol, "limits", LIMITS)

    def run(scenario):
        async def main():
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            config = uvicorn.Config(app, http=GuardedProtocol, lifespan="off", log_config=None, loop="asyncio")
            server = uvicorn.Server(config)
            task = asyncio.create_task(server.serve(sockets=[sock]))
            while not server.started:
                await asyncio.sleep(0.01)
            try:
                return await scenario(sock.getsockname()[1], server)
            finally:
                server.should_exit = True
                await task

        return asyncio.run(main())

    return run


async def answer_of(reader: asyncio.StreamReader, within: float = 5.0) -> tuple[int | None, dict | None, float]:
    """(status, JSON body, seconds) of the server's answer; (None, None, s) when it closed without one."""
    started = time.monotonic()
    try:
        raw = await asyncio.wait_for(reader.read(), within)  # to the server's close
    except ConnectionError:
        raw = b""
    took = time.monotonic() - started
    if not raw:
        return None, None, took
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body) if body else None, took


def post_head(length: int, path: str = "/") -> bytes:
    return f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Length: {length}\r\n\r\n".encode()


def test_a_head_that_does_not_arrive_in_time_is_408_and_closed(serve):
    async def scenario(port, server):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST / HTTP/1.1\r\nHost: t\r\n")  # never finished
        status, body, took = await answer_of(reader)
        silent_reader, _ = await asyncio.open_connection("127.0.0.1", port)  # never sends a byte
        silent = await answer_of(silent_reader)
        return status, body, took, silent

    status, body, took, silent = serve(scenario)
    assert status == 408 and body["error_type"] == "request_timeout" and "ZSC_HEAD_TIMEOUT_S" in body["error"]
    assert 0.5 < took < 3.0
    assert silent[0] is None and silent[2] < 3.0  # nothing sent, nothing to answer: closed


def test_a_trickled_body_is_408_and_a_steady_one_earns_its_time(serve):
    async def scenario(port, server):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(post_head(100) + b"0123456789")
        trickle = asyncio.ensure_future(answer_of(reader))
        for _ in range(20):
            if trickle.done():
                break
            writer.write(b"x")  # a byte every 0.2 s
            await asyncio.sleep(0.2)
        trickled = await trickle
        # 128 KiB at ~110 KiB/s takes over a second, past the 0.6 s base, within the 2 s it earns
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(post_head(128 * 1024))
        for _ in range(16):
            writer.write(b"y" * 8192)
            await writer.drain()
            await asyncio.sleep(0.07)
        steady = await asyncio.wait_for(reader.readuntil(b"}"), 5)
        return trickled, steady

    (status, body, took), steady = serve(scenario)
    assert status == 408 and "ZSC_BODY_TIMEOUT_S" in body["error"] and took < 3.0
    assert b" 200 " in steady and b'{"received": 131072}' in steady


def test_a_head_over_the_bound_is_431(serve):
    async def scenario(port, server):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: t\r\nX-Padding: " + b"a" * (80 * 1024))
        return await answer_of(reader)

    status, body, _ = serve(scenario)
    assert status == 431 and body["error_type"] == "request_header_fields_too_large"


def test_a_full_table_of_pending_connections_closes_the_oldest_for_a_new_one(serve):
    async def scenario(port, server):
        slow = []
        for _ in range(LIMITS.max_pending):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST / HTTP/1.1\r\n")
            slow.append((reader, writer))
            await asyncio.sleep(0.02)
        oldest = asyncio.ensure_future(answer_of(slow[0][0]))
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(post_head(2) + b"{}")
        ordinary = await asyncio.wait_for(reader.readuntil(b"}"), 5)
        return await oldest, ordinary, len(GuardedProtocol.pending)

    (status, body, took), ordinary, pending = serve(scenario)
    assert b" 200 " in ordinary
    assert status == 408 and "ZSC_MAX_PENDING_CONNECTIONS" in body["error"] and took < 0.5
    assert pending <= LIMITS.max_pending


def test_an_answer_left_unread_is_dropped_after_the_send_timeout_and_idle_connections_close(serve):
    async def scenario(port, server):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: t\r\n\r\n")  # and never read
        while not server.server_state.connections:
            await asyncio.sleep(0.01)
        started = time.monotonic()
        while server.server_state.connections and time.monotonic() - started < 5:
            await asyncio.sleep(0.05)
        dropped_after = time.monotonic() - started
        sock.close()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /small HTTP/1.1\r\nHost: t\r\n\r\n")
        await reader.readuntil(b"}")
        idle_started = time.monotonic()
        closed = await asyncio.wait_for(reader.read(), 5)  # kept alive, then closed by the server
        return dropped_after, closed, time.monotonic() - idle_started

    dropped_after, closed, idle_for = serve(scenario)
    assert 0.5 < dropped_after < 4.0, dropped_after
    assert closed == b"" and 0.4 < idle_for < 3.0


def test_an_answer_of_known_length_goes_whole_or_not_at_all(serve):
    """Its head waits for its body (http/whole_answers.py), so an app that fails between the two leaves the
    client with nothing (nginx then retries on another replica) rather than a head without a body; a streamed
    answer's head goes at once; ``100 Continue`` is not held, nor the answer to a HEAD (it has no body)."""

    async def nothing_within(reader: asyncio.StreamReader, seconds: float) -> bool:
        try:
            await asyncio.wait_for(reader.read(1), seconds)
        except TimeoutError:
            return True
        return False

    async def scenario(port, server):
        out = {}
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        out["slow_head_early"] = not await nothing_within(reader, 0.25)
        out["slow"] = await asyncio.wait_for(reader.readuntil(b"{}"), 5)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /dies HTTP/1.1\r\nHost: t\r\n\r\n")
        out["dies"] = await asyncio.wait_for(reader.read(), 5)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
        out["stream_head"] = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 0.3)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        out["continue"] = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 2)
        writer.write(b"{}")
        out["after_continue"] = await asyncio.wait_for(reader.readuntil(b"}"), 5)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"HEAD /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /slow HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        )
        out["head_then_get"] = await asyncio.wait_for(reader.read(), 5)
        return out

    out = serve(scenario)
    assert not out["slow_head_early"] and out["slow"].startswith(b"HTTP/1.1 200 ")
    assert out["dies"] == b""
    assert out["stream_head"].startswith(b"HTTP/1.1 200 ") and b"transfer-encoding: chunked" in out["stream_head"]
    assert out["continue"] == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert b" 200 " in out["after_continue"] and b'{"received": 2}' in out["after_continue"]
    assert out["head_then_get"].count(b"HTTP/1.1 200 ") == 2 and out["head_then_get"].endswith(b"\r\n\r\n{}")
