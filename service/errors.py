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

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.message)

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


class LabelSetNotFound(ServiceError):
    """A request names a label set the service does not hold."""

    error_type = "label_set_not_found"

    def __init__(self, name: str, available: list[str]) -> None:
        have = ", ".join(sorted(available)) if available else "none (ZSC_LABEL_SETS is not set or empty)"
        super().__init__(f"unknown label set {name!r}; the service holds: {have}")


class ModelNotFound(ServiceError):
    """A request names a model this replica does not serve (ZSC_MODELS)."""

    error_type = "model_not_found"

    def __init__(self, name: str, available: list[str]) -> None:
        super().__init__(f"unknown model {name!r}; this replica serves: {', '.join(available)} (GET /models)")


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
            f"no job {job_id!r}: it was never submitted, or it expired (a job is kept {ttl_s} s after its last "
            "progress, ZSC_JOB_TTL_S)"
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


class ModelOverloaded(ServiceError):
    """A replica serving several models: this model holds as many calls as it answers within the target
    latency (its own learned limit); the others may still have room."""

    error_type = "overloaded"

    def __init__(self, model: str, in_flight: int, goal_s: float, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(
            f"model {model!r} holds {in_flight} requests, as many as it answers within {goal_s * 1000:.0f} ms "
            "(ZSC_TARGET_LATENCY_MS); retry after the Retry-After seconds, or add replicas"
        )


class BackendFailure(ServiceError):
    """The model failed on the batch this request was merged into; every request of that batch gets it."""

    error_type = "backend_error"

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"inference failed: {cause}")


class InternalError(ServiceError):
    """Anything else: a bug of ours. The body stays generic; the traceback goes to the log."""

    error_type = "internal_error"
    message = "internal error: the request could not be completed; the server log has the details"
