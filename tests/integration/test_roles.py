"""Replicas by role (ZSC_ROLE), as real `bentoml serve` processes sharing an append-only jobs Redis.

An api replica takes jobs in and serves them but never takes a chunk: a job submitted while it is the only
replica stays queued, the consumer group has no consumer and the whole job is lag. A jobs replica serves
its probes and /metrics only (every other path a 404 that names its role) and runs the job; every chunk is
read by its consumer alone. Then the drain: a jobs replica given SIGTERM mid-job stops within its grace,
having finished (or handed back) the chunk it held; a second jobs replica runs the rest, and every item is
answered exactly once and equal to /classify_batch.
"""

from __future__ import annotations

import contextlib
import signal
import time

import httpx
import pytest
import redis as redis_client

from harness.jobs import differences
from harness.launchers import bento_serve, jobs_redis_server
from harness.net import free_port
from harness.process import start, wait_all_ready
from tests.integration.test_jobs import LABELS, corpus
from tests.support.jobs import batch_answers, results_jsonl, status, submit, wait

pytestmark = pytest.mark.timeout(600)  # three replica starts; a loaded machine takes a minute each
STREAM, GROUP = "zsc:jobs:stream", "zsc-job-workers"  # the service's own names (jobs/redis_store.py)
CHUNK_ITEMS = 128  # a chunk takes long enough that a SIGTERM almost always finds one at work


@pytest.fixture
def jobs_redis(tmp_path):
    proc = start(jobs_redis_server("jobs-redis", free_port(), tmp_path / "jobs-redis")).wait_ready(20)
    yield proc
    proc.stop()


def group(r: redis_client.Redis) -> dict:
    [info] = r.xinfo_groups(STREAM)
    return info


def test_an_api_replica_takes_no_chunk_and_a_jobs_replica_serves_only_its_probes(tiny_models, jobs_redis, tmp_path):
    common = {
        **tiny_models,
        "ZSC_MODEL": "tiny-hf",
        "ZSC_RUNTIME": "onnx",
        "ZSC_JOBS_REDIS_URL": jobs_redis.url,
        "ZSC_JOB_CHUNK_ITEMS": str(CHUNK_ITEMS),
        "ZSC_JOB_DRAIN_S": "20",
    }
    r = redis_client.Redis(port=jobs_redis.member.port, decode_responses=True)
    items = corpus(4000)
    chunks = -(-len(items) // CHUNK_ITEMS)
    with contextlib.ExitStack() as stack:
        api_member = bento_serve("api", free_port(), tmp_path / "api", {**common, "ZSC_ROLE": "api"})
        api = stack.enter_context(start(api_member))
        wait_all_ready([api], 180)
        job = submit(api.url, {"items": items, "labels": LABELS})
        # the api replica alone: the job stays queued, nothing is read from the group (lag = every chunk)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            assert status(api.url, job["id"])["state"] == "queued"
            time.sleep(0.2)
        info = group(r)
        assert (info["consumers"], info["pending"], info["lag"]) == (0, 0, chunks), info

        def jobs_replica(name: str):
            member = bento_serve(name, free_port(), tmp_path / name, {**common, "ZSC_ROLE": "jobs"})
            proc = stack.enter_context(start(member))
            wait_all_ready([proc], 180)
            return proc

        first = jobs_replica("jobs-1")
        # a jobs replica: its probes and /metrics; anything else a 404 in the API's shape, naming its role
        assert httpx.get(f"{first.url}/readyz").status_code == 200
        assert httpx.get(f"{first.url}/livez").status_code == 200
        assert "zsc_jobs_items_total" in httpx.get(f"{first.url}/metrics").text
        for method, path in (("POST", "/classify"), ("GET", f"/jobs/{job['id']}"), ("GET", "/"), ("GET", "/ui")):
            answer = httpx.request(method, f"{first.url}{path}", json={"text": "a", "labels": LABELS})
            assert answer.status_code == 404, (path, answer.text)
            body = answer.json()
            assert body["error_type"] == "not_found" and "ZSC_ROLE=jobs" in body["error"], body
            assert path in body["error"] and answer.headers["x-request-id"]

        # it runs the job; SIGTERM mid-job: it finishes (or hands back) its chunk and stops within its grace
        deadline = time.monotonic() + 60
        while status(api.url, job["id"])["chunks_done"] < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        worker_pids = set(first.pids())
        t0 = time.monotonic()
        first.proc.send_signal(signal.SIGTERM)
        first.wait(timeout=40)
        stopped_s = time.monotonic() - t0
        # the chunk it held was finished and acknowledged, not handed back: with no other jobs replica it
        # would still be pending (the log says "finishing 1 chunk(s)" unless SIGTERM fell between chunks)
        assert "handed back" not in first.log_tail(20000), "a chunk of tiny-hf takes far less than ZSC_JOB_DRAIN_S"
        info = group(r)
        assert info["pending"] == 0, f"the stopped replica left a chunk pending: {info}"
        held = status(api.url, job["id"])
        assert held["state"] == "running" and held["chunks_done"] < chunks

        second = jobs_replica("jobs-2")
        worker_pids |= set(second.pids())
        done = wait(api.url, job["id"], timeout=180)
        assert (done["state"], done["done"], done["errors"], done["chunks_done"]) == ("done", len(items), 0, chunks)
        # every item once, in order, and what /classify_batch answers (computed again by the api replica:
        # other batches, so scores equal to 1e-4; tiny-hf's near-equal scores may swap their order)
        got = results_jsonl(api.url, job["id"])
        assert [e.pop("index") for e in got] == list(range(len(items)))
        sample = list(range(0, len(items), 7))
        expected = batch_answers(api.url, [{"labels": LABELS, **items[i]} for i in sample])
        assert differences([got[i] for i in sample], expected) == []

    # every chunk read by a jobs replica's consumer (host-pid of its worker), never by the api replica
    consumers = {c["name"] for c in r.xinfo_consumers(STREAM, GROUP)}
    assert {int(c.rsplit("-", 1)[1]) for c in consumers} <= worker_pids and len(consumers) == 2, consumers
    assert r.hlen(f"zsc:job:{job['id']}:results") == chunks  # each chunk stored once
    assert stopped_s < 40
