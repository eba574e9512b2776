"""The framework's own error answers, in the API's words (the innermost layer, next to BentoML):

- BentoML's 400 for a JSON API's body that fails validation (``{"error": "N validation error for X",
  "detail": [...]}``) reworded by ``errors.validation_body``: the public schema's name, field paths without
  pydantic's internals;
- the router's plain-text "Not Found" for a path the API does not have: the JSON 404 of ``NoRoute``;
  its "Method Not Allowed": the JSON 405 of ``MethodNotAllowed``, with the same ``Allow`` header;

each in the shape of the path's API (``errors.body_of``: OpenAI's envelope under /v1).
"""

from __future__ import annotations

import json
from typing import Any

from service.errors import MethodNotAllowed, NoRoute, ServiceError
from service.http.edge.paths import JSON_APIS
from service.http.errors import send_error, validation_body


class FrameworkErrors:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: dict[str, Any] = {}  # "start": a 400 held until its body is complete; "dropped": a replaced answer

        async def reworded(message: dict) -> None:
            if "dropped" in held:
                return  # the rest of the router's plain-text answer, replaced
            if message["type"] == "http.response.start" and not held:
                if message["status"] in (404, 405) and _media(message, b"text/plain"):
                    held["dropped"] = True
                    await send_error(send, _router_error(scope, message), scope["path"])
                    return
                if message["status"] == 400 and scope["path"] in JSON_APIS and _media(message, b"application/json"):
                    held["start"], held["body"] = message, b""
                    return
            if "start" in held and message["type"] == "http.response.body":
                held["body"] += message.get("body", b"")
                if message.get("more_body"):
                    return
                await _send_reworded(send, held.pop("start"), held.pop("body"))
                return
            await send(message)

        await self.app(scope, receive, reworded)


async def _send_reworded(send: Any, start: dict, body: bytes) -> None:
    try:
        reworded = validation_body(json.loads(body))
    except ValueError:
        reworded = None
    if reworded is not None:
        body = json.dumps(reworded).encode()
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
    await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _router_error(scope: dict, start: dict) -> ServiceError:
    if start["status"] == 404:
        return NoRoute(scope["method"], scope["path"])
    allow = next((v.decode("latin-1") for k, v in start.get("headers", []) if k.lower() == b"allow"), "")
    return MethodNotAllowed(scope["method"], scope["path"], allow)


def _media(start: dict, media: bytes) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(media) for k, v in start.get("headers", []))
