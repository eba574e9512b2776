"""The whole OpenAPI document: BentoML's (its APIs) with the routes mounted beside them (``route_docs``:
label sets, models, jobs) and the rules the service checks that BentoML's writer leaves out.

BentoML documents only its own APIs; ``merged`` joins its document with ours. ``/openapi.json`` serves it
(the Swagger page at ``/`` shows it), and ``clients/regenerate.py`` generates the typed client from it, so
the client has ``submit_job``, ``job_status``, ``job_results``, ``cancel_job``, ``delete_job``,
``label_sets`` and ``models``.
"""

from __future__ import annotations

from typing import Any

from service.api.documents import ErrorBody
from service.config import DEFAULT_MODEL
from service.http import openapi_v1
from service.http.edge.paths import JSON_APIS, JSON_BODIES
from service.http.errors import openai_path
from service.http.route_docs import REF, UNPROCESSABLE, components, json_content, paths


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
            op["responses"]["422"] = {"description": UNPROCESSABLE, "content": json_content(ErrorBody)}
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
    "408": "The request's head or body did not arrive in time (ZSC_HEAD_TIMEOUT_S, ZSC_BODY_TIMEOUT_S)",
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
            body = openapi_v1.error_schema() if openai_path(path) else json_content(ErrorBody)
            for code, what in _EDGE.items():
                if code == "413" and method not in ("post", "put", "patch"):
                    continue
                if code == "415" and path not in JSON_BODIES:
                    continue
                op["responses"].setdefault(code, {"description": what, "content": body})


# nested models BentoML's document already has (the /classify request and answer): theirs are kept
_SHARED = {"ClassifyRequest", "ClassifyResponse", "LabelObject", "AnswerWarning"}
