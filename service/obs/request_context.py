"""What one HTTP request carries through the layers below the middleware: its id, and the facts its access
log line reports (cache status, pairs). A context variable, so an endpoint fills it in without the
middleware and the endpoint knowing each other; asyncio tasks and anyio worker threads inherit it."""

from __future__ import annotations

import itertools
import os
import re
from contextvars import ContextVar
from dataclasses import dataclass

REQUEST_ID_HEADER = "X-Request-ID"
# An id a client sends is kept if it is a plain token (it goes into logs and headers as it is)
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")


@dataclass
class RequestInfo:
    request_id: str
    pairs: int | None = None  # (text window, phrasing) pairs the request asked for, cached or not
    models: list[str] | None = None  # the models that answered it
    shed: bool = False  # refused by the in-flight limit (its access line is the once-a-second one)


_current: ContextVar[RequestInfo | None] = ContextVar("zsc_request", default=None)


def request_id_from(header: str | None) -> str:
    """The client's X-Request-ID when it is a plain token, else a new one."""
    if header and _CLIENT_ID.fullmatch(header):
        return header
    return f"{_PROCESS}{next(_COUNT):016x}"


# A new id is this process's random half and a count (32 hex digits, as a UUID's): unique without uuid4's
# system call for each request's random bytes, on the event loop's hot path.
_PROCESS = os.urandom(8).hex()
_COUNT = itertools.count(1)


def _new_process_half() -> None:
    global _PROCESS
    _PROCESS = os.urandom(8).hex()


os.register_at_fork(after_in_child=_new_process_half)  # a forked worker must not repeat its parent's ids


def begin(request_id: str) -> RequestInfo:
    info = RequestInfo(request_id)
    _current.set(info)
    return info


def current() -> RequestInfo | None:
    return _current.get()


def note_models(names: list[str]) -> None:
    info = _current.get()
    if info is not None:
        info.models = sorted({*(info.models or ()), *names})


def count_pairs(pairs: int) -> None:
    info = _current.get()
    if info is not None:
        info.pairs = (info.pairs or 0) + pairs
