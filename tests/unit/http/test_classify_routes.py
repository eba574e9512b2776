"""The classification APIs' own ASGI layer (``service/http/classify_routes.py``) around a registry that answers
from the call it gets: what it answers itself, in which words, and what it leaves to BentoML. The same routes
over HTTP, against the real model: the integration tests (test_http_api, test_bad_input, test_error_path)."""

from __future__ import annotations

import asyncio
import json
import logging

from service.api.classify import CalibrationApplied, ClassifyResponse
from service.errors import ModelNotFound
from service.http.classify_routes import ClassifyEndpoints, ClassifyRoutes, ClassifyTable
from service.pipeline.call import Call, Sender
from service.pipeline.pipeline import Answers

LABELS = ["billing", "shipping"]


class Registry:
    """Answers every classification with its labels in order (scores 0.75, 0.25), or raises ``fail``."""

    def __init__(self, fail: Exception | None = None) -> None:
        self.calls: list[Call] = []
        self.fail = fail

    async def classify(self, call: Call) -> Answers:
        self.calls.append(call)
        if self.fail is not None:
            raise self.fail
        results = [answer([label.name for label in item.labels]) for item in call.items]
        return Answers(results, cache="miss", warnings=["long_text"])


def answer(labels: list[str]) -> ClassifyResponse:
    return ClassifyResponse(
        labels=labels,
        scores=[0.75, 0.25][: len(labels)],
        multi_label=False,
        predicted=labels[0],
        truncated=False,
        windows=1,
        model="m:1",
        revision="r",
        calibration=CalibrationApplied(mode="none", calibrated=False, texts=None),
    )


def inner_app():
    reached: list[dict] = []

    async def app(scope: dict, receive, send) -> None:
        reached.append(scope)
        await send({"type": "http.response.start", "status": 405, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"from BentoML"})

    app.reached = reached
    return app


def layer(registry: Registry | None, app=None) -> ClassifyEndpoints:
    table = ClassifyTable()
    if registry is not None:
        table.bind(ClassifyRoutes(registry))  # type: ignore[arg-type]  # answers as the registry does
    return ClassifyEndpoints(app or inner_app(), table)


def post(endpoints: ClassifyEndpoints, path: str, body: bytes, method: str = "POST") -> tuple[int, dict, bytes]:
    scope = {"type": "http", "method": method, "path": path, "headers": [], "client": ("10.0.0.7", 5000)}
    scope["state"] = {"zsc_key_id": "k1"}
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(endpoints(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def test_a_classification_is_answered_here_with_its_cache_status_warnings_and_sender():
    registry = Registry()
    status, headers, body = post(layer(registry), "/classify", json.dumps({"text": "t", "labels": LABELS}).encode())
    assert status == 200 and headers["content-type"] == "application/json"
    assert headers["x-cache"] == "miss" and headers["x-zsc-warnings"] == "long_text"
    assert int(headers["content-length"]) == len(body)
    assert json.loads(body) == answer(LABELS).model_dump(mode="json")
    [call] = registry.calls
    assert call.sender == Sender(key="k1", address="10.0.0.7") and not call.job


def test_a_batch_and_the_hugging_face_shape_answer_each_text():
    registry = Registry()
    items = {"items": [{"text": "a", "labels": LABELS}, {"text": "b", "labels": ["x", "y", "z"]}]}
    status, _, body = post(layer(registry), "/classify_batch", json.dumps(items).encode())
    assert status == 200 and [r["labels"] for r in json.loads(body)["results"]] == [LABELS, ["x", "y", "z"]]

    hf = {"inputs": ["one", "two"], "parameters": {"candidate_labels": LABELS}}
    status, _, body = post(layer(registry), "/hf/zero-shot-classification", json.dumps(hf).encode())
    assert status == 200
    assert json.loads(body) == [{"sequence": s, "labels": LABELS, "scores": [0.75, 0.25]} for s in ("one", "two")]


def test_a_body_that_fails_validation_is_a_400_in_the_apis_words_and_reaches_no_model():
    registry = Registry()
    status, _, body = post(layer(registry), "/classify", b'{"text": "t", "labels": ["a"], "colour": 1}')
    assert status == 400 and registry.calls == []
    answer_ = json.loads(body)
    assert answer_["error"] == "1 validation error for ClassifyRequest: colour: Extra inputs are not permitted"
    assert {"loc": ["colour"], "msg": "Extra inputs are not permitted", "type": "extra_forbidden"} in answer_["detail"]

    status, _, body = post(layer(registry), "/classify", b'{"text": ')
    assert status == 400 and json.loads(body)["detail"][0]["type"] == "json_invalid"


def test_a_typed_error_gets_its_status_and_anything_else_a_logged_500(caplog):
    status, _, body = post(
        layer(Registry(ModelNotFound("x", ["m"]))), "/classify", b'{"text": "t", "labels": ["a","b"]}'
    )
    assert status == 404 and json.loads(body)["error_type"] == "model_not_found"

    with caplog.at_level(logging.ERROR, logger="zsc.http"):
        status, _, body = post(layer(Registry(KeyError("bug"))), "/classify", b'{"text": "t", "labels": ["a","b"]}')
    assert status == 500 and json.loads(body)["error_type"] == "internal_error" and "bug" not in body.decode()
    assert "unexpected error in classify" in caplog.text and "KeyError: 'bug'" in caplog.text


def test_other_methods_paths_and_an_unbound_table_go_on_to_bentoml():
    app = inner_app()
    assert post(layer(Registry(), app), "/classify", b"", method="GET")[0] == 405
    assert post(layer(Registry(), app), "/label_sets", b"{}")[0] == 405
    assert post(layer(None, app), "/classify", b'{"text": "t", "labels": ["a","b"]}')[0] == 405
    assert [s["path"] for s in app.reached] == ["/classify", "/label_sets", "/classify"]
