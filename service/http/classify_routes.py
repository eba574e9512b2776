"""The classification APIs (/classify, /classify_batch, /hf/zero-shot-classification) answered by a plain ASGI
layer inside the edge, ahead of BentoML's router.

Why a layer of our own: on one pinned core, BentoML's way to an endpoint (its context middleware, the router,
the IO descriptor's validation and serialization, the endpoint wrapper, then our rewording of its 400) cost
about as much CPU as the rest of a request's path outside the model (docs/performance.md). Here a POST to one
of these paths is validated by its request model (pydantic, the limits in force, as BentoML validated it),
answered through ``ModelRegistry.classify`` and written with ``model_dump_json``; what surrounds it (keys, the
body bound, admission, the access line, BentoML's timeout and metrics) is unchanged. A body that fails
validation gets the 400 BentoML's would have been after ``FrameworkErrors`` reworded it, from the same rule
(``errors.validation_body``).

The service class still declares the three APIs (``http/app.py``): BentoML's OpenAPI document, its generated
client and ``bentoml.SyncHTTPClient`` read them, and a method these paths do not take reaches its router (405).
Those declarations answer through the same ``ClassifyRoutes``, so either way the answer is the same.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel, ValidationError

from service.api.classify import ClassifyBatchRequest, ClassifyBatchResponse, ClassifyRequest, ClassifyResponse
from service.api.hf import HfZeroShotAnswer, HfZeroShotOutput, HfZeroShotRequest
from service.core.classification import Classification
from service.http.errors import answered_error, send_error, validation_body
from service.http.sender import sender_of
from service.pipeline.call import Call, Sender

if TYPE_CHECKING:  # the pipeline's modules load the tokenizer's library: not at import time
    from service.pipeline.registry import ModelRegistry

PARSE_IN_THREAD_BYTES = 256 * 1024  # a larger body is validated off the event loop
Headers = dict[str, str]


async def parsed_body(body: bytes, parse: Callable[[bytes], Any]) -> Any:
    """``parse(body)``, off the event loop when the body is large."""
    if len(body) > PARSE_IN_THREAD_BYTES:
        return await anyio.to_thread.run_sync(parse, body)
    return parse(body)


class ClassifyRoutes:
    """What each classification API does with its validated request: the answer and its headers."""

    def __init__(self, models: ModelRegistry) -> None:
        self.models = models

    async def classify(self, request: ClassifyRequest, sender: Sender) -> tuple[ClassifyResponse, Headers]:
        [answer], headers = await self._classify([request.classification()], sender)
        return answer, headers

    async def classify_batch(
        self, request: ClassifyBatchRequest, sender: Sender
    ) -> tuple[ClassifyBatchResponse, Headers]:
        answers, headers = await self._classify([i.classification() for i in request.items], sender)
        return ClassifyBatchResponse(results=answers), headers

    async def hf_zero_shot(self, request: HfZeroShotRequest, sender: Sender) -> tuple[HfZeroShotOutput, Headers]:
        items = [r.classification() for r in request.requests()]  # a ValidationError: the 400 of a bad body
        answers, headers = await self._classify(items, sender)
        out = [HfZeroShotAnswer(sequence=i.text, labels=a.labels, scores=a.scores) for i, a in zip(items, answers)]
        return HfZeroShotOutput(out[0] if isinstance(request.inputs, str) else out), headers

    async def _classify(self, items: list[Classification], sender: Sender) -> tuple[list[ClassifyResponse], Headers]:
        answers = await self.models.classify(Call(tuple(items), sender=sender))
        headers = {"X-Cache": answers.cache}
        if answers.warnings:
            headers["X-ZSC-Warnings"] = ",".join(answers.warnings)
        return answers.results, headers  # type: ignore[return-value]  # a call, not a job: answers only


Answer = Callable[[Any, Sender], Awaitable[tuple[BaseModel, Headers]]]


class ClassifyTable:
    """Each path's request model and answer, empty until the worker's components exist (``bind``)."""

    def __init__(self) -> None:
        self.endpoints: dict[str, tuple[type[BaseModel], Answer]] = {}

    def bind(self, routes: ClassifyRoutes) -> None:
        self.endpoints = {
            "/classify": (ClassifyRequest, routes.classify),
            "/classify_batch": (ClassifyBatchRequest, routes.classify_batch),
            "/hf/zero-shot-classification": (HfZeroShotRequest, routes.hf_zero_shot),
        }


class ClassifyEndpoints:
    """The ASGI layer: a POST to a path of the bound table is answered here; anything else (and everything
    before the table is bound) goes on to BentoML."""

    def __init__(self, app: Any, table: ClassifyTable) -> None:
        self.app = app
        self.table = table

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        endpoints = self.table.endpoints
        endpoint = endpoints.get(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST" else None
        if endpoint is None:
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        model, answer = endpoint
        try:
            request = await parsed_body(await whole_body(receive), lambda b: model.model_validate_json(b or b"{}"))
            out, headers = await answer(request, sender_of(scope))
        except ValidationError as exc:
            await send_json(send, 400, invalid_body(exc), {})
        except Exception as exc:
            await send_error(send, answered_error(exc, answer.__name__), path)
        else:
            await send_json(send, 200, out.model_dump_json().encode(), headers)


def invalid_body(exc: ValidationError) -> bytes:
    """The 400's body: BentoML's for a body that fails validation, in the API's words."""
    bentoml_shape = {
        "error": f"{exc.error_count()} validation error for {exc.title}",
        "detail": exc.errors(include_context=False, include_input=False),
    }
    return json.dumps(validation_body(bentoml_shape) or bentoml_shape).encode()


async def whole_body(receive: Any) -> bytes:
    """The request's body (the edge's body layer has read it whole: one message)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def send_json(send: Any, status: int, body: bytes, headers: Headers) -> None:
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode("latin-1")) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
