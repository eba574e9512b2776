"""Admission at the edge: a request whose body has been read takes its place in flight, or is refused.

``service.admission.Admission`` decides (the hard bound, and the learned limit of the one model a replica
serves); a refusal is 429 with the seconds the replica needs to finish what it holds (``AtCapacity``) and
is marked for the access log's once-a-second line; a replica stopping (SIGTERM, ``http/drain.py``) refuses
with 503 at once. The place is given back when the call is over; what the
learned limit measures is service time: from admission to the end of the call, less the time spent
waiting to hand the answer to a client that does not read it (the connection guard drops such a client
after ZSC_SEND_TIMEOUT_S). Measuring only to the answer's start left out the event loop's own delays under
an overload (the work after the answer is sent waits for the loop too): the limit settled higher and the
accepted p99 of `make overload` was 10-25 % worse. Health checks, /metrics, the docs and the admin API
are never counted.

A refusal is held ``REFUSAL_HOLD_S`` before it is sent (up to ``MAX_HELD`` at once, then at once): clients
that ignore Retry-After and ask again at once would otherwise spin on refusals, whose cost on the replica's
core starves the model; the learned limit then follows the throughput down (docs/reliability.md has the
measurement). A held refusal costs a timer.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from service.admission.gate import Admission
from service.errors import AtCapacity, ShuttingDown
from service.http.edge.paths import UNCOUNTED, under
from service.http.errors import send_error
from service.obs import request_context

REFUSAL_HOLD_S = 0.2
MAX_HELD = 256  # refusals held at once per worker: past it, sent at once (a held one keeps its connection)


class Admit:
    def __init__(
        self, app: Any, admission: Admission, hold_s: float = REFUSAL_HOLD_S, max_held: int = MAX_HELD
    ) -> None:
        self.app = app
        self.admission = admission
        self.hold_s = hold_s
        self.max_held = max_held
        self.held = 0

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or under(scope["path"], UNCOUNTED):
            await self.app(scope, receive, send)
            return
        try:
            ticket = self.admission.enter()
        except ShuttingDown as stopping:  # at once: the client's next replica answers it
            await send_error(send, stopping, scope["path"])
            return
        except AtCapacity as refused:
            info = request_context.current()
            if info is not None:
                info.shed = True
            if self.hold_s and self.held < self.max_held:
                self.held += 1
                try:
                    await asyncio.sleep(self.hold_s)
                finally:
                    self.held -= 1
            await send_error(send, refused, scope["path"])
            return
        waited = 0.0  # on the client: a full send buffer

        async def send_timed(message: dict) -> None:
            nonlocal waited
            started = time.perf_counter()
            await send(message)
            waited += time.perf_counter() - started

        try:
            await self.app(scope, receive, send_timed)
        finally:  # also with no answer (the client went away, the call was cancelled)
            self.admission.leave(ticket, waited)
