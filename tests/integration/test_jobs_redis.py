"""Jobs in a Redis of their own (ZSC_JOBS_REDIS_URL), with append-only persistence, that dies mid-job.

One replica of the tiny NLI model, a volatile redis-server for the cache and an append-only one for jobs
(`--appendfsync always`: every acknowledged write is on disk). While a job runs, the jobs Redis is
SIGKILLed; the replica goes on answering /classify and says 503 job_store_unavailable for the job; the
jobs Redis is started again on the same port and the same append-only files. The job then completes with
every item answered exactly once (counters, stored chunks, indices) and with /classify_batch's answers,
and neither Redis holds the other's keys. Then the store alone against a Redis that restarts empty (no
persistence): its consumer group is made again, so new jobs run.
"""

from __future__ import annotations

import random
import time

import httpx
import pytest
import redis as redis_client

from harness.launchers import jobs_redis_server
from harness.net import free_port
from harness.process import Running, start
from tests.integration.test_jobs import LABELS, corpus
from tests.support.jobs import batch_answers, results_jsonl, submit
from tests.support.server import bento_server, redis

pytestmark = pytest.mark.timeout(300)
ITEMS = 4000
CHUNK_ITEMS = 32


def start_jobs_redis(workdir, port: int) -> Running:
    return start(jobs_redis_server("jobs-redis", port, workdir, fsync="always")).wait_ready(30)


@pytest.fixture
def stores(tmp_path):
    cache = redis(tmp_path / "cache")
    jobs = {"proc": start_jobs_redis(tmp_path / "jobs", free_port()), "dir": tmp_path / "jobs"}
    yield cache, jobs
    cache.stop()
    jobs["proc"].stop()


def job_status(url: str, job_id: str) -> httpx.Response:
    return httpx.get(f"{url}/jobs/{job_id}", timeout=60)


def test_a_job_outlives_its_redis_killed_mid_job(tiny_models, stores, tmp_path):
    cache, jobs = stores
    port = jobs["proc"].member.port
    env = {
        **tiny_models,
        "ZSC_MODEL": "tiny-hf",
        "ZSC_RUNTIME": "onnx",
        "ZSC_REDIS_URL": cache.url,
        "ZSC_JOBS_REDIS_URL": jobs["proc"].url,
        "ZSC_JOB_CHUNK_ITEMS": str(CHUNK_ITEMS),
        # a chunk handed out just as Redis died (its answer lost) is claimed again this soon
        "ZSC_JOB_VISIBILITY_S": "5",
        "ZSC_JOB_MAX_ITEMS": str(ITEMS),
    }
    items = corpus(ITEMS)
    chunks = -(-ITEMS // CHUNK_ITEMS)
    with bento_server(env, tmp_path / "server.log") as url:
        job = submit(url, {"items": items, "labels": LABELS})
        assert job["backend"] == "redis"
        deadline = time.monotonic() + 60
        while (s := job_status(url, job["id"]).json())["chunks_done"] < 5:
            assert time.monotonic() < deadline, s
            time.sleep(0.05)

        jobs["proc"].kill()  # SIGKILL: no chance to write anything more
        killed_at = time.monotonic()
        assert not jobs["proc"].alive()
        # interactive classification goes on without the jobs Redis; the job's routes say what is wrong
        r = httpx.post(f"{url}/classify", json={"text": "The team won the cup", "labels": LABELS}, timeout=30)
        assert r.status_code == 200, r.text
        r = job_status(url, job["id"])
        assert r.status_code == 503 and r.json()["error_type"] == "job_store_unavailable", r.text
        time.sleep(max(0.0, 1 - (time.monotonic() - killed_at)))  # down a while: the worker's reads fail meanwhile

        jobs["proc"] = start_jobs_redis(jobs["dir"], port)  # the same port, the same append-only files
        store = redis_client.Redis(port=port, decode_responses=True)
        recovered = int(store.hget(f"zsc:job:{job['id']}", "chunks_done") or 0)
        assert 5 <= recovered < chunks, "the job's progress came back from the append-only file, mid-job"

        deadline = time.monotonic() + 120
        while True:
            r = job_status(url, job["id"])
            if r.status_code == 200 and r.json()["state"] == "done":
                break
            assert r.status_code in (200, 503) and time.monotonic() < deadline, r.text
            time.sleep(0.3)
        done = r.json()
        assert (done["total"], done["done"], done["errors"], done["chunks_done"]) == (ITEMS, ITEMS, 0, chunks)

        # every item exactly once: one stored result list per chunk, indices 0..n-1 each once
        assert store.hlen(f"zsc:job:{job['id']}:results") == chunks
        got = results_jsonl(url, job["id"])
        assert [e.pop("index") for e in got] == list(range(ITEMS))
        sample = sorted(random.Random(7).sample(range(ITEMS), 200))
        expected = batch_answers(url, [{"labels": LABELS, **items[i]} for i in sample])
        assert [got[i] for i in sample] == expected

        # each Redis holds its own: job keys only in the jobs Redis, cache rows only in the cache's
        cache_keys = redis_client.Redis(port=cache.member.port, decode_responses=True).keys("*")
        assert cache_keys and not [k for k in cache_keys if k.startswith("zsc:job")]
        assert all(k.startswith(("zsc:job:", "zsc:jobs:")) for k in store.keys("*"))
        assert list((jobs["dir"] / "data" / "appendonlydir").iterdir())


def test_a_store_whose_redis_restarted_empty_runs_new_jobs(tmp_path):
    """Jobs in a Redis without persistence (the cache's, say) are lost when it restarts; the store's
    consumer group goes with them. The store makes it again, so the jobs submitted after run; the chunk a
    worker held from before is acknowledged without an error."""
    import asyncio

    from service.jobs.records import JobInfo
    from service.jobs.redis_store import RedisJobStore

    volatile = redis(tmp_path / "volatile")

    def job(job_id: str) -> JobInfo:
        return JobInfo(job_id, "queued", total=1, chunks=1, chunk_items=1, created=time.time(), ttl_s=60)

    async def go():
        store = RedisJobStore(volatile.url, "zsc", visibility_s=5)
        try:
            await store.create(job("before"), [[{"text": "a"}]])
            held = await store.take("w", 0.1)
            assert held is not None and held.job_id == "before"

            volatile.kill()
            restarted = redis(tmp_path / "volatile", port=volatile.member.port)  # empty
            try:
                await store.ack(held)  # its group is gone: nothing to acknowledge
                await store.create(job("after"), [[{"text": "b"}]])
                got = None
                for _ in range(3):  # the first take finds the group gone, a later one makes it again
                    got = got or await store.take("w", 0.1)
                assert got is not None and got.job_id == "after"
                assert await store.begin(got) == "running"
            finally:
                restarted.stop()
        finally:
            await store.close()

    asyncio.run(go())
