"""The service's HTTP edge over real HTTP (service/http/edge/): API keys on every data endpoint, open health
checks, two keys at once, keys never logged; request ids; JSON log lines; the body bound; the per-key rate
limit and the in-flight bound answering 429 with Retry-After."""

from __future__ import annotations

import json
import re
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.support.server import KEYS, bento_server

WRONG = "zsc-wrong-key-0d9e61"
BODY = {"text": "my card was charged twice", "labels": ["billing", "shipping"]}
DECISION_Q = {"type": "predicate", "instructions": "The customer was charged twice."}
DECISION = {"model": "gpt-6-luna", "input": BODY["text"], "questions": [DECISION_Q]}

# (method, path, body): every data endpoint the service has
DATA_ENDPOINTS = [
    ("POST", "/classify", BODY),
    ("POST", "/classify_batch", {"items": [BODY]}),
    ("POST", "/hf/zero-shot-classification", {"inputs": BODY["text"], "parameters": {"candidate_labels": "a,b"}}),
    ("POST", "/jobs", {"texts": ["one", "two"], "labels": ["a", "b"]}),
    ("GET", "/jobs/0123456789abcdef", None),
    ("GET", "/jobs/0123456789abcdef/results", None),
    ("POST", "/jobs/0123456789abcdef/cancel", None),
    ("DELETE", "/jobs/0123456789abcdef", None),
    ("GET", "/label_sets", None),
    ("POST", "/v1/decisions", DECISION),
    (
        "POST",
        "/v1/systemone",
        {"model": "gpt-6-luna", "state": BODY["text"], "questions": {"q": {**DECISION_Q, "type": "noul"}}},
    ),
    ("GET", "/v1/models", None),
    ("GET", "/v1/models/gpt-6-luna", None),
]
OPEN = ["/livez", "/healthz", "/readyz", "/metrics", "/", "/docs.json", "/openapi.json", "/ui/", "/ui/app.js"]


def tiny_server_env(store_env: dict[str, str]) -> dict[str, str]:
    return {**store_env, "ZSC_MODEL": "tiny-hf", "ZSC_RUNTIME": "onnx"}


@pytest.fixture
def locked(keyed_server):
    """The session's keyed server (tests/conftest.py): two keys, JSON logs, a 1 MB body bound."""
    return keyed_server


def call(url: str, method: str, path: str, body, key: str | None = None, **headers) -> httpx.Response:
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return httpx.request(method, f"{url}{path}", json=body, headers=headers, timeout=30)


@pytest.mark.parametrize("method, path, body", DATA_ENDPOINTS, ids=[f"{m} {p}" for m, p, _ in DATA_ENDPOINTS])
def test_every_data_endpoint_needs_a_valid_key(locked, method, path, body):
    url, _ = locked
    missing = call(url, method, path, body)
    assert missing.status_code == 401, missing.text
    assert missing.headers["www-authenticate"].startswith("Bearer realm=")
    error = missing.json()["error"]
    if path.startswith("/v1/"):  # OpenAI's envelope
        assert error["type"] == "authentication_error" and error["code"] == "unauthorized"
        error = error["message"]
    else:
        assert missing.json()["error_type"] == "unauthorized"
    assert "Authorization: Bearer" in error
    wrong = call(url, method, path, body, key=WRONG)
    assert wrong.status_code == 401 and 'error="invalid_token"' in wrong.headers["www-authenticate"]
    basic = httpx.request(method, f"{url}{path}", json=body, auth=("user", KEYS[0]), timeout=30)
    assert basic.status_code == 401, "a key sent any other way than Bearer is not accepted"
    for key in KEYS:  # either key of a rotation works
        answer = call(url, method, path, body, key=key)
        assert answer.status_code != 401, answer.text
        assert answer.status_code < 500, answer.text


def test_the_answers_with_a_key_are_the_real_ones(locked):
    url, _ = locked
    answer = call(url, "POST", "/classify", BODY, key=KEYS[1])
    assert answer.status_code == 200 and sorted(answer.json()["labels"]) == ["billing", "shipping"]
    assert call(url, "GET", "/jobs/0123456789abcdef", None, key=KEYS[0]).json()["error_type"] == "job_not_found"


