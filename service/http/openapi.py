"""The whole OpenAPI document: BentoML's (its APIs) with the routes mounted beside them (routes.py: label
sets, jobs) and the rules the service checks that BentoML's writer leaves out.

BentoML documents only its own APIs. ``paths()`` and ``components()`` describe the mounted ones in the
same document shape; ``merged`` joins them. ``/openapi.json`` serves it (the Swagger page at ``/`` shows
it), and ``clients/regenerate.py`` generates the typed client from it, so the client has ``submit_job``,
``job_status``, ``job_results``, ``cancel_job``, ``delete_job`` and ``label_sets``.

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
from service.config import DEFAULT_MODEL
from service.http import openapi_v1
from service.http.edge.paths import JSON_APIS, JSON_BODIES
from service.http.errors import openai_path

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


def _json(model: type[BaseModel]) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": REF.format(model=model.__name__)}}}


def _errors(*codes: int) -> dict[str, Any]:
    what = {400: "The request cannot be run as sent", 404: "No such job, label set or model",
            413: "Over ZSC_JOB_MAX_MB", 422: UNPROCESSABLE, 503: "The job store (Redis) does not answer"}  # fmt: skip
    return {str(c): {"description": what[c], "content": _json(ErrorBody)} for c in codes}


def _job_id() -> dict[str, Any]:
    return {"name": "job_id", "in": "path", "required": True, "schema": {"type": "string"}}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


JOB_OPERATIONS = ("job_status", "job_results", "cancel_job", "delete_job")


def _job_links(job_id: str) -> dict[str, Any]:
    """Links from an answer to every operation on its job; ``job_id``: where the id is (a runtime expression:
    the answer's body, or the request's path)."""
    return {op: {"operationId": op, "parameters": {"job_id": job_id}} for op in JOB_OPERATIONS}


def paths() -> dict[str, Any]:
    jobs, by_body, by_path = ["jobs"], _job_links("$response.body#/id"), _job_links("$request.path.job_id")
    status = {"description": "The job", "content": _json(JobStatus), "links": by_body}
    return {
        "/label_sets": {
            "get": {
                "operationId": "label_sets",
                "tags": ["classifier"],
                "summary": "The label sets this replica holds (ZSC_LABEL_SETS)",
                "responses": {"200": {"description": "Label sets", "content": _json(LabelSets)}},
            }
        },
        "/models": {
            "get": {
                "operationId": "models",
                "tags": ["classifier"],
                "summary": "The models this replica serves (ZSC_MODELS), the default first",
                "responses": {"200": {"description": "Models", "content": _json(ServedModels)}},
            }
        },
        "/jobs": {
            "post": {
                "operationId": "submit_job",
                "tags": jobs,
                "summary": "Classify many items in the background; poll the answer's id",
                "description": JobSubmission.__doc__,
                "requestBody": {"required": True, "content": _json(JobSubmission)},
                "responses": {
                    "202": {"description": "Queued", "content": _json(JobStatus), "links": by_body},
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
        "/jobs/{job_id}/results": {
            "get": {
                "operationId": "job_results",
                "tags": jobs,
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
                            **_json(JobResultsPage),
                            "application/x-ndjson": {"schema": {"type": "string"}},
                        },
                        "links": by_path,
                    },
                    **_errors(400, 404, 503),
                },
            }
        },
    }


def merged(spec: dict[str, Any], default_model: str = DEFAULT_MODEL) -> dict[str, Any]:
    """``spec`` (BentoML's document) with the mounted routes added; a schema name BentoML already uses for
    something else is an error here rather than a silently wrong client. ``default_model``: the replica's,
    which ready-made requests name."""
    out = {**spec, "paths": {**spec.get("paths", {}), **paths(), **openapi_v1.paths(default_model)}}
    schemas = dict(spec.get("components", {}).get("schemas", {}))
    for name, schema in {**components(), **openapi_v1.components()}.items():
        if name in schemas and schemas[name] != schema and name not in _SHARED:
            raise ValueError(f"OpenAPI schema {name!r} is defined by BentoML's document and by service/http/openapi.py")
        schemas.setdefault(name, schema)
    # With ZSC_API_KEYS every data endpoint wants a bearer key; without, none (the empty requirement)
    out["components"] = {
        **spec.get("components", {}),
        "schemas": schemas,
        "securitySchemes": {"apiKey": {"type": "http", "scheme": "bearer", "description": "ZSC_API_KEYS"}},
    }
    out["security"] = [{"apiKey": []}, {}]
    # BentoML documents its 400 with `detail` as a string; its validation errors send a list of pydantic
    # errors, and our own 400s `error_type` instead: describe what is really sent
    schemas["InvalidArgument"] = {
        "title": "InvalidArgument",
        "description": "Bad Request",
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {"type": "string", "title": "Error"},
            "error_type": {"type": "string", "title": "Error Type"},
            "detail": {
                "title": "Detail",
                "anyOf": [{"type": "array", "items": {"type": "object"}}, {"type": "string"}],
            },
        },
    }
    _refer_to_components(spec.get("paths", {}), schemas)
    for path in JSON_APIS:
        for op in out["paths"].get(path, {}).values():
            op["responses"]["422"] = {"description": UNPROCESSABLE, "content": _json(ErrorBody)}
            if "requestBody" in op:  # BentoML leaves it optional; without a body the answer is a 400
                op["requestBody"]["required"] = True
    _edge_responses(out["paths"])
    for name, rule in _CROSS_FIELD.items():  # BentoML's schema objects have no `not`: added here
        if name in schemas:
            schemas[name] = {**schemas[name], **rule}
    ours = [{"name": "jobs", "description": "Bulk jobs"}, {"name": openapi_v1.TAG, "description": "OpenAI's API shape"}]
    out["tags"] = [*spec.get("tags", []), *(ours if "tags" in spec else [])]
    return out


def _refer_to_components(paths_: dict[str, Any], schemas: dict[str, Any]) -> None:
    """BentoML writes each API's body and answer inline, keeping only the first branch of every union (so
    `"labels": "a, b"` and `"label_set": null` read as invalid); its components keep the whole schema. Point
    each inline schema at the component of the same title."""
    for operations in paths_.values():
        for op in operations.values():
            if not isinstance(op, dict):
                continue
            bodies = [op.get("requestBody", {}), *op.get("responses", {}).values()]
            for body in bodies:
                media = body.get("content", {}).get("application/json", {})
                title = media.get("schema", {}).get("title")
                if title in schemas:
                    media["schema"] = {"$ref": REF.format(model=title)}


_LABELS_OR_SET = {  # labels or label_set
    "anyOf": [
        {"required": ["labels"], "properties": {"labels": {"not": {"type": "null"}}}},
        {"required": ["label_set"], "properties": {"label_set": {"not": {"type": "null"}}}},
    ]
}

# Rules between fields that the models check in validators, stated in the document so that a request it
# calls valid is one the service accepts (null means "not given" everywhere)
_CROSS_FIELD: dict[str, dict[str, Any]] = {
    "LabelObject": {  # a description or a hypothesis, not both
        "not": {
            "required": ["description", "hypothesis"],
            "properties": {"description": {"not": {"type": "null"}}, "hypothesis": {"not": {"type": "null"}}},
        }
    },
    "ClassifyRequest": _LABELS_OR_SET,
    "ClassifyRequestIODescriptor": _LABELS_OR_SET,  # /classify's body, under BentoML's name for it
    "HfParameters": {  # candidate_labels or label_set
        "anyOf": [
            {"required": ["candidate_labels"], "properties": {"candidate_labels": {"not": {"type": "null"}}}},
            {"required": ["label_set"], "properties": {"label_set": {"not": {"type": "null"}}}},
        ]
    },
    "JobSubmission": {
        "allOf": [
            {  # items or texts, at least one item
                "anyOf": [
                    {"required": ["items"], "properties": {"items": {"type": "array", "minItems": 1}}},
                    {"required": ["texts"], "properties": {"texts": {"type": "array", "minItems": 1}}},
                ]
            },
            {  # labels or a label set for every item: shared, or each item's own (then no bare texts)
                "anyOf": [
                    *_LABELS_OR_SET["anyOf"],
                    {
                        "properties": {
                            "items": {"type": "array", "items": {"type": "object", **_LABELS_OR_SET}},
                            "texts": {"anyOf": [{"type": "null"}, {"type": "array", "maxItems": 0}]},
                        }
                    },
                ]
            },
        ]
    },
}

_EDGE = {
    "401": "No API key, or one that is not valid (when ZSC_API_KEYS is set)",
    "413": "The body is over ZSC_MAX_BODY_MB (ZSC_JOB_MAX_MB for jobs)",
    "415": "The body is not sent as application/json",
    "429": "Over ZSC_MAX_CONCURRENCY in flight, or the key's rate limit; see Retry-After",
}


def _edge_responses(paths_: dict[str, Any]) -> None:
    """What the HTTP edge (http/edge) may answer on any data endpoint, in every operation."""
    for path, operations in paths_.items():
        if path in ("/", "/livez", "/healthz", "/readyz", "/metrics") or path.startswith("/docs"):
            continue
        for method, op in operations.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            body = openapi_v1.error_schema() if openai_path(path) else _json(ErrorBody)
            for code, what in _EDGE.items():
                if code == "413" and method not in ("post", "put", "patch"):
                    continue
                if code == "415" and path not in JSON_BODIES:
                    continue
                op["responses"].setdefault(code, {"description": what, "content": body})


# nested models BentoML's document already has (the /classify request and answer): theirs are kept
_SHARED = {"ClassifyRequest", "ClassifyResponse", "LabelObject", "AnswerWarning"}
