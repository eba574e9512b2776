"""The routes mounted beside BentoML's APIs (``routes.py``: label sets, models, jobs), described in
OpenAPI's shape: their paths, and the JSON schemas of what they take and answer (``components``).

The job operations carry OpenAPI links (a job's id from the answer that names it to every operation on
it): what a client follows, and what schemathesis' stateful phase chains (submit, read, cancel, delete,
read again: a 404 once deleted).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from service.api.documents import ErrorBody, LabelSets, ServedModels
from service.api.jobs import JobResultsPage, JobStatus, JobSubmission

REF = "#/components/schemas/{model}"
UNPROCESSABLE = (
    "Valid by this document, but breaks a rule no JSON schema can state: label names unique once trimmed "
    "(a label object's name included); (text window, phrasing) pairs within ZSC_MAX_PAIRS_PER_REQUEST (for a "
    'batch, summed over its items); a text within the model\'s window with truncation "error"; windows '
    "within ZSC_MAX_WINDOWS"
)


MODELS: list[tuple[type[BaseModel], str]] = [
    (JobSubmission, "validation"),
    (JobStatus, "serialization"),
    (JobResultsPage, "serialization"),
    (LabelSets, "serialization"),
    (ServedModels, "serialization"),
    (ErrorBody, "serialization"),
]


def components() -> dict[str, Any]:
    """JSON schemas of every model the paths refer to (and what they nest), by name."""
    _, top = models_json_schema(MODELS, ref_template=REF)
    return top["$defs"]


def json_content(model: type[BaseModel]) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": REF.format(model=model.__name__)}}}


def _errors(*codes: int) -> dict[str, Any]:
    what = {400: "The request cannot be run as sent", 404: "No such job, label set or model",
            413: "Over ZSC_JOB_MAX_MB", 422: UNPROCESSABLE, 503: "The job store (Redis) does not answer"}  # fmt: skip
    return {str(c): {"description": what[c], "content": json_content(ErrorBody)} for c in codes}


def _job_id() -> dict[str, Any]:
    return {"name": "job_id", "in": "path", "required": True, "schema": {"type": "string"}}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


JOB_OPERATIONS = ("job_status", "job_results", "cancel_job", "delete_job")


def _job_links(job_id: str) -> dict[str, Any]:
    """Links from an answer to every operation on its job; ``job_id``: where the id is (a runtime expression:
    the answer's body, or the request's path)."""
    return {op: {"operationId": op, "parameters": {"job_id": job_id}} for op in JOB_OPERATIONS}


def _job_results_path(by_path: dict[str, Any]) -> dict[str, Any]:
    return {
        "/jobs/{job_id}/results": {
            "get": {
                "operationId": "job_results",
                "tags": ["jobs"],
                "summary": "A page of a job's finished items in order (?format=jsonl streams them all as JSON lines)",
                "parameters": [
                    _job_id(),
                    _query("offset", {"type": "integer", "minimum": 0, "maximum": 10**9, "default": 0}),
                    _query("limit", {"type": "integer", "minimum": 0, "maximum": 10_000, "default": 1000}),
                    _query("format", {"type": "string", "enum": ["json", "jsonl"], "default": "json"}),
                ],
                "responses": {
                    "200": {
                        "description": "A page (JSON), or every finished item as JSON lines (format=jsonl)",
                        "content": {
                            **json_content(JobResultsPage),
                            "application/x-ndjson": {"schema": {"type": "string"}},
                        },
                        "links": by_path,
                    },
                    **_errors(400, 404, 503),
                },
            }
        },
    }


def paths() -> dict[str, Any]:
    return {**_catalogue_paths(), **_job_paths()}


def _catalogue_paths() -> dict[str, Any]:
    """What this replica holds: its label sets and its models."""
    return {
        "/label_sets": {
            "get": {
                "operationId": "label_sets",
                "tags": ["classifier"],
                "summary": "The label sets this replica holds (ZSC_LABEL_SETS)",
                "description": "Each with its calibration; then every traffic calibration record this replica "
                "holds, any labels, per model and per scope the caller may see: its API key's and the shared one, "
                "never another key's.",
                "responses": {"200": {"description": "Label sets", "content": json_content(LabelSets)}},
            }
        },
        "/models": {
            "get": {
                "operationId": "models",
                "tags": ["classifier"],
                "summary": "The models this replica serves (ZSC_MODELS), the default first",
                "description": "Each with the runtime and precision it runs on and why: with ZSC_RUNTIME and "
                "ZSC_PRECISION auto, every candidate measured at start-up on this CPU (its texts/s, its agreement "
                "with fp32, refused when it disagrees); set by the operator: pinned, not verified.",
                "responses": {"200": {"description": "Models", "content": json_content(ServedModels)}},
            }
        },
    }


def _job_paths() -> dict[str, Any]:
    jobs, by_body, by_path = ["jobs"], _job_links("$response.body#/id"), _job_links("$request.path.job_id")
    status = {"description": "The job", "content": json_content(JobStatus), "links": by_body}
    return {
        "/jobs": {
            "post": {
                "operationId": "submit_job",
                "tags": jobs,
                "summary": "Classify many items in the background; poll the answer's id",
                "description": JobSubmission.__doc__,
                "requestBody": {"required": True, "content": json_content(JobSubmission)},
                "responses": {
                    "202": {"description": "Queued", "content": json_content(JobStatus), "links": by_body},
                    **_errors(400, 404, 413, 422, 503),
                },
            }
        },
        "/jobs/{job_id}": {
            "get": {
                "operationId": "job_status",
                "tags": jobs,
                "summary": "State, progress, timings and errors of a job",
                "parameters": [_job_id()],
                "responses": {"200": status, **_errors(404, 503)},
            },
            "delete": {
                "operationId": "delete_job",
                "tags": jobs,
                "summary": "Delete a job and its results (cancelled first if it runs); a 404 from then on",
                "parameters": [_job_id()],
                "responses": {
                    "204": {"description": "Deleted: the job and its results are gone", "links": by_path},
                    **_errors(404, 503),
                },
            },
        },
        "/jobs/{job_id}/cancel": {
            "post": {
                "operationId": "cancel_job",
                "tags": jobs,
                "summary": "Cancel a job: no chunk starts after this; it and its finished items stay readable "
                "(a finished job is left as it is)",
                "parameters": [_job_id()],
                "responses": {"200": status, **_errors(404, 503)},
            }
        },
        **_job_results_path(by_path),
    }
