"""OpenAI's API shape under /v1, for its SDK and the clients built on it (``base_url=http://HOST:PORT/v1``):

POST /v1/decisions          ``client.decisions.create(...)``: typed answers to questions about one input
GET  /v1/models             ``client.models.list()``: the served models and their aliases (ZSC_MODEL_ALIASES)
GET  /v1/models/{model_id}  ``client.models.retrieve(id)``

Thin handlers (vLLM's router): the body is validated against OpenAI's request types
(``api.decisions.protocol``) and its input read as text (``adapters.input_text``), the questions are answered
below HTTP (``pipeline.decisions``: one ``ModelRegistry.classify`` call), the answer is written with
every field, ``null`` ones included (the SDK's tool runner and langchain-openai read ``name`` from every
answer). Errors come out in OpenAI's envelope with the statuses its SDK maps to its exceptions
(``http/errors.py``, by the path); the edge (keys, body bound, admission) treats these routes as it treats
``/classify``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.api.decisions.adapters import InputNotReadable, input_text
from service.api.decisions.protocol import DecisionCreateRequest
from service.errors import InvalidRequest
from service.http.classify_routes import parsed_body
from service.http.decisions_errors import validated
from service.http.edge.paths import DECISIONS
from service.http.errors import error_boundary

if TYPE_CHECKING:  # the pipeline's modules load the tokenizer's library: not at import time
    from service.pipeline.decisions import Decisions

T = TypeVar("T")


def routes(decisions: Decisions) -> list[Route]:
    @error_boundary
    async def create(request: Request) -> Response:
        decision, cache = await decisions.decide(await parsed(request, parse))
        return json_response(decision.model_dump_json(), {"X-Cache": cache})

    @error_boundary
    async def list_models(request: Request) -> Response:
        return json_response(decisions.model_list().model_dump_json())

    @error_boundary
    async def retrieve_model(request: Request) -> Response:
        return json_response(decisions.model_object(request.path_params["model_id"]).model_dump_json())

    return [
        Route(DECISIONS, create, methods=["POST"]),
        Route("/v1/models", list_models, methods=["GET"]),
        Route("/v1/models/{model_id}", retrieve_model, methods=["GET"]),
    ]


async def parsed(request: Request, parse: Callable[[bytes], T]) -> T:
    """The request's body through ``parse``, off the event loop when it is large."""
    return await parsed_body(await request.body(), parse)


def parse(body: bytes) -> DecisionCreateRequest:
    """The body as a decision request whose input has text to read; a 400 naming the first field at fault
    (``param``) otherwise."""
    request = validated(DecisionCreateRequest, body, '{"model", "input", "questions"}')
    try:
        input_text(request.input)
    except InputNotReadable as exc:
        raise InvalidRequest(f"input: {exc}", param="input") from None
    return request


def json_response(body: str, headers: dict[str, str] | None = None) -> Response:
    return Response(body, media_type="application/json", headers=headers)
