"""The edge's layers (``service/http/edge/``) one at a time, as ASGI apps around a small inner app: what each
lets through, what it answers itself and in which words, what it adds to the answers that pass. The body
layer has its own module (test_body_reader.py); the whole edge is driven over HTTP by the integration tests.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest

from service.admission.gate import Admission
from service.config import Settings
from service.http.edge.access import Access
from service.http.edge.admit import Admit
from service.http.edge.framework import FrameworkErrors
from service.http.edge.paths import header, under
from service.http.edge.request_log import RequestLog

KEY = "zsc-unit-key-9a8b7c"
ADMIN_KEY = "zsc-unit-admin-1f2e3d"


def scope(path: str = "/classify", method: str = "POST", **headers: str) -> dict:
    encoded = [(k.replace("_", "-").lower().encode(), v.encode()) for k, v in headers.items()]
    return {"type": "http", "method": method, "path": path, "headers": encoded}


def answering(status: int = 200, body: bytes = b"{}", headers: list | None = None):
    """An inner app that answers ``status`` with ``body``, and records that it was reached."""
    reached: list[dict] = []

    async def app(scope_: dict, receive, send) -> None:
        reached.append(scope_)
        start_headers = [(b"content-type", b"application/json"), *(headers or [])]
        await send({"type": "http.response.start", "status": status, "headers": start_headers})
        await send({"type": "http.response.body", "body": body})

    app.reached = reached
    return app


def call(layer, request: dict) -> tuple[int, dict, dict]:
    """Run one request through ``layer``: (status, headers, JSON body) as the client gets them."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(layer(request, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, json.loads(body) if body else {}


# -- paths ---------------------------------------------------------------------------------------------


def test_under_matches_a_prefix_only_at_a_path_boundary():
    assert under("/jobs", ("/jobs",)) and under("/jobs/abc/results", ("/jobs",))
    assert not under("/jobsx", ("/jobs",)) and not under("/", ("/jobs",))


def test_header_reads_one_header_by_its_lower_case_name():
    request = scope(x_request_id="abc", content_type="application/json")
    assert header(request, b"x-request-id") == "abc" and header(request, b"authorization") is None


# -- request_log ---------------------------------------------------------------------------------------


def test_every_answer_carries_the_clients_request_id_or_a_new_one():
    layer = RequestLog(answering(headers=[(b"x-request-id", b"from-the-app")]), retry_after_s=1)
    _, headers, _ = call(layer, scope(x_request_id="client-id-1"))
    assert headers["x-request-id"] == "client-id-1"
    _, made, _ = call(layer, scope(x_request_id="two words"))  # not a plain token: a new one
    assert made["x-request-id"] not in ("two words", "from-the-app") and len(made["x-request-id"]) >= 16


@pytest.mark.parametrize("status", [429, 503])
def test_a_shed_answer_without_retry_after_gets_the_configured_one(status):
    _, headers, _ = call(RequestLog(answering(status), retry_after_s=7), scope())
    assert headers["retry-after"] == "7"
    _, own, _ = call(RequestLog(answering(status, headers=[(b"retry-after", b"2")]), retry_after_s=7), scope())
    assert own["retry-after"] == "2", "the answer's own wait is kept"
    _, ok, _ = call(RequestLog(answering(200), retry_after_s=7), scope())
    assert "retry-after" not in ok


def test_one_access_line_per_request_none_for_probes(caplog):
    layer = RequestLog(answering(200, headers=[(b"x-cache", b"hit")]), retry_after_s=1)
    with caplog.at_level(logging.INFO, logger="zsc.access"):
        call(layer, scope("/classify"))
        call(layer, scope("/readyz", method="GET"))
        call(layer, scope("/metrics", method="GET"))
    lines = [r for r in caplog.records if r.name == "zsc.access"]
    assert [r.getMessage() for r in lines] == ["POST /classify 200"]
    assert lines[0].endpoint == "/classify" and lines[0].cache == "hit" and lines[0].duration_ms >= 0


# -- access --------------------------------------------------------------------------------------------


def access(inner=None, **env: str) -> Access:
    settings = Settings.from_env({"ZSC_API_KEYS": KEY, "ZSC_ADMIN_KEYS": ADMIN_KEY, **env})
    return Access(inner or answering(), settings)


def test_a_data_endpoint_without_a_key_is_401_and_never_reaches_the_app():
    inner = answering()
    status, headers, body = call(access(inner), scope("/classify"))
    assert status == 401 and headers["www-authenticate"].startswith("Bearer realm=")
    assert body["error_type"] == "unauthorized" and "Authorization: Bearer" in body["error"]
    wrong, headers, _ = call(access(inner), scope("/classify", authorization="Bearer not-a-key"))
    assert wrong == 401 and 'error="invalid_token"' in headers["www-authenticate"]
    assert inner.reached == []


def test_a_valid_key_passes_with_its_id_and_probes_need_none():
    inner = answering()
    assert call(access(inner), scope("/classify", authorization=f"Bearer {KEY}"))[0] == 200
    assert inner.reached[0]["state"]["zsc_key_id"] and KEY not in inner.reached[0]["state"]["zsc_key_id"]
    assert call(access(inner), scope("/readyz", method="GET"))[0] == 200


def test_under_v1_a_refusal_is_in_openais_envelope():
    status, _, body = call(access(), scope("/v1/decisions"))
    assert status == 401 and body["error"]["type"] == "authentication_error" and body["error"]["code"] == "unauthorized"


