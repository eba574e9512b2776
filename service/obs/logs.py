"""Log lines that carry their request's id; with ZSC_LOG_FORMAT=json, one JSON object per line.

BentoML configures the worker's logging (its ``tracehandler`` on the root and ``bentoml`` loggers) before
the service is imported; ``configure`` then adds the request-id filter to those handlers and, for json,
swaps their formatter, so BentoML's own lines, uvicorn's and ours come out alike.

A client's mistake is not the operator's problem: BentoML logs every request it refuses (a body that fails
validation, any of its own 4xx) at ERROR with the traceback, so ``configure`` also drops those records
(``ClientErrorFilter``); the request's access line (INFO, with its status) is what remains of it. A 5xx keeps
its ERROR record and traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from collections.abc import Callable

from opentelemetry import trace
from pydantic import ValidationError

from service.obs import request_context

# LogRecord attributes that are not "extra" fields
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
# BentoML's TraceRecordFilter decorations: its text format needs them, a JSON line does not
_BENTOML_DECORATIONS = {"levelname_bracketed", "component", "trace_msg", "request_id", "service_name"}


class EverySecond:
    """Counts of a frequent event (refusals of the in-flight limit, slow connections closed), written as at
    most one line every ``every_s``: the first at once (``count`` returns what it stands for: the caller
    writes it with the details it has), the ones after it held back and written by ``on_line`` when the
    second is up. At ten times a replica's capacity a line per refusal was a third of what refusing costs
    (and a thousand lines a second that say the same)."""

    def __init__(
        self,
        on_line: Callable[[dict[str, int]], None] = lambda counts: None,
        every_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.on_line = on_line
        self.every_s = every_s
        self._clock = clock
        self._counts: Counter[str] = Counter()
        self._next_at = float("-inf")
        self._flush_due = False

    def count(self, key: str = "") -> dict[str, int]:
        """One more event: the counts the line to write now stands for (empty: none now)."""
        self._counts[key] += 1
        now = self._clock()
        if now >= self._next_at:
            return self.take()
        if not self._flush_due:  # the ones held back get their line when the second is up
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return {}  # no loop (a unit test): they go into the next line
            self._flush_due = True
            loop.call_later(self._next_at - now, self._flush)
        return {}

    def take(self) -> dict[str, int]:
        """The counts held back (a line for them is written now); empty if none."""
        counts = dict(self._counts)
        self._counts.clear()
        if counts:
            self._next_at = self._clock() + self.every_s
        return counts

    def _flush(self) -> None:
        self._flush_due = False
        counts = self.take()
        if counts:
            self.on_line(counts)


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on the record as ``zsc_request_id`` (None outside a request), and the
    trace id when the line is written inside a recorded span (tracing.py)."""

    def filter(self, record: logging.LogRecord) -> bool:
        info = request_context.current()
        record.zsc_request_id = info.request_id if info is not None else None
        span = trace.get_current_span().get_span_context()
        record.zsc_trace_id = format(span.trace_id, "032x") if span.is_valid else None
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "zsc_request_id", None),
            "message": record.getMessage(),
        }
        if getattr(record, "zsc_trace_id", None):
            line["trace_id"] = record.zsc_trace_id
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in _BENTOML_DECORATIONS and not key.startswith("zsc_"):
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextRequestIdFormatter(logging.Formatter):
    """Wraps the handler's own text formatter and appends ``(request_id=...)`` inside a request."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        text = self.inner.format(record)
        rid = getattr(record, "zsc_request_id", None)
        return f"{text} (request_id={rid})" if rid else text


# BentoML's `log_exception` (called for every exception an API endpoint raises, 4xx and 5xx alike) logs here
BENTOML_HTTP_LOGGER = "bentoml._internal.server.http_app"


def is_client_error(exc: BaseException | None) -> bool:
    """Whether BentoML answers this exception with a 4xx: a body that fails validation (pydantic's 400),
    or one of its own errors with a 4xx status (``BentoMLException.error_code``, an ``HTTPStatus``)."""
    if isinstance(exc, ValidationError):
        return True
    status = getattr(exc, "error_code", None)
    return isinstance(status, int) and 400 <= status < 500


class ClientErrorFilter(logging.Filter):
    """Drops the ERROR record (and its traceback) BentoML writes for a request it answers with a 4xx."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and is_client_error(record.exc_info[1]))


def _handlers() -> list[logging.Handler]:
    seen: list[logging.Handler] = []
    for name in ("", "bentoml", "uvicorn.error", "uvicorn.access", "zsc"):
        for handler in logging.getLogger(name).handlers:
            if handler not in seen:
                seen.append(handler)
    return seen


def configure(fmt: str) -> None:
    """After BentoML set up its handlers (in the serving CLI and in each worker): adds the request id to
    their lines, for json swaps their formatter, and quiets BentoML's records of client errors. Idempotent."""
    for handler in _handlers():
        if any(isinstance(f, RequestIdFilter) for f in handler.filters):
            continue
        handler.addFilter(RequestIdFilter())
        if fmt == "json":
            handler.setFormatter(JsonFormatter())
        else:
            handler.setFormatter(TextRequestIdFormatter(handler.formatter or logging.Formatter()))
    logging.getLogger("zsc").setLevel(logging.INFO)
    bentoml_http = logging.getLogger(BENTOML_HTTP_LOGGER)
    if not any(isinstance(f, ClientErrorFilter) for f in bentoml_http.filters):
        bentoml_http.addFilter(ClientErrorFilter())
