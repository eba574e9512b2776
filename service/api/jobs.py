"""The shapes of the jobs API, for its OpenAPI document and the typed client (``service/http/openapi.py``).

The handlers build their answers from ``records.JobInfo`` and the stores' results; these models describe
the same JSON (tests compare them with live answers) and are never used to build it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, create_model

from service.api.classify import ClassifyRequest, ClassifyResponse
from service.api.limits import in_force
from service.api.schema_rules import schema_rules, text_rules

JobState = Literal["queued", "running", "done", "cancelled"]


def _shared_fields() -> dict:
    """Every /classify field but the text, optional and nullable (null means "not given": the intake drops
    it): a job's defaults for its items, and an item's own fields over them (with the field's constraints and
    the rules its schema states)."""
    out = {}
    for name, info in ClassifyRequest.model_fields.items():
        if name == "text":
            continue
        kind = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        # a job's items may use their own texts as the calibration sample: all of calibration's values
        extra = None if name == "calibration" else info.json_schema_extra
        out[name] = (kind | None, Field(default=None, description=info.description, json_schema_extra=extra))
    return out


def _job_items() -> dict[str, Any]:  # empty is allowed: `items: []` beside texts is no items
    return {"maxItems": in_force().job_max_items}


JobItem = create_model(
    "JobItem",
    __base__=ClassifyRequest,
    __doc__="A job item: a /classify body whose missing or null fields (labels included) come from the job's.",
    **_shared_fields(),
)


JobSubmission = create_model(
    "JobSubmission",
    __doc__=(
        "Items to classify in the background: `items` (classify bodies, or bare texts) and/or `texts`, with any "
        "other /classify field as a default for every item (an item's own fields win). A JSON-lines or CSV file "
        "can be posted instead: multipart `file` with these fields as form fields, or the file as the body "
        "(application/x-ndjson, text/csv) with them as query parameters."
    ),
    __config__=ConfigDict(extra="forbid"),
    items=(
        list[JobItem | StrictStr] | None,
        Field(
            default=None,
            description="Classify bodies or texts.",
            json_schema_extra=schema_rules(array=_job_items, item=text_rules),
        ),
    ),
    texts=(
        list[StrictStr] | None,
        Field(
            default=None,
            description="Texts, each classified with the shared fields.",
            json_schema_extra=schema_rules(array=_job_items, item=text_rules),
        ),
    ),
    **_shared_fields(),
)


class JobLinks(BaseModel):
    self_: str = Field(alias="self", description="This job's status.")
    results: str = Field(description="Its results.")
    cancel: str = Field(description="POST here to cancel it (DELETE on self deletes it and its results).")


class JobStatus(BaseModel):
    id: str = Field(description="The job's id (unguessable: whoever holds it can read, cancel and delete the job).")
    state: JobState
    total: int = Field(description="Items in the job.")
    done: int = Field(description="Items with a stored result (answers and item errors).")
    errors: int = Field(description="Of those, items answered with an error.")
    progress: float = Field(description="done / total.")
    chunks: int
    chunks_done: int
    created: float = Field(description="Unix time.")
    started: float | None = None
    finished: float | None = None
    elapsed_s: float = Field(description="From the first chunk taken to the end (or now).")
    items_per_s: float | None = None
    ttl_s: int = Field(description="The job and its results are kept this long once it has ended (done or cancelled).")
    backend: Literal["redis", "memory"] = Field(description="redis: any replica answers for it; memory: this one.")
    estimated: int | None = Field(
        default=None,
        description='Items asking for calibration "job": chunks whose texts are in the job\'s sample so far (the '
        "estimate pass, before any is answered); null when no item does.",
    )
    links: JobLinks


class JobAnswer(ClassifyResponse):
    index: int = Field(description="The item's position in the job (0-based).")


class JobItemError(BaseModel):
    index: int = Field(description="The item's position in the job (0-based).")
    error: str = Field(description="What went wrong with this item.")
    error_type: str = Field(description="invalid_request, label_set_not_found, backend_error, job_item_failed")


class JobResultsPage(BaseModel):
    id: str
    state: JobState
    offset: int
    limit: int
    results: list[JobAnswer | JobItemError] = Field(description="The finished items of the page, in order.")
    next_offset: int | None = Field(description="Where the next page starts; null on the last page.")
    complete: bool = Field(description="Whether every item of this page is finished.")