def test_the_admin_api_takes_admin_keys_only():
    inner = answering()
    assert call(access(inner), scope("/admin/models", authorization=f"Bearer {ADMIN_KEY}"))[0] == 200
    status, _, body = call(access(inner), scope("/admin/models", authorization=f"Bearer {KEY}"))
    assert status == 403 and "ZSC_ADMIN_KEYS" in body["error"]
    off = Access(answering(), Settings.from_env({"ZSC_API_KEYS": KEY}))
    assert call(off, scope("/admin/models", authorization=f"Bearer {KEY}"))[0] == 403


def test_a_key_over_its_rate_is_429_with_the_seconds_to_wait():
    layer = access(ZSC_RATE_LIMIT_RPS="1", ZSC_RATE_LIMIT_BURST="2")
    statuses = [call(layer, scope("/classify", authorization=f"Bearer {KEY}")) for _ in range(3)]
    assert [s for s, _, _ in statuses] == [200, 200, 429]
    _, headers, body = statuses[-1]
    assert body["error_type"] == "rate_limited" and "ZSC_RATE_LIMIT_RPS" in body["error"]


# -- admit ---------------------------------------------------------------------------------------------


def test_past_the_hard_bound_a_request_is_429_and_its_place_is_given_back():
    admission = Admission(target_s=None, max_in_flight=1)
    admission.serve(["m"])
    blocker = admission.enter()  # one request already in flight
    inner = answering()
    status, _, body = call(Admit(inner, admission, hold_s=0), scope("/classify"))
    assert status == 429 and body["error_type"] == "overloaded" and inner.reached == []
    assert call(Admit(inner, admission), scope("/readyz", method="GET"))[0] == 200, "probes are never counted"
    admission.leave(blocker, 0.0)
    assert call(Admit(inner, admission), scope("/classify"))[0] == 200
    assert admission.in_flight == 0, "the place is given back when the call is over"


def test_a_stopping_replica_refuses_at_once_with_503_and_still_answers_probes():
    admission = Admission(target_s=None, max_in_flight=8)
    admission.serve(["m"])
    admission.stop()
    inner = answering()
    started = time.perf_counter()
    status, headers, body = call(Admit(inner, admission, hold_s=1.0), scope("/classify"))
    assert status == 503 and body["error_type"] == "shutting_down" and inner.reached == []
    assert time.perf_counter() - started < 0.5, "a stopping replica's refusal is never held"
    assert call(Admit(inner, admission), scope("/livez", method="GET"))[0] == 200


def test_a_refusal_is_held_before_it_is_sent_up_to_a_bound_of_held_ones():
    """A client that asks again at once is slowed to one refusal per hold; past ``max_held`` at once, the
    refusals go out at once (a held one keeps its connection)."""
    admission = Admission(target_s=None, max_in_flight=1)
    admission.serve(["m"])
    admission.enter()
    layer = Admit(answering(), admission, hold_s=0.3, max_held=2)
    sent_after: list[float] = []

    async def one() -> None:
        started = time.perf_counter()

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                assert message["status"] == 429
                sent_after.append(time.perf_counter() - started)

        await layer(scope("/classify"), receive, send)

    async def four() -> None:
        await asyncio.gather(*(one() for _ in range(4)))

    asyncio.run(four())
    at_once, held = sorted(sent_after)[:2], sorted(sent_after)[2:]
    assert max(at_once) < 0.15 and min(held) >= 0.3, sent_after
    assert layer.held == 0


# -- framework -----------------------------------------------------------------------------------------


def plain(status: int, text: bytes, extra: list | None = None):
    async def app(scope_: dict, receive, send) -> None:
        headers = [(b"content-type", b"text/plain; charset=utf-8"), *(extra or [])]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": text})

    return app


def test_the_routers_plain_404_and_405_become_the_apis_json():
    status, _, body = call(FrameworkErrors(plain(404, b"Not Found")), scope("/nope", method="GET"))
    assert status == 404 and body["error_type"] == "not_found" and "'/nope'" in body["error"]
    status, headers, body = call(FrameworkErrors(plain(405, b"", [(b"allow", b"POST")])), scope("/classify", "GET"))
    assert status == 405 and headers["allow"] == "POST" and "POST" in body["error"]


def test_bentomls_validation_400_is_reworded_with_the_public_schemas_name():
    bentoml_body = {
        "error": "2 validation errors for ClassifyRequestIODescriptor",
        "detail": [
            {"type": "missing", "loc": ["text"], "msg": "Field required", "input": {}},
            {"type": "value_error", "loc": ["labels"], "msg": "Value error, labels are empty", "input": []},
        ],
    }
    inner = answering(400, json.dumps(bentoml_body).encode())
    status, headers, body = call(FrameworkErrors(inner), scope("/classify"))
    assert status == 400 and int(headers["content-length"]) == len(json.dumps(body).encode())
    assert body["error"] == "2 validation errors for ClassifyRequest: text: Field required"
    assert [(d["loc"], d["msg"]) for d in body["detail"]] == [
        (["text"], "Field required"),
        (["labels"], "labels are empty"),
    ]
    other = answering(400, b'{"error": "something else"}')
    assert call(FrameworkErrors(other), scope("/classify"))[2] == {"error": "something else"}, "left alone"