@pytest.mark.parametrize("path", OPEN)
def test_health_metrics_docs_and_the_page_stay_open(locked, path):
    url, _ = locked
    assert httpx.get(f"{url}{path}", timeout=30).status_code == 200


def test_request_ids_are_kept_made_and_sanitised(locked):
    url, _ = locked
    mine = f"client-{uuid.uuid4()}"
    assert call(url, "POST", "/classify", BODY, KEYS[0], **{"X-Request-ID": mine}).headers["x-request-id"] == mine
    made = call(url, "POST", "/classify", BODY, KEYS[0]).headers["x-request-id"]
    assert len(made) == 32 and made != mine
    odd = call(url, "POST", "/classify", BODY, KEYS[0], **{"X-Request-ID": "two words\tand a tab"})
    assert odd.headers["x-request-id"] != "two words\tand a tab" and len(odd.headers["x-request-id"]) == 32
    refused = call(url, "POST", "/classify", BODY, **{"X-Request-ID": mine + "-refused"})
    assert refused.status_code == 401 and refused.headers["x-request-id"] == mine + "-refused"


def test_every_log_line_is_json_and_a_request_s_lines_carry_its_id(locked):
    url, log = locked
    rid = f"trace-me-{uuid.uuid4().hex[:12]}"
    assert call(url, "POST", "/classify", BODY, KEYS[0], **{"X-Request-ID": rid}).status_code == 200
    bad = call(url, "POST", "/classify", {"text": "x", "labels": []}, KEYS[0], **{"X-Request-ID": rid + "-bad"})
    assert bad.status_code == 400
    httpx.get(f"{url}/readyz")  # flushes nothing, but gives the worker a moment to write
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"a log line is not JSON: {line!r}")
    mine = [p for p in parsed if p.get("request_id") == rid]
    assert mine, f"no line carries {rid}"
    access = [p for p in mine if p["logger"] == "zsc.access"]
    assert len(access) == 1, mine
    line = access[0]
    assert line["endpoint"] == "/classify" and line["status"] == 200 and line["method"] == "POST"
    assert line["cache"] in ("miss", "hit", "partial") and line["pairs"] == 2 and line["duration_ms"] > 0
    assert line["key_id"] and line["level"] == "INFO" and line["time"].endswith("Z")
    assert all(rid in json.dumps(p) for p in mine)
    # a refused request: its access line, and nothing else (test_a_client_error_is_one_info_line_...)
    bad_lines = [p for p in parsed if p.get("request_id") == rid + "-bad"]
    assert [(p["logger"], p.get("status")) for p in bad_lines] == [("zsc.access", 400)], bad_lines


# (method, path, body as JSON or raw bytes, key, the status): client errors of every origin
CLIENT_ERRORS = [
    ("POST", "/classify", {"text": "x", "labels": []}, KEYS[0], 400),  # BentoML's validation, no labels
    ("POST", "/classify", {"text": 42, "labels": ["a"], "extra": 1}, KEYS[0], 400),  # wrong type, unknown field
    ("POST", "/classify_batch", b'{"items": [', KEYS[0], 400),  # not JSON
    ("POST", "/hf/zero-shot-classification", {"inputs": "x", "parameters": {}}, KEYS[0], 400),  # checked in the route
    ("POST", "/classify", {"text": "x", "labels": ["a", " a"]}, KEYS[0], 422),
    ("POST", "/classify", {"text": "x", "labels": ["a"], "model": "nope"}, KEYS[0], 404),
    ("POST", "/jobs", {"texts": ["a"]}, KEYS[0], 400),
    ("GET", "/jobs/nope", None, KEYS[0], 404),
    ("POST", "/jobs/nope/cancel", None, KEYS[0], 404),
    ("DELETE", "/jobs/nope", None, KEYS[0], 404),
    ("PUT", "/jobs/nope", None, KEYS[0], 405),
    ("GET", "/no-such-path", None, KEYS[0], 404),
    ("POST", "/classify", BODY, WRONG, 401),
    ("POST", "/v1/decisions", {"model": "tiny-hf", "input": "x", "questions": []}, KEYS[0], 400),
    ("POST", "/v1/decisions", {"model": "nope", "input": "x", "questions": [DECISION_Q]}, KEYS[0], 404),
    ("GET", "/v1/decisions", None, KEYS[0], 405),
    ("GET", "/v1/models/nope", None, KEYS[0], 404),
]


