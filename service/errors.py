"""The service's own errors, raised by every layer below HTTP: each has a stable ``error_type`` and a message
that says what to change. Which HTTP status each one is answered with is the HTTP layer's business, in one
table (``service.http.errors``); a job item that fails gets ``{"error", "error_type"}`` from the same
errors. Nothing here imports anything.
"""

from __future__ import annotations

from typing import ClassVar


class ServiceError(Exception):
    """An error with a documented type and message."""

    error_type: ClassVar[str]
    message: ClassVar[str] = ""  # errors that always say the same thing
    retry_after_s: int | None = None  # when to come back, for the errors that say (Retry-After)
    param: str | None = None  # the request field it is about, when one is (OpenAI's error envelope names it)

    def __init__(self, message: str | None = None, *, param: str | None = None) -> None:
        super().__init__(message or self.message)
        if param is not None:
            self.param = param

    def body(self) -> dict[str, str]:
        return {"error": str(self), "error_type": self.error_type}


class InvalidRequest(ServiceError):
    """A request that breaks the API's document, found outside the schema validation of the request models
    (a job's items, lines or rows; a query parameter)."""

    error_type = "invalid_request"


class UnprocessableRequest(InvalidRequest):
    """A request the document calls valid that breaks a rule no JSON schema can state: label names unique
    once trimmed, (text window, phrasing) pairs within ZSC_MAX_PAIRS_PER_REQUEST, a text within the model's
    window with truncation "error", windows within ZSC_MAX_WINDOWS."""

    error_type = "unprocessable_request"


class WindowsOverLimit(UnprocessableRequest):
    """A text whose windows, known only once tokenized, come to more than ZSC_MAX_WINDOWS, or (each read
    with every phrasing) to more pairs than ZSC_MAX_PAIRS_PER_REQUEST: the text is too long for the call."""


class LabelSetNotFound(ServiceError):
    """A request names a label set the service does not hold."""

    error_type = "label_set_not_found"
    param = "label_set"

    def __init__(self, name: str, available: list[str]) -> None:
        have = ", ".join(sorted(available)) if available else "none (ZSC_LABEL_SETS is not set or empty)"
        super().__init__(f"unknown label set {name!r}; the service holds: {have}")


class ModelNotFound(ServiceError):
    """A request names a model this replica does not serve (ZSC_MODELS)."""

    error_type = "model_not_found"
    param = "model"

    def __init__(self, name: str, available: list[str], listed_at: str = "GET /models") -> None:
        super().__init__(f"unknown model {name!r}; this replica serves: {', '.join(available)} ({listed_at})")


class NotInStore(ModelNotFound):
    """An admin call names a model the model store does not hold."""

    def __init__(self, name: str) -> None:
        ServiceError.__init__(
            self, f"model {name!r} is not in the model store: import it first (zsc import-model SOURCE --name NAME)"
        )


class LastModel(ServiceError):
    """An admin call would leave the replica without a model."""

    error_type = "last_model"

    def __init__(self, name: str) -> None:
        super().__init__(f"{name!r} is the only model this replica serves: load another before unloading it")


class ManyWorkers(ServiceError):
    """An admin call reaches one worker process of several: the others would keep their models."""

    error_type = "many_workers"

    def __init__(self, workers: int) -> None:
        super().__init__(
            f"this replica runs {workers} worker processes (ZSC_WORKERS) and an admin call reaches only one of "
            "them: change the models through the models file (ZSC_MODELS_FILE), which every worker follows"
        )


class ModelTooLarge(ServiceError):
    """A model would not fit in the memory the replica may still use; it is not loaded."""

    error_type = "insufficient_memory"


class JobNotFound(ServiceError):
    """A job id this service does not know: never submitted, or its results expired."""

    error_type = "job_not_found"

    def __init__(self, job_id: str, ttl_s: int) -> None:
        super().__init__(
            f"no job {job_id!r}: it was never submitted, or it expired (a job is kept {ttl_s} s after it ended, "
            "ZSC_JOB_TTL_S)"
        )


class PayloadTooLarge(ServiceError):
    """A job upload over ZSC_JOB_MAX_MB, refused before it is read to the end."""

    error_type = "payload_too_large"


class JobStoreUnavailable(ServiceError):
    """The job store (Redis) does not answer; interactive classification is unaffected."""

    error_type = "job_store_unavailable"


