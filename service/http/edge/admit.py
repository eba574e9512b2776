"""Admission at the edge: a request whose body has been read takes its place in flight, or is refused.

``service.admission.Admission`` decides (the hard bound, and the learned limit of the one model a replica
serves); a refusal is 429 with the seconds the replica needs to finish what it holds (``AtCapacity``) and
is marked for the access log's once-a-second line. The place is given back when the answer starts: what
the learned limit measures is service time, and a client slow to read its answer holds nothing. Health
checks, /metrics, the docs and the admin API are never counted.
"""

from __future__ import annotations

from typing import Any

from service.admission.gate import Admission
from service.errors import AtCapacity
from service.http.edge.paths import UNCOUNTED, under
from service.http.errors import send_error
from service.obs import request_context


class Admit:
    def __init__(self, app: Any, admission: Admission) -> None:
        self.app = app
        self.admission = admission

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or under(scope["path"], UNCOUNTED):
            await self.app(scope, receive, send)
            return
        try:
            ticket = self.admission.enter()
        except AtCapacity as refused:
            info = request_context.current()
            if info is not None:
                info.shed = True
            await send_error(send, refused, scope["path"])
            return
        leave = self.admission.leave

        async def send_answered(message: dict) -> None:
            if message["type"] == "http.response.start":
                leave(ticket)
            await send(message)

        try:
            await self.app(scope, receive, send_answered)
        finally:
            leave(ticket)  # no answer (the client went away, the call was cancelled): given back all the same