def test_a_client_error_is_one_info_line_and_never_an_error_with_a_traceback(locked):
    """A client's mistake must not page the operator: BentoML logs its own 400s (validation) at ERROR with
    the traceback, which service/obs/logs.py drops; every 4xx leaves only its access line."""
    url, log = locked
    start = log.stat().st_size
    rids = []
    for i, (method, path, body, key, status) in enumerate(CLIENT_ERRORS):
        rid = f"client-error-{i}-{uuid.uuid4().hex[:8]}"
        raw = body if isinstance(body, bytes) else None
        r = httpx.request(
            method,
            f"{url}{path}",
            json=None if raw else body,
            content=raw,
            headers={"Authorization": f"Bearer {key}", "X-Request-ID": rid, "content-type": "application/json"},
            timeout=30,
        )
        assert r.status_code == status, (method, path, r.status_code, r.text)
        rids.append((rid, status))
    assert call(url, "POST", "/classify", BODY, KEYS[0]).status_code == 200  # the service goes on
    time.sleep(0.5)  # the worker's last lines reach the log
    with log.open("rb") as f:
        f.seek(start)
        parsed = [json.loads(line) for line in f.read().decode().splitlines() if line.strip()]
    for rid, status in rids:
        lines = [p for p in parsed if p.get("request_id") == rid]
        assert [(p["logger"], p["level"], p.get("status")) for p in lines] == [("zsc.access", "INFO", status)], lines
    loud = [p for p in parsed if p["level"] in ("ERROR", "CRITICAL") or "exception" in p]
    assert loud == [], loud


def test_no_key_is_ever_logged(locked):
    url, log = locked
    call(url, "POST", "/classify", BODY, key=WRONG)
    call(url, "POST", "/classify", BODY, key=KEYS[0])
    text = log.read_text()
    for secret in (*KEYS, WRONG):
        assert secret not in text


def test_a_body_over_the_bound_is_413_before_the_model(locked):
    url, _ = locked
    big = {"items": [{"text": "x" * 9000, "labels": ["a", "b"]}] * 130}  # ~1.2 MB: over ZSC_MAX_BODY_MB=1
    declared = call(url, "POST", "/classify_batch", big, KEYS[0])
    assert declared.status_code == 413 and declared.json()["error_type"] == "payload_too_large"
    assert "ZSC_MAX_BODY_MB" in declared.json()["error"]

    def chunks():  # no Content-Length: a streamed body is cut off as it passes the bound
        data = json.dumps(big).encode()
        for i in range(0, len(data), 65536):
            yield data[i : i + 65536]

    streamed = httpx.post(
        f"{url}/classify_batch",
        content=chunks(),
        headers={"Authorization": f"Bearer {KEYS[0]}", "content-type": "application/json"},
        timeout=30,
    )
    assert streamed.status_code == 413, streamed.text
    assert call(url, "POST", "/classify", BODY, KEYS[0]).status_code == 200, "and the service goes on"


def test_a_compressed_body_is_read_as_sent_and_a_bomb_stops_at_the_bound(locked):
    import gzip

    from backports import zstd

    url, _ = locked
    plain = call(url, "POST", "/classify", BODY, KEYS[0]).json()
    raw = json.dumps(BODY).encode()
    auth = {"Authorization": f"Bearer {KEYS[0]}", "content-type": "application/json"}
    for encoding, data in (("zstd", zstd.compress(raw)), ("gzip", gzip.compress(raw))):
        r = httpx.post(f"{url}/classify", content=data, headers={**auth, "content-encoding": encoding}, timeout=30)
        assert r.status_code == 200 and r.json()["scores"] == plain["scores"], (encoding, r.text)
    bomb = zstd.compress(b" " * 50_000_000)  # valid JSON whitespace: 50 MB decoded from ~2 KB sent
    r = httpx.post(f"{url}/classify", content=bomb, headers={**auth, "content-encoding": "zstd"}, timeout=30)
    assert r.status_code == 413 and "ZSC_MAX_BODY_MB" in r.json()["error"], r.text
    r = httpx.post(f"{url}/classify", content=raw, headers={**auth, "content-encoding": "br"}, timeout=30)
    assert r.status_code == 415 and "Content-Encoding 'br' is not supported" in r.json()["error"], r.text


