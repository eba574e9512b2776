"""An answer of known length leaves in one write, its status line and headers with its body, so a replica
that dies while answering leaves its client (nginx) with the whole answer or with nothing.

uvicorn writes the head when the app sends ``http.response.start`` and the body when it sends
``http.response.body``; between the two, the middlewares run and, on a busy machine, the worker's thread may
wait for a core. A replica killed in that gap left nginx holding a 200's head without its body: having
passed the head on, nginx cannot try another replica, and the client read a truncated answer (seen in CI,
``test_nginx_cluster``: 143 ms between head and kill, "upstream prematurely closed connection"). With the head
held until the body's first bytes, nginx gets nothing from the dying replica and retries the request on a
live one (``proxy_next_upstream``).

Only heads with a ``Content-Length`` wait: a streamed answer's head goes at once, since its first chunk may
be a while coming, and so does the answer to a HEAD, which has no body. What uvicorn writes before the
answer starts (``100 Continue``) is not held either.
"""

from __future__ import annotations

import asyncio
from typing import Any


class HeadWithBody:
    """The transport as one request's cycle (uvicorn's ``RequestResponseCycle``) sees it: everything passes
    through, except that the head of an answer of known length waits for the write that follows it."""

    def __init__(self, transport: asyncio.Transport, cycle: Any) -> None:
        self._transport = transport
        self._cycle = cycle
        self._head_seen = False
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        cycle = self._cycle
        if cycle.response_started and not self._head_seen:
            # the head: uvicorn set response_started and read Content-Length from it before writing it
            self._head_seen = True
            # uvicorn writes no body for a HEAD: its head would wait for nothing
            known_length = cycle.chunked_encoding is False and cycle.expected_content_length > 0
            if known_length and cycle.scope["method"] != "HEAD":
                self._held = data
                return
        if self._held is not None:
            data, self._held = self._held + data, None
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        # close(), is_closing(), get_extra_info(): the transport's own (a close drops a held head: no answer)
        return getattr(self._transport, name)
