"""The replica's role at the edge (``ZSC_ROLE``): a jobs replica runs job chunks and answers only its probes
and /metrics; any other path is a 404 that names the role, in the API's error shape, before any other
layer reads the request (no key, body or admission: a misrouted request costs nothing). Replicas of the
roles ``all`` and ``api`` pass every request through untouched (the layer is not installed)."""

from __future__ import annotations

from typing import Any

from service.errors import NotThisRole
from service.http.edge.paths import JOBS_ROLE, under
from service.http.errors import send_error


class RoleGate:
    def __init__(self, app: Any, role: str) -> None:
        self.app = app
        self.role = role

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or under(scope["path"], JOBS_ROLE):
            await self.app(scope, receive, send)
            return
        await send_error(send, NotThisRole(scope["method"], scope["path"], self.role, JOBS_ROLE), scope["path"])