def openai_client(url: str, key: str):
    import openai

    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0)


def test_the_openai_sdk_gets_its_exceptions_from_the_edge(locked):
    import openai

    url, _ = locked
    with pytest.raises(openai.AuthenticationError) as info:  # the SDK always sends a key: a wrong one here
        openai_client(url, WRONG).decisions.create(**DECISION)
    error = info.value
    assert error.code == "invalid_api_key" and error.type == "authentication_error" and error.request_id
    assert "not valid" in error.message and error.response.headers["www-authenticate"].startswith("Bearer")
    client = openai_client(url, KEYS[1])
    assert client.decisions.create(**DECISION).answers[0].type == "predicate"
    assert [m.id for m in client.models.list()] == ["tiny-hf", "gpt-6-luna"]
    with pytest.raises(openai.APIStatusError) as info:  # over ZSC_MAX_BODY_MB (1 MB here)
        client.decisions.create(**{**DECISION, "input": "x" * 1_200_000})
    assert info.value.status_code == 413 and "ZSC_MAX_BODY_MB" in info.value.message
    assert info.value.code == "payload_too_large" and info.value.type == "invalid_request_error"


# a key of its own for each test on the limited server: no test waits for another's bucket to refill
RATE_KEYS = {name: f"zsc-rate-{name}-5e0c1d" for name in ("burst", "sdk", "sdk-retrying", "typesafe")}


@pytest.fixture(scope="module")
def limited(tiny_models, tmp_path_factory):
    """Keys of their own, 2 requests/s with a burst of 3 each, and at most 2 requests in flight."""
    log = tmp_path_factory.mktemp("edge") / "limited.log"
    env = {
        **tiny_server_env(tiny_models),
        "ZSC_API_KEYS_FILE": str(log.parent / "keys"),
        "ZSC_RATE_LIMIT_RPS": "2",
        "ZSC_RATE_LIMIT_BURST": "3",
        "ZSC_MAX_CONCURRENCY": "2",
    }
    (log.parent / "keys").write_text("# a mounted Secret\n" + "".join(f"{key}\n" for key in RATE_KEYS.values()))
    with bento_server(env, log) as url:
        yield url, log.parent / "keys", log


def wait_until(check, seconds: float, what: str):
    """Poll ``check()`` until it returns something true; fail naming ``what`` past the deadline."""
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.1)


def test_rate_limit_is_429_with_retry_after_per_key(limited):
    url, _, _ = limited
    statuses = [call(url, "POST", "/classify", BODY, RATE_KEYS["burst"]) for _ in range(6)]
    codes = [r.status_code for r in statuses]
    assert codes[:3] == [200, 200, 200] and 429 in codes[3:], codes
    shed = next(r for r in statuses if r.status_code == 429)
    assert int(shed.headers["retry-after"]) >= 1 and shed.json()["error_type"] == "rate_limited"
    assert "ZSC_RATE_LIMIT_RPS" in shed.json()["error"]


def test_the_openai_sdk_gets_a_rate_limit_error_with_retry_after(limited):
    import openai

    url, _, _ = limited
    client = openai_client(url, RATE_KEYS["sdk"])
    with pytest.raises(openai.RateLimitError) as info:
        for _ in range(8):
            client.decisions.create(**{**DECISION, "model": "tiny-hf"})
    error = info.value
    assert error.code == "rate_limit_exceeded" and error.type == "rate_limit_error"
    assert 1 <= float(error.response.headers["retry-after"]) <= 120  # the SDK honours it, then retries
    retrying = openai.OpenAI(base_url=f"{url}/v1", api_key=RATE_KEYS["sdk-retrying"], max_retries=2)
    answers = [retrying.decisions.create(**{**DECISION, "model": "tiny-hf"}) for _ in range(6)]  # waits, no error
    assert all(a.answers[0].type == "predicate" for a in answers)


