"""One path, seen from outside: a real `bentoml serve` of the service with a spy on ``Pipeline.classify``
(tests/support/instrumented_service.py). A /classify request and a job item with the same body both go
through that one function, and their answers are equal; after the worker has served every kind of request,
its ``sys.modules`` holds none of the build-time code (model import, conversion, ONNX export, evaluation,
tuning, the command line)."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from tests.support.server import bento_server

BODY = {"text": "The striker scored twice in the final", "labels": ["sports", "business", "technology"]}
BUILD_TIME = ("service.modelstore", "service.quality", "service.cli", "onnx.", "onnxruntime.quantization")


@pytest.fixture(scope="module")
def spied(tiny_models, tmp_path_factory):
    work = tmp_path_factory.mktemp("one-path")
    spy = work / "calls.jsonl"
    env = {**tiny_models, "ZSC_MODEL": "tiny-hf", "ZSC_TEST_SPY": str(spy)}
    with bento_server(env, work / "server.log", target="tests.support.instrumented_service:ZeroShotClassifier") as url:
        yield url, spy


def calls(spy) -> list[dict]:
    return [json.loads(line) for line in spy.read_text().splitlines()] if spy.exists() else []


def wait_done(url: str, job_id: str) -> None:
    for _ in range(300):
        if httpx.get(f"{url}/jobs/{job_id}", timeout=10).json()["state"] == "done":
            return
        time.sleep(0.1)
    raise AssertionError("the job did not finish")


def test_a_request_and_a_job_item_take_the_one_function_and_get_the_same_answer(spied):
    url, spy = spied
    direct = httpx.post(f"{url}/classify", json=BODY, timeout=30)
    assert direct.status_code == 200, direct.text
    job = httpx.post(f"{url}/jobs", json={"items": [BODY]}, timeout=30).json()
    wait_done(url, job["id"])
    [item] = httpx.get(f"{url}/jobs/{job['id']}/results", timeout=30).json()["results"]
    assert {k: v for k, v in item.items() if k != "index"} == direct.json()
    seen = [c for c in calls(spy) if BODY["text"] in c["texts"]]
    assert [c["job"] for c in seen] == [False, True], seen  # the endpoint's call, then the worker's
    assert seen[0]["results"] == seen[1]["results"] == [direct.json()]


def test_every_endpoint_goes_through_it(spied):
    url, spy = spied
    before = len(calls(spy))
    text = "Shares fell after the earnings call"
    batch = httpx.post(f"{url}/classify_batch", json={"items": [{**BODY, "text": text}]}, timeout=30)
    hf = {"inputs": text, "parameters": {"candidate_labels": BODY["labels"]}}
    hugging = httpx.post(f"{url}/hf/zero-shot-classification", json=hf, timeout=30)
    assert batch.status_code == hugging.status_code == 200
    new = calls(spy)[before:]
    assert [c["texts"] for c in new] == [[text], [text]] and not any(c["job"] for c in new)


def test_every_question_of_a_decision_request_is_one_call(spied):
    url, spy = spied
    before = len(calls(spy))
    text = "The striker was sent off in the second half"
    questions = [
        {"type": "choice", "instructions": "What is it about?", "choices": [{"value": "sports"}, {"value": "money"}]},
        {"type": "predicate", "instructions": "A player was sent off."},
        {"type": "score", "instructions": "How dramatic?", "levels": [{"label": "calm"}, {"label": "dramatic"}]},
    ]
    body = {"model": "tiny-hf", "input": text, "questions": questions}
    answer = httpx.post(f"{url}/v1/decisions", json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    new = calls(spy)[before:]
    assert [c["texts"] for c in new] == [[text] * 3] and not new[0]["job"], new  # three questions, one call


def test_every_question_of_a_system_one_request_is_one_call(spied):
    url, spy = spied
    before = len(calls(spy))
    state = {"match": "The striker was sent off in the second half"}
    questions = {
        "topic": {"type": "choice", "instructions": "What is it about?", "criteria": {"sports": None, "money": None}},
        "sent_off": {"type": "noul", "instructions": "A player was sent off."},
        "drama": {"type": "score", "criteria": ["calm", "dramatic"]},
    }
    answer = httpx.post(f"{url}/v1/systemone", json={"model": "tiny-hf", "state": state, "questions": questions})
    assert answer.status_code == 200 and list(answer.json()["answers"]) == list(questions), answer.text
    text = '{"match": "The striker was sent off in the second half"}'  # the JSON state, read as JSON text
    new = calls(spy)[before:]
    assert [c["texts"] for c in new] == [[text] * 3] and not new[0]["job"], new  # three questions, one call


def test_the_serving_worker_never_imports_build_time_code(spied):
    url, spy = spied
    for path in ("/label_sets", "/openapi.json", "/", "/ui/", "/docs.json", "/metrics", "/readyz", "/v1/models"):
        assert httpx.get(f"{url}{path}", timeout=30).status_code == 200, path
    assert httpx.post(f"{url}/classify", json={"text": "", "labels": ["a"]}, timeout=30).status_code == 400
    assert httpx.post(f"{url}/classify", json={**BODY, "text": "one more"}, timeout=30).status_code == 200
    modules = (spy.parent / f"{spy.name}.modules").read_text().split()
    assert "service.http.app" in modules and "service.pipeline.pipeline" in modules  # the list is the worker's
    build_time = [m for m in modules if m.startswith(BUILD_TIME) or m == "onnx"]
    assert not build_time, build_time
