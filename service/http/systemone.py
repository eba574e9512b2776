"""The System One API under /v1, for TypeSafe's SDK and the tools built on it (``base_url=http://HOST:PORT``):

POST /v1/systemone   ``client.system_one(state=..., questions=...)``: answers to named questions about a state

(``GET /v1/models``, which both SDKs read: ``http/decisions.py``.) A thin handler: the body is validated
against System One's request types (``api.systemone.protocol``), the questions are answered below HTTP
(``pipeline.systemone``: the Decisions API's one ``ModelRegistry.classify`` call). Errors come out in the
/v1 envelope, whose ``error.message`` TypeSafe's SDK reads, with the statuses it maps to its exceptions
(400 ``TypeSafeBadRequestError``, 401, 404, 429 with ``Retry-After``...); the edge treats the route as it
treats ``/v1/decisions``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.api.systemone.protocol import SystemOneRequest
from service.http.decisions import json_response, parsed
from service.http.decisions_errors import validated
from service.http.edge.paths import SYSTEM_ONE
from service.http.errors import error_boundary

if TYPE_CHECKING:  # the pipeline's modules load the tokenizer's library: not at import time
    from service.pipeline.systemone import SystemOne


def routes(system_one: SystemOne) -> list[Route]:
    @error_boundary
    async def answer(request: Request) -> Response:
        answered, cache = await system_one.answer(await parsed(request, parse))
        return json_response(answered.model_dump_json(), {"X-Cache": cache})

    return [Route(SYSTEM_ONE, answer, methods=["POST"])]


def parse(body: bytes) -> SystemOneRequest:
    """The body as a System One request; a 400 naming the first field at fault (``param``) otherwise."""
    return validated(SystemOneRequest, body, '{"model", "state", "questions"}')
