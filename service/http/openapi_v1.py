"""The /v1 routes' part of the OpenAPI document (``http/decisions.py``: OpenAI's request and answer shapes;
``http/systemone.py``: System One's), joined into the whole document by ``openapi.merged``.

The request schema is pydantic's own of ``DecisionCreateRequest`` (discriminated unions as ``oneOf`` with
their mapping, choice values a string or a boolean, input parts text only); the rules it cannot state
(each tool output after its call, some text left to read, choices unique by value, the replica's limits)
are the documented 400. Every error is OpenAI's envelope (``OpenAIErrorBody``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from service.api.decisions.protocol import Decision, DecisionCreateRequest, ModelObject
from service.api.documents import OpenAIErrorBody
from service.api.systemone.protocol import ModelDirectory, SystemOneRequest, SystemOneResponse
from service.config import DEFAULT_MODEL

REF = "#/components/schemas/{model}"
TAG = "openai"
MODELS: list[tuple[type[BaseModel], str]] = [
    (DecisionCreateRequest, "validation"),
    (Decision, "serialization"),
    (ModelDirectory, "serialization"),
    (SystemOneRequest, "validation"),
    (SystemOneResponse, "serialization"),
    (ModelObject, "serialization"),
    (OpenAIErrorBody, "serialization"),
]
UNSTATED = (
    "The request cannot be answered as sent: what the schema states (the field is named in `param`), or a rule "
    "it cannot state: each tool output after the call it answers; some text to read once system and developer "
    "messages are left out; choices unique by value; the input and every instruction and option within "
    "ZSC_MAX_TEXT_CHARS; the (input window, phrasing) pairs within ZSC_MAX_PAIRS_PER_REQUEST, windows within "
    "ZSC_MAX_WINDOWS"
)


def components() -> dict[str, Any]:
    _, top = models_json_schema(MODELS, ref_template=REF)
    schemas = top["$defs"]
    schemas.pop("InputImage", None)  # only in input parts, which the document lists without it
    _same_property_names(schemas, schemas[SystemOneRequest.__name__]["properties"]["questions"]["additionalProperties"])
    return _enums(schemas)


def _same_property_names(schemas: dict[str, Any], union: dict[str, Any]) -> None:
    """Each variant of a union of closed objects (``additionalProperties: false``) names every variant's
    properties, those it does not take as a ``not: {}`` no value satisfies. The same bodies are valid; what
    changes is that the union's complement can be written: schemathesis' negative generation cannot complement
    three closed objects with different property sets, and stopped the operation with a Schema Error."""
    variants = [schemas[ref["$ref"].rsplit("/", 1)[-1]] for ref in union["oneOf"]]
    names = sorted({name for variant in variants for name in variant["properties"]})
    for variant in variants:
        kind = variant["properties"]["type"]["const"]
        for name in names:
            variant["properties"].setdefault(name, {"not": {}, "description": f"Not taken by a `{kind}` question"})


def _enums(schema: Any) -> Any:
    """JSON Schema's ``const`` (pydantic's Literal) as a one-value ``enum``: the document is OpenAPI 3.0,
    which has no ``const``, and a reader that ignores it would find every answer a refusal too."""
    if isinstance(schema, dict):
        out = {k: _enums(v) for k, v in schema.items() if k != "const"}
        if "const" in schema:
            out["enum"] = [schema["const"]]
        return out
    if isinstance(schema, list):
        return [_enums(v) for v in schema]
    return schema


def error_schema() -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": REF.format(model=OpenAIErrorBody.__name__)}}}


def _json(model: type[BaseModel]) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": REF.format(model=model.__name__)}}}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": error_schema()}


def paths(default_model: str = DEFAULT_MODEL) -> dict[str, Any]:
    """``default_model``: the model the ready-made request names (the replica's default: the Swagger page's
    "try it" and the fuzzer's examples reach an answer)."""
    unknown = _error("No such model (`model_not_found`): GET /v1/models lists the names and aliases it takes")
    example = {**DecisionCreateRequest.model_config["json_schema_extra"]["example"], "model": default_model}
    return {
        "/v1/decisions": {
            "post": {
                "operationId": "create_decision",
                "tags": [TAG],
                "summary": "OpenAI's Decisions API: typed answers (predicate, choice, score) about one input",
                "description": "`client.decisions.create(...)` of the openai SDK with `base_url=http://HOST:PORT/v1`; "
                "answers in question order, a question the service cannot answer a `refusal` (docs/decisions.md).",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {**_json(DecisionCreateRequest)["application/json"], "example": example}
                    },
                },
                "responses": {
                    "200": {
                        "description": "The answers, the model and the tokens it read",
                        "content": _json(Decision),
                        "headers": {"X-Cache": {"schema": {"type": "string", "enum": ["hit", "partial", "miss"]}}},
                    },
                    "400": _error(UNSTATED),
                    "404": unknown,
                },
            }
        },
        "/v1/systemone": system_one(default_model),
        "/v1/models": {
            "get": {
                "operationId": "list_openai_models",
                "tags": [TAG],
                "summary": "The served models and their aliases (ZSC_MODEL_ALIASES), as OpenAI's SDK (`data`) and "
                "TypeSafe's (`models`) list models",
                "responses": {"200": {"description": "Models", "content": _json(ModelDirectory)}},
            }
        },
        "/v1/models/{model_id}": {
            "get": {
                "operationId": "retrieve_openai_model",
                "tags": [TAG],
                "summary": "One model by name, tag or alias",
                "parameters": [{"name": "model_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "The model", "content": _json(ModelObject)}, "404": unknown},
            }
        },
    }


SYSTEM_ONE_UNSTATED = (
    "The request cannot be answered as sent: what the schema states (the field is named in `param`), or a rule "
    "it cannot state: a question's name not blank; a noul with instructions or a described outcome; an option "
    "with a name or a description; no `box` question and no `assets` (this service reads text only); the state "
    "and every instruction and option within ZSC_MAX_TEXT_CHARS; the (state window, phrasing) pairs within "
    "ZSC_MAX_PAIRS_PER_REQUEST, windows within ZSC_MAX_WINDOWS"
)


def system_one(default_model: str) -> dict[str, Any]:
    example = {**SystemOneRequest.model_config["json_schema_extra"]["example"], "model": default_model}
    unknown = _error("No such model (`model_not_found`): GET /v1/models lists the names and aliases it takes")
    return {
        "post": {
            "operationId": "system_one",
            "tags": ["systemone"],
            "summary": "The System One API (TypeSafe's shape): named noul, choice and score questions about a state",
            "description": "`client.system_one(state=..., questions=...)` of `typesafe-sdk` with "
            "`base_url=http://HOST:PORT`; answers keyed by the questions' names (docs/decisions.md).",
            "requestBody": {
                "required": True,
                "content": {"application/json": {**_json(SystemOneRequest)["application/json"], "example": example}},
            },
            "responses": {
                "200": {
                    "description": "The answers by question name, the model and the tokens it read",
                    "content": _json(SystemOneResponse),
                    "headers": {"X-Cache": {"schema": {"type": "string", "enum": ["hit", "partial", "miss"]}}},
                },
                "400": _error(SYSTEM_ONE_UNSTATED),
                "404": unknown,
            },
        }
    }