class Overloaded(ServiceError):
    """Adaptive batching predicted this request would wait past ZSC_MAX_LATENCY_MS and shed it."""

    error_type = "overloaded"
    message = "the service is overloaded: this request would wait past ZSC_MAX_LATENCY_MS; retry later"


class AtCapacity(ServiceError):
    """The replica, or one model of a replica serving several, holds as many requests as it answers within
    the target latency (its learned limit) or its hard bound (ZSC_MAX_CONCURRENCY): come back after
    ``retry_after_s`` (``service.admission`` words the message)."""

    error_type = "overloaded"

    def __init__(self, message: str, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(f"{message}; retry after the Retry-After seconds, or add replicas")


class ShuttingDown(ServiceError):
    """The replica got SIGTERM: it finishes the requests it holds and takes no new one (``http/drain.py``);
    another replica answers this one (nginx retries a 503 on the next at once)."""

    error_type = "shutting_down"

    def __init__(self, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__("this replica is shutting down: send the request again, another replica answers it")


class BodiesOverBudget(Overloaded):
    """A worker already holds ZSC_BODY_BUFFER_MB of request bodies still being received."""

    def __init__(self, budget_mb: int, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        ServiceError.__init__(
            self,
            f"this replica is receiving {budget_mb} MB of request bodies at once (ZSC_BODY_BUFFER_MB): retry after "
            "the Retry-After seconds, or send smaller bodies",
        )


# -- the HTTP edge's refusals (before a request reaches an endpoint) ----------------------------------
class Unauthorized(ServiceError):
    """No bearer key where keys are configured, or one that is not valid (``invalid``: RFC 6750's
    ``invalid_token``)."""

    error_type = "unauthorized"

    def __init__(self, message: str, invalid: bool = False) -> None:
        self.invalid = invalid
        super().__init__(message)


class Forbidden(ServiceError):
    """A valid key that may not call this route (a data key on the admin API), or the admin API is off."""

    error_type = "forbidden"


class NoRoute(ServiceError):
    """A path the API does not have."""

    error_type = "not_found"

    def __init__(self, method: str, path: str) -> None:
        super().__init__(f"no such endpoint: {method} {path!r}; the API is described at /openapi.json")


class NotThisRole(ServiceError):
    """A path a replica of this role does not serve (``ZSC_ROLE=jobs``: only the probes and /metrics)."""

    error_type = "not_found"

    def __init__(self, method: str, path: str, role: str, served: tuple[str, ...]) -> None:
        super().__init__(
            f"this replica runs jobs only (ZSC_ROLE={role}): it serves {', '.join(served)}, not {method} {path!r}; "
            "send requests to the service's api replicas"
        )


class MethodNotAllowed(ServiceError):
    """A path the API has, asked with a method it does not take (``allow``: the ones it takes)."""

    error_type = "method_not_allowed"

    def __init__(self, method: str, path: str, allow: str) -> None:
        self.allow = allow
        super().__init__(f"{path!r} does not take {method}; it takes {allow}")


class UnsupportedMediaType(ServiceError):
    """A body in a media type the route does not read."""

    error_type = "unsupported_media_type"


class RateLimited(ServiceError):
    """A key over its rate (ZSC_RATE_LIMIT_RPS)."""

    error_type = "rate_limited"

    def __init__(self, rate: float, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(
            f"rate limit: this key may send {rate:g} requests/s (ZSC_RATE_LIMIT_RPS); retry after {retry_after_s} s"
        )


class RequestTimeout(ServiceError):
    """A client that did not send its request's head or body in time (ZSC_HEAD_TIMEOUT_S, ZSC_BODY_TIMEOUT_S);
    the connection is closed after this answer."""

    error_type = "request_timeout"


class HeadTooLarge(ServiceError):
    """A request line and headers over the bound, refused before they are read to the end."""

    error_type = "request_header_fields_too_large"


class BackendFailure(ServiceError):
    """The model failed on the batch this request was merged into; every request of that batch gets it."""

    error_type = "backend_error"

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"inference failed: {cause}")


class InternalError(ServiceError):
    """Anything else: a bug of ours. The body stays generic; the traceback goes to the log."""

    error_type = "internal_error"
    message = "internal error: the request could not be completed; the server log has the details"
