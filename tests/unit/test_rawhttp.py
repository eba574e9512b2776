"""The overload's lean HTTP client (loadtest/rawhttp.py) against a real socket server on loopback: answers read
by Content-Length on kept-alive connections, a new connection only when none is idle, ``Connection: close``
honoured, a silent server timed out, a server that hangs up reported as such."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from loadtest.rawhttp import Client, ConnectionFailed


@contextlib.asynccontextmanager
async def client_of(handler):
    """A ``Client`` of a socket server on loopback whose connections ``handler`` serves."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    client = Client("127.0.0.1", server.sockets[0].getsockname()[1])
    try:
        yield client
    finally:
        client.close()
        server.close()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(
        next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    )
    return await reader.readexactly(length)


def answer(status: int, body: bytes, close: bool = False) -> bytes:
    extra = b"Connection: close\r\n" if close else b""
    return b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n%s\r\n%s" % (status, len(body), extra, body)


def test_answers_on_kept_alive_connections_and_a_new_one_only_when_none_is_idle():
    seen: list[bytes] = []

    async def handler(reader, writer):
        while True:
            try:
                body = await read_request(reader)
            except asyncio.IncompleteReadError:
                return
            seen.append(body)
            await asyncio.sleep(0.05 if body == b'{"slow": true}' else 0)
            writer.write(answer(429 if body == b"{}" else 200, b'{"ok": true, "padding": "' + b"x" * 5000 + b'"}'))
            await writer.drain()

    async def go():
        async with client_of(handler) as client:
            assert await client.send(client.request("/classify", b'{"a": 1}'), 5) == 200
            assert await client.send(client.request("/classify", b"{}"), 5) == 429
            assert len(client.opened) == 1  # the second went on the first's connection
            slow = client.request("/classify", b'{"slow": true}')
            assert await asyncio.gather(client.send(slow, 5), client.send(slow, 5)) == [200, 200]
            assert len(client.opened) == 2  # two at once: one more
        assert seen[:2] == [b'{"a": 1}', b"{}"]

    asyncio.run(go())


def test_connection_close_is_honoured_a_silent_server_times_out_and_a_hang_up_is_a_failure():
    async def handler(reader, writer):
        body = await read_request(reader)
        if body == b"close":
            writer.write(answer(408, b"{}", close=True))
            await writer.drain()
            writer.close()
        elif body == b"hang up":
            writer.close()
        else:
            await asyncio.sleep(10)  # silent

    async def go():
        async with client_of(handler) as client:
            assert await client.send(client.request("/x", b"close"), 5) == 408
            assert await client.send(client.request("/x", b"close"), 5) == 408
            assert len(client.opened) == 2  # the closed connection was not reused
            with pytest.raises(ConnectionFailed):
                await client.send(client.request("/x", b"hang up"), 5)
            with pytest.raises(TimeoutError):
                await client.send(client.request("/x", b"silent"), 0.2)

    asyncio.run(go())
