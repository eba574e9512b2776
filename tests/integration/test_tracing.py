"""Traces on the wire: a real OTLP/HTTP receiver (harness/otlp.py) gets what the server's exporter sends,
and one request's trace reads request -> cache (local, Redis) -> queue -> batch -> tokenize, forward,
plus the Redis write; requests merged into one batch link to the batch span they shared."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from harness.launchers import redis_url
from harness.otlp import OtlpReceiver, ReceivedSpan
from tests.support.server import bento_server, redis


@pytest.fixture(scope="module")
def traced(tiny_models, tmp_path_factory):
    """(url, receiver): a server exporting every request's spans to a receiver this test started."""
    work = tmp_path_factory.mktemp("tracing")
    store = redis(work)
    with OtlpReceiver() as otlp:
        env = {
            **tiny_models,
            "ZSC_MODEL": "tiny-hf",
            "ZSC_RUNTIME": "onnx",
            "ZSC_REDIS_URL": redis_url(store.member.port),
            "OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "200",  # the batch span processor's export interval, ms
        }
        try:
            with bento_server(env, work / "server.log") as url:
                yield url, otlp
        finally:
            store.stop()


def classify(url: str, text: str) -> httpx.Response:
    body = {"text": text, "labels": ["billing", "shipping", "praise"]}
    return httpx.post(f"{url}/classify", json=body, timeout=60)


def by_trace(spans: list[ReceivedSpan], trace_id: str) -> dict[str, list[ReceivedSpan]]:
    out: dict[str, list[ReceivedSpan]] = {}
    for s in spans:
        if s.trace_id == trace_id:
            out.setdefault(s.name, []).append(s)
    return out


def served(spans: list[ReceivedSpan]) -> int:
    return sum(s.parent_span_id == "" and s.name == "POST /classify" for s in spans)


def server_span(spans: list[ReceivedSpan], trace_id: str) -> ReceivedSpan:
    [root] = [s for s in spans if s.trace_id == trace_id and s.parent_span_id == "" and s.name == "POST /classify"]
    return root


def test_one_request_s_trace_reaches_the_forward_pass(traced):
    url, otlp = traced
    answer = classify(url, "a lone request, traced end to end")
    assert answer.status_code == 200
    spans = otlp.wait_for(lambda s: {"forward", "cache.redis.write"} <= {x.name for x in s})
    root = next(s for s in spans if s.name == "POST /classify" and s.parent_span_id == "")
    trace = by_trace(spans, root.trace_id)
    for name in ("cache.local", "cache.redis", "queue", "cache.redis.write"):
        assert [s.parent_span_id for s in trace[name]] == [root.span_id], (name, trace)
    [queue] = trace["queue"]
    [batch] = trace["batch"]  # alone, its batch belongs to its trace: a child of its queue span
    assert batch.parent_span_id == queue.span_id
    assert (batch.trace_id, batch.span_id) in queue.links and (queue.trace_id, queue.span_id) in batch.links
    assert [s.parent_span_id for s in trace["tokenize"]] == [batch.span_id]
    assert [s.parent_span_id for s in trace["forward"]] == [batch.span_id]
    assert trace["cache.local"][0].attributes["zsc.lookups"] == 3 and batch.attributes["zsc.sequences"] == 3
    assert root.service == "zero_shot_classifier"
    assert queue.start_ns <= batch.start_ns <= trace["forward"][0].start_ns <= trace["forward"][0].end_ns


def test_requests_merged_into_one_batch_link_to_the_span_they_shared(traced):
    url, otlp = traced
    for attempt in range(5):  # adaptive batching merges what queues while a batch runs: concurrency does it
        before = len(otlp.spans())
        texts = [f"merged {attempt} {i} " * 20 for i in range(12)]
        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(lambda text: classify(url, text), texts))
        assert all(a.status_code == 200 for a in answers)
        # the server spans end after the answer: they may reach the receiver in a later export than the rest
        spans = otlp.wait_for(lambda s, n=before: sum(x.name == "queue" for x in s[n:]) >= 12 and served(s[n:]) >= 12)
        shared = [s for s in spans if s.name == "batch" and len(s.links) > 1]
        if shared:
            break
    else:
        pytest.fail("12 concurrent requests never shared a batch in 5 tries")
    batch = shared[-1]
    queues = {(s.trace_id, s.span_id): s for s in spans if s.name == "queue"}
    linked = [queues[link] for link in batch.links]
    assert len({q.trace_id for q in linked}) == len(linked) > 1, "one queue span per request, each its own trace"
    for q in linked:  # every request that rode in the batch points at it, whichever trace it lives in
        assert (batch.trace_id, batch.span_id) in q.links
        assert server_span(spans, q.trace_id).span_id == q.parent_span_id
    assert sum(q.span_id == batch.parent_span_id for q in linked) == 1, "the batch is a child of one of them"
    assert batch.attributes["zsc.requests"] == len(linked)
