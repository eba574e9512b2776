"""One error path: typed errors get their documented status and body; anything else is a generic 500 with
its traceback in the log. Faults are injected by markers in the text (tests/support/instrumented_service.py)."""

from __future__ import annotations

import asyncio
import re
import time

import httpx
import pytest

from tests.support.instrumented_service import BACKEND_FAULT, CACHE_FAULT, SLOW
from tests.support.server import bento_server

LABELS = ["billing", "shipping", "praise"]


@pytest.fixture(scope="module")
def faulty(tiny_models, tmp_path_factory):
    log = tmp_path_factory.mktemp("faulty") / "faulty.log"
    env = {**tiny_models, "ZSC_MODEL": "tiny-hf", "ZSC_TIMEOUT_S": "2", "ZSC_MAX_LATENCY_MS": "1000"}
    with bento_server(env, log, target="tests.support.instrumented_service:ZeroShotClassifier") as url:
        for i in range(12):  # past adaptive batching's training phase, which sends requests one by one
            assert post(url, f"warm-up {i}").status_code == 200
        yield url, log


def post(url, text, endpoint="classify", **headers):
    body = {"text": text, "labels": LABELS}
    if endpoint == "classify_batch":
        body = {"items": [body, {"text": "a healthy item", "labels": LABELS}]}
    return httpx.post(f"{url}/{endpoint}", json=body, timeout=30, headers=headers)


@pytest.mark.parametrize("endpoint", ["classify", "classify_batch"])
def test_a_bug_in_the_cache_layer_is_a_generic_500_with_a_logged_traceback(faulty, endpoint):
    url, log = faulty
    rid = f"cache-fault-{endpoint}"
    r = post(url, f"my parcel is late {CACHE_FAULT} ({endpoint})", endpoint, **{"X-Request-ID": rid})
    assert r.status_code == 500
    body = r.json()
    assert body["error_type"] == "internal_error"
    assert "inference failed" not in body["error"] and "injected" not in body["error"], body
    assert body == {"error": body["error"], "error_type": "internal_error"}
    text = log.read_text()
    assert "Traceback" in text and "KeyError: 'injected cache fault'" in text
    assert "cache_key_with_fault" in text, "the traceback points at the failing code"
    # one ERROR record, its traceback inside it (the text format ends a record with its request's id)
    record = (
        rf"\[ERROR\][^\n]* unexpected error in {endpoint}[^\n]*\nTraceback \(most recent call last\):\n"
        rf"(?:\s[^\n]*\n)+KeyError: 'injected cache fault' \(request_id={rid}\)\n"
    )
    assert len(re.findall(record, text)) == 1, text[-3000:]


def test_a_model_failure_is_the_documented_backend_error(faulty):
    url, _ = faulty
    r = post(url, f"my card was charged twice {BACKEND_FAULT}")
    assert r.status_code == 500
    assert r.json() == {"error": "inference failed: injected backend fault", "error_type": "backend_error"}


def test_validation_errors_keep_bentomls_400_shape_and_log_only_their_access_line(faulty):
    url, log = faulty
    rid = "validation-error"
    r = httpx.post(f"{url}/classify", json={"text": "", "labels": ["a"]}, timeout=30, headers={"X-Request-ID": rid})
    assert r.status_code == 400
    assert set(r.json()) == {"error", "detail"} and "text is empty" in r.text
    time.sleep(0.3)  # the worker's lines reach the log
    mine = [line for line in log.read_text().splitlines() if f"(request_id={rid})" in line]
    assert len(mine) == 1 and "[INFO]" in mine[0] and "POST /classify 400" in mine[0], mine


def test_shed_load_is_the_documented_503(faulty):
    url, _ = faulty

    async def burst():
        """A batch that takes 1.8 s, and requests queued behind it: they would wait past 1 s (ZSC_MAX_LATENCY_MS)."""
        async with httpx.AsyncClient(timeout=30) as client:

            async def later(i):
                await asyncio.sleep(0.2)
                return await client.post(f"{url}/classify", json={"text": f"queued {i}", "labels": LABELS})

            slow = client.post(f"{url}/classify", json={"text": f"slow {SLOW}1.8", "labels": LABELS})
            return await asyncio.gather(slow, *(later(i) for i in range(3)))

    responses = asyncio.run(burst())
    statuses = sorted(r.status_code for r in responses)
    assert 503 in statuses and 200 in statuses, statuses
    shed = next(r for r in responses if r.status_code == 503)
    assert shed.json() == {
        "error": "the service is overloaded: this request would wait past ZSC_MAX_LATENCY_MS; retry later",
        "error_type": "overloaded",
    }
    assert post(url, "after the burst").status_code == 200


def test_server_errors_under_v1_are_the_sdks_internal_server_error(faulty):
    import openai

    url, _ = faulty
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
    question = {"type": "predicate", "instructions": "The customer was charged twice."}
    with pytest.raises(openai.InternalServerError) as info:
        client.decisions.create(model="tiny-hf", input=f"charged twice {BACKEND_FAULT}", questions=[question])
    error = info.value
    assert error.status_code == 500 and error.type == "server_error" and error.code == "backend_error"
    assert error.message.endswith("inference failed: injected backend fault")
    with pytest.raises(openai.InternalServerError) as info:  # past ZSC_TIMEOUT_S (2 s here)
        client.decisions.create(model="tiny-hf", input=f"slow one {SLOW}3", questions=[question])
    assert info.value.status_code == 504 and "Not able to process the request in 2 seconds" in info.value.message
    wait_until_answering(url)  # the engine call behind it runs on for another second


def wait_until_answering(url: str, seconds: float = 15) -> None:
    """Poll until an ordinary request is answered again (shed with 503 while the engine is still busy)."""
    deadline = time.monotonic() + seconds
    while post(url, "are you free again").status_code != 200:
        assert time.monotonic() < deadline, f"the service did not answer within {seconds} s"
        time.sleep(0.1)


def test_past_the_timeout_is_bentomls_504(faulty):
    url, _ = faulty
    r = post(url, f"slow one {SLOW}3")
    assert r.status_code == 504
    assert r.json() == {"error": "Not able to process the request in 2 seconds"}
    # last in this file: the engine call behind it runs on for another second
