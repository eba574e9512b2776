"""One table of error types and their HTTP status; every error body is ``{error, error_type}``.

Validation errors are raised by the schemas and answered by BentoML itself with 400 and a ``detail``
list (see README's error table); these are the errors the service raises on its own.
"""

from __future__ import annotations

from starlette.responses import JSONResponse

STATUS = {
    "validation_error": 400,  # BentoML's own answer to a schema violation
    "overloaded": 503,  # adaptive batching predicted a wait past ZSC_MAX_LATENCY_MS
    "backend_error": 500,  # the model failed on this batch; every request of the batch gets it
}


def error_response(error_type: str, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "error_type": error_type}, status_code=STATUS[error_type])
