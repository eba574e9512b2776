"""A lean HTTP/1.1 client for open-loop load: requests written as prepared bytes on kept-alive connections,
answers read by an asyncio protocol (status line, Content-Length, body), a new connection opened whenever
none is idle.

Why not aiohttp: at 1,500 requests a second on one core, aiohttp's own work (request building, its
connector, response objects) saturates the load generator, and a saturated generator times its own lag as
the server's latency (`make overload` saw offered rates swing 1,200-2,000 a second and p99 spells that
followed them). This client costs a few microseconds per request in Python; what it measures is the server.
It speaks only what ``loadtest.overload`` needs: POST with a JSON body, answers with Content-Length (no
chunked encoding), keep-alive unless the server says ``Connection: close``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

HEAD_END = b"\r\n\r\n"


class ConnectionFailed(Exception):
    """The connection closed (or failed) before the answer was read."""


class _Connection(asyncio.Protocol):
    def __init__(self, on_idle: Callable[[_Connection], None]) -> None:
        self.transport: asyncio.Transport | None = None
        self._on_idle = on_idle
        self._buffer = bytearray()
        self._waiter: asyncio.Future | None = None
        self._status = 0
        self._length = -1
        self._keep = True
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def send(self, request: bytes, waiter: asyncio.Future) -> None:
        self._waiter, self._status, self._length = waiter, 0, -1
        assert self.transport is not None
        self.transport.write(request)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if self._length < 0:
            end = self._buffer.find(HEAD_END)
            if end < 0:
                return
            head = bytes(self._buffer[:end]).lower()
            self._status = int(head[9:12])
            self._length = _content_length(head)
            self._keep = b"\r\nconnection: close" not in head
            del self._buffer[: end + len(HEAD_END)]
        if len(self._buffer) < self._length:
            return
        del self._buffer[: self._length]
        waiter, self._waiter, self._length = self._waiter, None, -1
        if waiter is not None and not waiter.done():
            waiter.set_result(self._status)
        if self._keep:
            self._on_idle(self)
        elif self.transport is not None:
            self.closed = True
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(ConnectionFailed(str(exc) if exc else "closed by the server"))

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()


def _content_length(head: bytes) -> int:
    at = head.find(b"\r\ncontent-length:")
    if at < 0:
        return 0
    end = head.find(b"\r\n", at + 2)
    return int(head[at + 17 : end if end > 0 else len(head)])


class Client:
    """POSTs to one host and port; ``opened``: when it opened each connection (``time.perf_counter``)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self._idle: list[_Connection] = []
        self._all: set[_Connection] = set()
        self.opened: list[float] = []

    def request(self, path: str, body: bytes) -> bytes:
        """The bytes of one POST of a JSON ``body`` to ``path`` (prepare them before the clock runs)."""
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        return head.encode() + body

    async def send(self, request: bytes, timeout_s: float) -> int:
        """The answer's status; ``TimeoutError`` past ``timeout_s`` (the connection is dropped: its answer
        would arrive after the next request's), ``ConnectionFailed`` when the connection went away."""
        loop = asyncio.get_running_loop()
        connection = await self._connection(loop)
        waiter = loop.create_future()
        timer = loop.call_later(timeout_s, _expire, waiter, connection)
        connection.send(request, waiter)
        try:
            return await waiter
        finally:
            timer.cancel()

    async def _connection(self, loop: asyncio.AbstractEventLoop) -> _Connection:
        while self._idle:
            connection = self._idle.pop()
            if not connection.closed:
                return connection
        _, connection = await loop.create_connection(lambda: _Connection(self._idle.append), self.host, self.port)
        self.opened.append(time.perf_counter())
        self._all.add(connection)
        return connection

    def close(self) -> None:
        for connection in self._all:
            connection.abort()
        self._all.clear()
        self._idle.clear()


def _expire(waiter: asyncio.Future, connection: _Connection) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())
        connection.abort()
