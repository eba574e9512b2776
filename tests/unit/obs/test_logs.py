"""The logging setup's rule for BentoML's exception records: a client error's record is dropped, a server
error's kept with its traceback. Real BentoML and pydantic exceptions, through a real logger (the live
proof, a served 4xx's log: tests/integration/test_edge.py; a served 500's: test_error_path.py)."""

from __future__ import annotations

import logging

import pytest
from bentoml.exceptions import BadInput, BentoMLException, InternalServerError, NotFound
from pydantic import BaseModel, ValidationError

from service.obs import logs


class Body(BaseModel):
    text: str


def invalid_body() -> ValidationError:
    try:
        Body.model_validate({"text": 42})
    except ValidationError as exc:
        return exc
    raise AssertionError("unreachable")


@pytest.fixture
def records():
    """BentoML's http_app logger after ``configure``, with a handler that keeps what passes; what
    ``configure`` changed in the process's logging is put back after the test."""
    kept: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = kept.append
    logger = logging.getLogger(logs.BENTOML_HTTP_LOGGER)
    zsc = logging.getLogger("zsc")
    saved = [(h, list(h.filters), h.formatter) for h in logs._handlers()], zsc.level, list(logger.filters)
    logger.addHandler(handler)
    logs.configure("text")
    logs.configure("text")  # idempotent: one filter
    assert sum(isinstance(f, logs.ClientErrorFilter) for f in logger.filters) == 1
    yield logger, kept
    logger.removeHandler(handler)
    handlers, level, filters = saved
    for h, h_filters, formatter in handlers:
        h.filters[:] = h_filters
        h.setFormatter(formatter)
    zsc.setLevel(level)
    logger.filters[:] = filters


@pytest.mark.parametrize(
    ("exc", "kept"),
    [
        (invalid_body(), False),  # BentoML's 400 for a body that fails validation
        (BadInput("bad"), False),
        (NotFound("no"), False),
        (BentoMLException("media", error_code=415), False),
        (InternalServerError("boom"), True),
        (BentoMLException("unspecified"), True),  # BentoML's default status: 500
        (KeyError("a bug"), True),
        (RuntimeError("a bug"), True),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_client_errors_are_dropped_and_server_errors_kept(records, exc, kept):
    logger, passed = records
    try:
        raise exc
    except BaseException:
        logger.error("Exception on %s [%s]", "/classify", "POST", exc_info=True)  # BentoML's log_exception
    assert len(passed) == int(kept)
    if kept:
        assert passed[0].levelno == logging.ERROR and passed[0].exc_info[1] is exc


def test_records_without_an_exception_pass(records):
    logger, passed = records
    logger.error("an error without a traceback")
    assert len(passed) == 1
