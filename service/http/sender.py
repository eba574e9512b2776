"""Who sent a request, for traffic calibration (``pipeline.call.Sender``): the id of its API key, which the
access layer put in the request's state (``http/edge/access.py``), and the client's address: with keys off,
the source whose share of a calibration record is bounded. Behind a proxy the address is the header it sets
(``ZSC_CALIBRATION_SOURCE_HEADER``, nginx's X-Real-IP), else the connection's peer."""

from __future__ import annotations

from typing import Any

from service.config import Settings
from service.pipeline.call import Sender

MAX_ADDRESS_CHARS = 64  # a header value kept as a source name: short, and never a record's field separator


def sender_of(request: Any, settings: Settings) -> Sender:
    """``request``: a Starlette request (BentoML's ``ctx.request``)."""
    key = request.scope.get("state", {}).get("zsc_key_id")
    address = None
    if settings.calibration_source_header:
        address = request.headers.get(settings.calibration_source_header)
    if not address and request.client is not None:
        address = request.client.host
    if address:
        address = address.strip()[:MAX_ADDRESS_CHARS].replace("#", "_") or None
    return Sender(key=key, address=address)
