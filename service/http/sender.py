"""Who sent a request, for traffic calibration (``pipeline.call.Sender``): the id of its API key, which the
access layer put in the request's state (``http/edge/access.py``), and the client's address as the ASGI
scope gives it. Behind a proxy that address is the client's only when the server trusts the proxy: uvicorn
(under ``bentoml serve``) rewrites it from X-Forwarded-For for peers in FORWARDED_ALLOW_IPS (default
127.0.0.1), so a client reaching the service directly cannot name another address."""

from __future__ import annotations

from typing import Any

from service.pipeline.call import Sender


def key_of(scope: dict[str, Any]) -> str | None:
    """The id of the API key that sent the request (None with keys off)."""
    return scope.get("state", {}).get("zsc_key_id")


def sender_of(scope: dict[str, Any]) -> Sender:
    """``scope``: the request's ASGI scope (BentoML's ``ctx.request.scope``)."""
    client = scope.get("client")
    return Sender(key=key_of(scope), address=client[0] if client else None)