def test_the_typesafe_sdk_gets_a_rate_limit_error_with_retry_after(limited):
    import typesafe_sdk as ts

    url, _, _ = limited
    question = {"q": ts.Noul(instructions="The customer is upset.")}
    with ts.TypeSafeClient(base_url=url, api_key=RATE_KEYS["typesafe"], retry=ts.RetryPolicy(max_retries=0)) as client:
        with pytest.raises(ts.TypeSafeRateLimitError) as info:
            for _ in range(8):
                client.system_one(state=BODY["text"], questions=question, model="tiny-hf")
    assert 1_000 <= info.value.retry_after_ms <= 120_000 and "rate limit" in str(info.value)


def test_in_flight_bound_is_429_with_retry_after(limited):
    url, keys, log = limited
    # rotation through the file: three new keys become valid (the file is looked at every 2 s); each has a
    # burst of 3 and sends 2 requests, so the rate limit is not what answers here
    fresh = [f"zsc-flight-{i}-2b7d40" for i in range(3)]
    keys.write_text("".join(f"{key}\n" for key in [*RATE_KEYS.values(), *fresh]))
    for key in fresh:  # a 401 costs a key nothing; the one 200 costs it one of its burst
        wait_until(
            lambda key=key: call(url, "GET", "/label_sets", None, key).status_code == 200, 10, "the rotated keys"
        )
    heavy = {"items": [{"text": f"text {i} " * 60, "labels": [f"l{k}" for k in range(16)]} for i in range(64)]}

    def send(i: int) -> httpx.Response:
        return call(url, "POST", "/classify_batch", heavy, fresh[i % 3])

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(send, range(6)))
    codes = sorted(r.status_code for r in answers)
    overloaded = [r for r in answers if r.status_code == 429 and r.json()["error_type"] == "overloaded"]
    assert overloaded, codes
    assert all(int(r.headers["retry-after"]) >= 1 for r in overloaded)
    assert "ZSC_MAX_CONCURRENCY" in overloaded[0].json()["error"]
    assert 200 in codes, codes

    # refusals are logged a line a second at most (the first at once), each saying how many it stands for
    def refused(line: str) -> list[int]:
        return [int(m) for m in re.findall(r"429 \((\d+) refused by the in-flight limit since", line)]

    def refusal_lines() -> list[str]:
        lines = [line for line in log.read_text().splitlines() if "refused by the in-flight limit" in line]
        return lines if sum(n for line in lines for n in refused(line)) >= len(overloaded) else []

    lines = wait_until(refusal_lines, 5, "the refusals' log lines")
    counts = [n for line in lines for n in refused(line)]
    assert "POST /classify_batch 429 (1 refused" in lines[0] and len(counts) == len(lines) <= 3, lines
    assert sum(counts) == len(overloaded), lines


def test_the_typed_client_and_hugging_face_s_client_send_the_key(locked):
    from huggingface_hub import InferenceClient
    from huggingface_hub.errors import HfHubHTTPError
    from zsc_client import AuthenticatedClient, Client
    from zsc_client.api.classifier import classify
    from zsc_client.models import ClassifyRequest, ClassifyResult

    url, _ = locked
    request = ClassifyRequest.from_dict(BODY)
    with AuthenticatedClient(base_url=url, token=KEYS[1]) as client:
        answer = classify.sync_detailed(client=client, body=request)
    assert answer.status_code == 200 and isinstance(answer.parsed, ClassifyResult)
    with Client(base_url=url) as client:
        assert classify.sync_detailed(client=client, body=request).status_code == 401

    hf = InferenceClient(model=f"{url}/hf/zero-shot-classification", token=KEYS[0])
    got = hf.zero_shot_classification(BODY["text"], BODY["labels"])
    assert sorted(e.label for e in got) == ["billing", "shipping"]
    with pytest.raises(HfHubHTTPError, match="401"):
        InferenceClient(model=f"{url}/hf/zero-shot-classification", token=WRONG).zero_shot_classification(
            BODY["text"], BODY["labels"]
        )
