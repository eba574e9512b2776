"""Slow and idle clients hold nothing: uvicorn's HTTP protocol with the timeouts and the bound it lacks.

uvicorn (under ``bentoml serve``) closes an idle keep-alive connection (``timeout_keep_alive``), and does
nothing else about slow clients: a connection that never sends a byte, a request head sent a byte at a
time, a body that trickles in, an answer the client never reads, each holds its socket, memory and (for a
body) an ASGI task for as long as the client likes. nginx and Envoy read the whole request with a header
and a body timeout before anything reaches an upstream; Apache's mod_reqtimeout lets the body's time grow
with what has arrived (``MinRate``). This protocol does the same, per connection:

- the head (request line and headers) must arrive within ``ZSC_HEAD_TIMEOUT_S`` of the connection's start,
  or of its first byte after an answer, and within ``MAX_HEAD_BYTES`` (431 past it);
- the body within ``ZSC_BODY_TIMEOUT_S`` of the head's end, plus a second per ``BYTES_PER_SECOND_ALLOWED``
  received, so that a large upload on a slow link arrives and a trickle does not;
- past either, 408 with a JSON body (when nothing has been answered yet) and the connection is closed;
- a connection still sending its head or body is "pending": at most ``ZSC_MAX_PENDING_CONNECTIONS`` per
  worker; one more closes the one that has been pending the longest (408), since an ordinary client is
  pending for milliseconds and an attacker for as long as it can (closing the newest instead would refuse
  every ordinary client while the attackers hold their places);
- an answer the client leaves unread (the send buffer full, writing paused) for ``ZSC_SEND_TIMEOUT_S``
  drops the connection;
- idle keep-alive connections close after ``ZSC_KEEP_ALIVE_S`` (uvicorn's own timer).

Each request's answer goes out whole or not at all (``http/whole_answers.py``).

The edge (``http/edge``) admits a request only once its body is read, so none of these clients is ever
counted in flight or seen by the learned limit. ``install`` puts the class where uvicorn looks up its HTTP
protocol, before BentoML's worker loads its configuration (the service module calls it at import).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from service.config import Settings
from service.errors import HeadTooLarge, RequestTimeout, ServiceError
from service.http.errors import raw_answer
from service.http.whole_answers import HeadWithBody
from service.obs.logs import EverySecond

log = logging.getLogger("zsc.access")

LINGER_S = 2.0  # after a refusal, input is read and dropped this long before the close (nginx: lingering_close)
MAX_HEAD_BYTES = 64 * 1024  # nginx's large_client_header_buffers default is 4 x 8 KiB; a head this big is an attack
BYTES_PER_SECOND_ALLOWED = 64 * 1024  # the body's time grows by 1 s per this many bytes received


@dataclass(frozen=True)
class ConnectionLimits:
    head_timeout_s: float = 10.0
    body_timeout_s: float = 15.0
    send_timeout_s: float = 30.0
    keep_alive_s: float = 5.0
    max_pending: int = 1024

    @classmethod
    def from_settings(cls, s: Settings) -> ConnectionLimits:
        return cls(s.head_timeout_s, s.body_timeout_s, s.send_timeout_s, s.keep_alive_s, s.max_pending_connections)


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a deadline while the request arrives and one while the answer
    waits to be read. States: ``head`` (pending), ``body`` (pending), ``busy`` (the app has it), ``idle``."""

    limits: ClassVar[ConnectionLimits] = ConnectionLimits()
    # this worker's pending connections, the longest-pending first (insertion order)
    pending: ClassVar[OrderedDict[GuardedProtocol, None]] = OrderedDict()
    timeouts: ClassVar[EverySecond] = EverySecond()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeout_keep_alive = self.limits.keep_alive_s
        self._state = "idle"
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._send_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0

    # -- the connection ----------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.pending) >= self.limits.max_pending:
            oldest = next(iter(self.pending))
            oldest._give_up(
                f"the server stopped waiting for this request: {len(self.pending)} connections were still sending "
                "theirs (ZSC_MAX_PENDING_CONNECTIONS); send the whole request at once",
                "evicted",
            )
        self._expect_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._settle("closed")
        self._cancel_send_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._state == "closing":
            return  # a refused client still sending: dropped, so that it reads our answer before the close
        if self._state == "idle":
            self._expect_head()  # a new request on a kept-alive connection
        if self._state == "head":
            self._head_bytes += len(data)
        super().data_received(data)
        if self._state == "head" and self._head_bytes > MAX_HEAD_BYTES:
            error = HeadTooLarge(f"the request line and headers are over {MAX_HEAD_BYTES // 1024} KiB: send fewer")
            self._refuse(error, "head_too_large")

    # -- httptools' callbacks ------------------------------------------------------------------------------
    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not None and self.cycle is not before:  # a new request (not an upgrade)
            self.cycle.transport = HeadWithBody(self.transport, self.cycle)
        if self._state in ("head", "idle"):
            self._state = "body"  # until on_message_complete, which follows at once when there is no body
            self._arm(self.loop.time() + self.limits.body_timeout_s)

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        self._deadline += len(body) / BYTES_PER_SECOND_ALLOWED

    def on_message_complete(self) -> None:
        super().on_message_complete()
        # answered before its body was read (a refusal at the edge): the connection is idle from here
        self._settle("idle" if self.cycle.response_complete else "busy")

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._state == "busy":
            self._state = "idle"  # uvicorn's keep-alive timer runs from here

    # -- writing: an answer the client does not read ---------------------------------------------------------
    def pause_writing(self) -> None:
        super().pause_writing()
        if self._send_timer is None:
            self._send_timer = self.loop.call_later(self.limits.send_timeout_s, self._send_timed_out)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._cancel_send_timer()

    def _send_timed_out(self) -> None:
        self._send_timer = None
        self._log(self.timeouts.count("send"))
        self.transport.abort()  # nothing more can be written to it: no answer, the socket is dropped

    def _cancel_send_timer(self) -> None:
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None

    # -- deadlines while the request arrives ---------------------------------------------------------------
    def _expect_head(self) -> None:
        self._state, self._head_bytes = "head", 0
        self.pending[self] = None
        self.pending.move_to_end(self)
        self._arm(self.loop.time() + self.limits.head_timeout_s)

    def _arm(self, deadline: float) -> None:
        self._deadline = deadline
        if self._timer is None:
            self._timer = self.loop.call_at(deadline, self._check_deadline)

    def _check_deadline(self) -> None:
        self._timer = None
        if self._state not in ("head", "body"):
            return
        if self.loop.time() < self._deadline:  # the body earned more time since the timer was set
            self._timer = self.loop.call_at(self._deadline, self._check_deadline)
            return
        if self._state == "head":
            self._give_up(
                f"the request's head did not arrive within {self.limits.head_timeout_s:g} s (ZSC_HEAD_TIMEOUT_S): "
                "send the request line and headers at once",
                "head",
            )
        else:
            self._give_up(
                f"the request's body did not arrive within {self.limits.body_timeout_s:g} s (ZSC_BODY_TIMEOUT_S, "
                f"plus 1 s per {BYTES_PER_SECOND_ALLOWED // 1024} KiB received): send it at once",
                "body",
            )

    def _give_up(self, message: str, why: str) -> None:
        self._refuse(RequestTimeout(message), why)

    def _refuse(self, error: ServiceError, why: str) -> None:
        """Answer ``error`` (unless the request was answered already, or sent nothing yet) and close: after a
        linger when the answer went out, since closing a socket that still receives sends a reset, and a
        reset makes the client's kernel drop the answer it has not read yet."""
        self._settle("closing")
        self._log(self.timeouts.count(why))
        cycle = self.cycle
        if cycle is not None:
            cycle.disconnected = True  # the app's receive() says so; whatever it sends now is dropped
            cycle.message_event.set()
        transport = self.transport
        started = cycle is not None and cycle.response_started
        if transport.is_closing():
            return
        if started or not (self._head_bytes or cycle is not None) or not transport.can_write_eof():
            transport.close()
            return
        self.flow.resume_reading()  # what the client still sends is read (and dropped) during the linger
        transport.write(raw_answer(error, cycle.scope["path"] if cycle is not None else ""))
        transport.write_eof()
        self.loop.call_later(LINGER_S, transport.close)

    @staticmethod
    def _log(counts: dict[str, int]) -> None:
        if counts:
            _timeouts_line(counts)

    def _settle(self, state: str) -> None:
        """Leave the pending states: no deadline, no place among the pending."""
        self._state = state
        self.pending.pop(self, None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def install(settings: Settings) -> None:
    """uvicorn serves every worker's connections with ``GuardedProtocol`` from now on (read when BentoML's
    worker loads uvicorn's configuration, after the service module is imported)."""
    from uvicorn import config

    GuardedProtocol.limits = ConnectionLimits.from_settings(settings)
    GuardedProtocol.timeouts = EverySecond(on_line=_timeouts_line)
    path = f"{__name__}:GuardedProtocol"
    config.HTTP_PROTOCOLS["auto"] = path
    config.HTTP_PROTOCOLS["httptools"] = path


def _timeouts_line(counts: dict[str, int]) -> None:
    total = sum(counts.values())
    what = ", ".join(f"{n} {why}" for why, n in sorted(counts.items()))
    log.info("%d slow or idle connection(s) closed (%s)", total, what, extra={"status": 408, "closed": counts})
