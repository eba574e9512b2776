"""Log lines that carry their request's id; with ZSC_LOG_FORMAT=json, one JSON object per line.

BentoML configures the worker's logging (its ``tracehandler`` on the root and ``bentoml`` loggers) before
the service is imported; ``configure`` then adds the request-id filter to those handlers and, for json,
swaps their formatter, so BentoML's own lines, uvicorn's and ours come out alike.
"""

from __future__ import annotations

import json
import logging
import time

from opentelemetry import trace

from service.obs import request_context

# LogRecord attributes that are not "extra" fields
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
# BentoML's TraceRecordFilter decorations: its text format needs them, a JSON line does not
_BENTOML_DECORATIONS = {"levelname_bracketed", "component", "trace_msg", "request_id", "service_name"}


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


def _handlers() -> list[logging.Handler]:
    seen: list[logging.Handler] = []
    for name in ("", "bentoml", "uvicorn.error", "uvicorn.access", "zsc"):
        for handler in logging.getLogger(name).handlers:
            if handler not in seen:
                seen.append(handler)
    return seen


def configure(fmt: str) -> None:
    """After BentoML set up its handlers (in the serving CLI and in each worker): adds the request id to
    their lines, and for json swaps their formatter. Idempotent."""
    for handler in _handlers():
        if any(isinstance(f, RequestIdFilter) for f in handler.filters):
            continue
        handler.addFilter(RequestIdFilter())
        if fmt == "json":
            handler.setFormatter(JsonFormatter())
        else:
            handler.setFormatter(TextRequestIdFormatter(handler.formatter or logging.Formatter()))
    logging.getLogger("zsc").setLevel(logging.INFO)
