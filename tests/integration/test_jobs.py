"""Bulk jobs on one live replica: over Redis (the store replicas share) and in-process (no Redis).

A 2,000-item job against /classify_batch on the same items; every way to submit; cancel (the job stays
readable) and delete (it and its results are gone, from Redis too, even while a chunk of it is being worked
on); expiry; the limits and errors a user meets; the metrics. Several replicas and a replica dying:
test_jobs_cluster.py.
"""

from __future__ import annotations

import json
import time

import httpx
import pytest

from harness import ROOT
from harness.metrics import counter, scrape
from tests.support.jobs import batch_answers, cancel, delete, results_jsonl, submit, wait
from tests.support.server import bento_server, redis

pytestmark = pytest.mark.timeout(600)
TTL_S = 15  # short, as one test waits for a job to expire; long enough for a cancelled job to drain (CI: >5 s)
LABELS = ["sports", "business", "technology", "politics", "billing", "shipping"]


def gauge(url: str, name: str) -> float:
    return max((s.value for s in scrape(url) if s.name == name), default=0.0)


def corpus(n: int, tag: str = "") -> list[dict]:
    """``n`` distinct items from the project's sentences, some with their own options (another ``tag``:
    other texts, none of them in the cache yet)."""
    rows = [json.loads(line) for line in (ROOT / "loadtest/data/workload.jsonl").read_text().splitlines() if line]
    items = []
    for i in range(n):
        item: dict = {"text": f"{rows[i % len(rows)]['text']} (case {i}{tag})"}
        if i % 7 == 0:
            item["multi_label"] = True
        if i % 11 == 0:
            item["labels"] = ["good news", "bad news"]
            item["threshold"] = 0.6
        items.append(item)
    return items


def job_keys(redis_url: str, job_id: str) -> list[str]:
    """The job's keys in the real Redis (ZSC_CACHE_PREFIX is the default, zsc)."""
    import redis as redis_client

    with redis_client.Redis.from_url(redis_url, decode_responses=True) as r:
        return sorted(r.scan_iter(f"zsc:job:{job_id}*"))


def assert_gone(url: str, job_id: str, ttl_s: int) -> None:
    """Every route on the id answers the documented 404."""
    message = (
        f"no job '{job_id}': it was never submitted, or it expired (a job is kept {ttl_s} s after it ended, "
        "ZSC_JOB_TTL_S)"
    )
    for r in (
        httpx.get(f"{url}/jobs/{job_id}"),
        httpx.get(f"{url}/jobs/{job_id}/results"),
        httpx.get(f"{url}/jobs/{job_id}/results", params={"format": "jsonl"}),
        httpx.post(f"{url}/jobs/{job_id}/cancel"),
        httpx.delete(f"{url}/jobs/{job_id}"),
    ):
        assert r.status_code == 404, (r.request.method, r.request.url, r.text)
        assert r.json() == {"error": message, "error_type": "job_not_found"}


def running_with_results(url: str, job_id: str) -> dict:
    """Wait until the job has stored some results and is still running."""
    wait(url, job_id, until=("running",))
    deadline = time.monotonic() + 60
    while (job := httpx.get(f"{url}/jobs/{job_id}").json())["done"] == 0:
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
    assert job["state"] == "running", job
    return job


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    cache = redis(tmp_path_factory.mktemp("jobs-redis"))
    yield f"redis://127.0.0.1:{cache.member.port}/0"
    cache.stop()


@pytest.fixture(scope="module")
def server(store_env, redis_url, tmp_path_factory):
    """A replica with the Redis job store, short-lived jobs and a 1 MB upload limit (the default model: a
    3,000-item job must still be running when it is cancelled)."""
    work = tmp_path_factory.mktemp("jobs")
    env = {
        **store_env,
        "ZSC_REDIS_URL": redis_url,
        "ZSC_JOB_TTL_S": str(TTL_S),
        "ZSC_JOB_MAX_MB": "1",
        "ZSC_JOB_MAX_ITEMS": "5000",
    }
    with bento_server(env, work / "server.log") as url:
        yield url


def test_a_2000_item_job_answers_as_classify_batch_in_order(server):
    items = corpus(2000)
    expected = batch_answers(server, [{"labels": LABELS, **i} for i in items])
    job = submit(server, {"items": items, "labels": LABELS})
    assert (job["state"], job["total"], job["chunks"], job["backend"]) == ("queued", 2000, 32, "redis")
    done = wait(server, job["id"])
    assert (done["state"], done["done"], done["errors"], done["chunks_done"]) == ("done", 2000, 0, 32)
    assert done["items_per_s"] > 0 and done["finished"] >= done["started"] >= done["created"]
    got = results_jsonl(server, job["id"])
    assert [g.pop("index") for g in got] == list(range(2000))
    assert got == expected
    # paged: the same entries, with the next page's offset
    page = httpx.get(f"{server}/jobs/{job['id']}/results", params={"offset": 1990, "limit": 50}).json()
    assert [e["index"] for e in page["results"]] == list(range(1990, 2000))
    assert page["next_offset"] is None and page["complete"] and page["results"][0]["labels"] == expected[1990]["labels"]
    first = httpx.get(f"{server}/jobs/{job['id']}/results", params={"limit": 100}).json()
    assert first["next_offset"] == 100 and len(first["results"]) == 100


def test_files_upload_and_bodies(server, tmp_path):
    texts = ["The striker scored twice", "My card was charged twice", "我的快递还没到"]
    jsonl = "\n".join(json.dumps(t, ensure_ascii=False) for t in texts).encode()
    expected = batch_answers(server, [{"text": t, "labels": LABELS} for t in texts])

    def answers(job):
        wait(server, job["id"])
        return [{k: v for k, v in e.items() if k != "index"} for e in results_jsonl(server, job["id"])]

    multipart = submit(server, files={"file": ("t.jsonl", jsonl)}, data={"labels": json.dumps(LABELS)})
    csv_text = "id,body\n" + "".join(f'{i},"{t}"\n' for i, t in enumerate(texts))
    csv_job = submit(
        server, files={"file": ("t.csv", csv_text.encode())}, data={"labels": ",".join(LABELS), "text_column": "body"}
    )  # noqa: E501
    raw = submit(
        server, content=jsonl, headers={"content-type": "application/x-ndjson"}, params={"labels": ",".join(LABELS)}
    )  # noqa: E501
    assert answers(multipart) == answers(csv_job) == answers(raw) == expected


def test_item_errors_do_not_stop_the_job(server):
    long_text = "word " * 1500  # under ZSC_MAX_TEXT_CHARS, past the model's 512-token window
    job = submit(server, {"items": [{"text": "fine"}, {"text": long_text, "truncation": "error"}], "labels": LABELS})
    done = wait(server, job["id"])
    assert (done["done"], done["errors"]) == (2, 1)
    ok, bad = results_jsonl(server, job["id"])
    assert ok["labels"] and bad["error_type"] == "unprocessable_request" and "tokens" in bad["error"]


def test_cancel_stops_the_work(server, redis_url):
    import redis as redis_client

    before = counter(server, "zsc_jobs_chunks", outcome="skipped")
    job = submit(server, {"items": corpus(3000), "labels": LABELS})
    wait(server, job["id"], until=("running",))
    deadline = time.monotonic() + 15  # the queue depth is reported every 5 s
    while gauge(server, "zsc_jobs_queue_depth") == 0:
        assert time.monotonic() < deadline, "zsc_jobs_queue_depth never showed the queued chunks"
        time.sleep(0.5)
    running_with_results(server, job["id"])
    answer = httpx.post(f"{server}/jobs/{job['id']}/cancel")
    assert answer.status_code == 200, answer.text
    cancelled = answer.json()
    assert cancelled["state"] == "cancelled" and cancelled["finished"] and cancelled["id"] == job["id"]
    # the chunk in progress at the cancel is not stored, and every chunk left is taken from the queue and
    # skipped in its turn (the worker runs one at a time: once they are, the one in progress has ended)
    left = cancelled["chunks"] - cancelled["chunks_done"]
    deadline = time.monotonic() + 60
    while (skipped := counter(server, "zsc_jobs_chunks", outcome="skipped") - before) < left - 1:
        assert time.monotonic() < deadline, f"{skipped} of the {left} chunks left were skipped in 60 s"
        time.sleep(0.2)
    with redis_client.Redis.from_url(redis_url) as r:  # and no more than those: the queue is empty
        while r.xlen("zsc:jobs:stream") or r.xpending("zsc:jobs:stream", "zsc-job-workers")["pending"]:
            assert time.monotonic() < deadline, "the cancelled job's chunks are still queued"
            time.sleep(0.2)
    after = httpx.get(f"{server}/jobs/{job['id']}").json()
    assert after["state"] == "cancelled" and after["chunks_done"] == cancelled["chunks_done"]
    assert after["done"] < 3000
    skipped = counter(server, "zsc_jobs_chunks", outcome="skipped") - before
    assert skipped in (left - 1, left), (skipped, left)
    got = results_jsonl(server, job["id"])  # what finished before the cancel stays readable
    assert len(got) == after["done"] and [e["index"] for e in got] == list(range(after["done"]))
    again = httpx.post(f"{server}/jobs/{job['id']}/cancel")
    assert again.status_code == 200 and again.json() == after  # idempotent: a cancelled job stays as it was
    assert httpx.get(f"{server}/jobs/{job['id']}").json()["state"] == "cancelled"


def test_cancelling_a_finished_job_changes_nothing(server):
    job = submit(server, {"texts": ["one", "two"], "labels": LABELS})
    done = wait(server, job["id"])
    assert cancel(server, job["id"]) == done
    assert httpx.get(f"{server}/jobs/{job['id']}").json() == done and len(results_jsonl(server, job["id"])) == 2


def test_delete_removes_the_job_and_its_results_from_redis(server, redis_url):
    before = counter(server, "zsc_jobs", event="deleted")
    job = submit(server, {"texts": [f"text {i}" for i in range(70)], "labels": LABELS})  # 2 chunks
    wait(server, job["id"])
    assert job_keys(redis_url, job["id"]) == [f"zsc:job:{job['id']}", f"zsc:job:{job['id']}:results"]
    r = httpx.delete(f"{server}/jobs/{job['id']}")
    assert (r.status_code, r.content) == (204, b""), r.text
    assert job_keys(redis_url, job["id"]) == []
    assert_gone(server, job["id"], TTL_S)
    assert counter(server, "zsc_jobs", event="deleted") - before == 1


def test_deleting_a_running_job_stops_it_and_nothing_brings_it_back(server, redis_url):
    import redis as redis_client

    skipped = counter(server, "zsc_jobs_chunks", outcome="skipped")
    cancelled = counter(server, "zsc_jobs", event="cancelled")
    job = submit(server, {"items": corpus(3000, " deleted"), "labels": LABELS})
    running_with_results(server, job["id"])
    delete(server, job["id"])
    assert job_keys(redis_url, job["id"]) == []
    # the chunk in progress at the delete ends in the model and its results are dropped; the rest are taken
    # and skipped, until the stream is empty
    deadline = time.monotonic() + 30
    with redis_client.Redis.from_url(redis_url) as r:
        while r.xlen("zsc:jobs:stream"):
            assert time.monotonic() < deadline, "the deleted job's chunks are still queued"
            time.sleep(0.3)
    time.sleep(1)
    assert job_keys(redis_url, job["id"]) == [], "a worker wrote the deleted job back"
    assert_gone(server, job["id"], TTL_S)
    assert counter(server, "zsc_jobs_chunks", outcome="skipped") - skipped >= 1
    assert counter(server, "zsc_jobs", event="cancelled") - cancelled == 1  # it was running: deleting cancelled it
    after = submit(server, {"texts": ["one more"], "labels": LABELS})  # the worker goes on
    assert wait(server, after["id"], timeout=60)["state"] == "done"


def test_an_expired_job_is_a_clear_404(server):
    job = submit(server, {"texts": ["one"], "labels": LABELS})
    ended = wait(server, job["id"])["finished"]
    while httpx.get(f"{server}/jobs/{job['id']}").status_code == 200:
        assert time.time() - ended < TTL_S + 10, "the job outlived its TTL"
        time.sleep(0.2)
    assert time.time() - ended >= TTL_S - 1, "kept its TTL from its end, not less"
    assert_gone(server, job["id"], TTL_S)


@pytest.mark.parametrize("store", ["redis", "memory"])
def test_unknown_ids_are_a_clear_404_on_every_route(server, default_server, store):
    url = server if store == "redis" else default_server
    assert_gone(url, "0123456789abcdef0123456789abcdef", TTL_S if store == "redis" else 86400)


@pytest.mark.parametrize(
    ("kwargs", "status", "message"),
    [
        ({"json": {"texts": ["a"]}}, 400, "item 1: no labels: send labels, or the name of a label set"),
        ({"json": {"texts": ["a"], "labels": LABELS, "label_set": "nope"}}, 404, "unknown label set 'nope'"),
        (
            {"content": b'"a"\n{bad', "headers": {"content-type": "application/x-ndjson"}, "params": {"labels": "a,b"}},
            400,
            "line 2 is not JSON",
        ),  # noqa: E501
        ({"content": b"<xml/>", "headers": {"content-type": "application/xml"}}, 400, "content type 'application/xml'"),  # noqa: E501
        ({"json": {"texts": ["x" * 600] * 2000, "labels": LABELS}}, 413, "over 1 MB (ZSC_JOB_MAX_MB)"),
        ({"json": {"texts": ["a"] * 5001, "labels": LABELS}}, 400, "5001 items; the limit is 5000"),
        ({"files": {"other": ("t.jsonl", b'"a"')}}, 400, "a file field named 'file'"),
        (
            {"json": {"items": [{"text": "a", "labels": LABELS, "multi_label": False}], "multi_label": "yes"}},
            400,
            "the job's shared fields: multi_label: Input should be a valid boolean",
        ),  # every item gives its own, and the shared one is still checked
    ],
)
def test_bad_submissions_get_a_clear_4xx(server, kwargs, status, message):
    r = httpx.post(f"{server}/jobs", timeout=60, **kwargs)
    assert r.status_code == status, r.text
    assert message in r.json()["error"], r.json()


def test_bad_result_queries(server):
    job = submit(server, {"texts": ["a"], "labels": LABELS})
    for params, message in (
        ({"limit": "20000"}, "limit must be an integer from 0 to 10000"),
        ({"format": "xml"}, "format must be json or jsonl"),
        ({"offset": "²"}, "offset must be an integer from 0"),  # a digit to str.isdigit, not to int()
        ([("offset", "1"), ("offset", "2")], "give each query parameter once; repeated: 'offset'"),
    ):  # noqa: E501
        r = httpx.get(f"{server}/jobs/{job['id']}/results", params=params)
        assert r.status_code == 400 and message in r.json()["error"]
    assert httpx.get(f"{server}/jobs/not-a-job").status_code == 404


def test_job_metrics(server):
    names = {"zsc_jobs_total", "zsc_jobs_items_total", "zsc_jobs_chunks_total", "zsc_jobs_queue_depth"}
    text = httpx.get(f"{server}/metrics").text
    assert all(n in text for n in names)
    before = {k: counter(server, "zsc_jobs", event=k) for k in ("submitted", "finished")}
    items_before = counter(server, "zsc_jobs_items")
    job = submit(server, {"texts": [f"text {i}" for i in range(70)], "labels": LABELS})  # 2 chunks
    wait(server, job["id"])
    assert counter(server, "zsc_jobs", event="submitted") - before["submitted"] == 1
    assert counter(server, "zsc_jobs", event="finished") - before["finished"] == 1
    assert counter(server, "zsc_jobs_items") - items_before == 70


def test_without_redis_jobs_run_in_process(default_server):
    items = [{"text": t, "labels": LABELS} for t in ("The striker scored twice", "The parcel never arrived")]
    job = submit(default_server, {"items": items})
    assert job["backend"] == "memory"
    done = wait(default_server, job["id"])
    got = [{k: v for k, v in e.items() if k != "index"} for e in results_jsonl(default_server, job["id"])]
    assert got == batch_answers(default_server, items)
    assert cancel(default_server, job["id"]) == done  # finished: nothing to cancel
    delete(default_server, job["id"])
    assert_gone(default_server, job["id"], 86400)


def test_without_redis_cancel_keeps_and_delete_forgets_a_running_job(default_server):
    url = default_server
    kept = submit(url, {"items": corpus(3000, " kept"), "labels": LABELS})
    running_with_results(url, kept["id"])
    cancelled = cancel(url, kept["id"])
    assert cancelled["state"] == "cancelled" and cancelled["backend"] == "memory"
    assert len(results_jsonl(url, kept["id"])) == httpx.get(f"{url}/jobs/{kept['id']}").json()["done"] > 0
    gone = submit(url, {"items": corpus(3000, " gone"), "labels": LABELS})
    running_with_results(url, gone["id"])
    delete(url, gone["id"])
    after = submit(url, {"texts": ["one more"], "labels": LABELS})  # the worker goes on
    assert wait(url, after["id"], timeout=60)["state"] == "done"
    # by then the chunk in progress at the delete has ended in the model (one worker, one chunk at a time):
    # its results did not bring the job back
    assert_gone(url, gone["id"], 86400)
    assert httpx.get(f"{url}/jobs/{kept['id']}").json()["state"] == "cancelled"


def test_redis_store_hands_a_released_chunk_over_at_once_and_claims_stalled_ones(redis_url):
    """The store's queue rules against the real Redis, with two workers' names (no service needed)."""
    import asyncio

    from service.jobs.records import JobInfo
    from service.jobs.redis_store import RedisJobStore

    async def go():
        store = RedisJobStore(redis_url, "storetest", visibility_s=0.3)
        job = JobInfo("j1", "queued", total=2, chunks=2, chunk_items=1, created=time.time(), ttl_s=60)
        await store.create(job, [[{"text": "a"}], [{"text": "b"}]])
        first = await store.take("worker-a", 0.1)
        await store.release(first)  # worker-a stops: worker-b gets it now, not after the timeout
        again = await store.take("worker-b", 0.1)
        assert (again.index, again.reclaimed, again.deliveries) == (0, True, 2)
        assert await store.begin(again) == "running"
        assert await store.complete(again, [{"labels": ["y"]}], 0) == 1
        await store.ack(again)
        second = await store.take("worker-a", 0.1)
        assert second.index == 1 and await store.take("worker-b", 0.1) is None  # nothing stalled yet
        await asyncio.sleep(0.5)  # worker-a stalls past the visibility timeout
        stolen = await store.take("worker-b", 0.1)
        assert (stolen.index, stolen.reclaimed) == (1, True)
        assert await store.complete(stolen, [{"labels": ["x"]}], 0) == 2  # the last chunk finishes the job
        assert await store.complete(second, [{"labels": ["x"]}], 0) == 0  # the stalled worker's late copy
        for chunk in (second, stolen):
            await store.ack(chunk)
        info = await store.info("j1")
        assert (info.state, info.done, info.chunks_done) == ("done", 2, 2) and await store.depth() == 0
        await store.close()

    asyncio.run(go())


def test_redis_store_delete_leaves_nothing_for_a_worker_to_write_back(redis_url):
    """A job deleted while a worker holds its chunk: the late completion stores nothing and recreates no
    key; its queued chunk is not begun."""
    import asyncio

    import redis.asyncio as aioredis

    from service.jobs.records import NOT_STORED, JobInfo
    from service.jobs.redis_store import RedisJobStore

    async def go():
        store = RedisJobStore(redis_url, "deltest", visibility_s=60)
        job = JobInfo("j2", "queued", total=2, chunks=2, chunk_items=1, created=time.time(), ttl_s=60)
        await store.create(job, [[{"text": "a"}], [{"text": "b"}]])
        held = await store.take("worker-a", 0.1)
        assert await store.begin(held) == "running"
        assert await store.complete(held, [{"labels": ["y"]}], 0) == 1  # one chunk's results are stored
        queued = await store.take("worker-b", 0.1)
        assert await store.delete("j2") is True and await store.delete("j2") is False
        assert await store.complete(queued, [{"labels": ["x"]}], 0) == NOT_STORED
        assert await store.begin(queued) is None and await store.cancel("j2") is None
        async with aioredis.from_url(redis_url) as r:
            assert [k async for k in r.scan_iter("deltest:job:*")] == []
        await store.close()

    asyncio.run(go())


def test_redis_store_keeps_a_job_until_it_ends_then_for_its_ttl(redis_url):
    """A job's TTL runs from its end, not from its submission: while it waits in a long queue or runs, none
    of its keys expires; its last chunk (or a cancel) gives every one of them the TTL."""
    import asyncio

    import redis.asyncio as aioredis

    from service.jobs.records import JobInfo
    from service.jobs.redis_store import RedisJobStore

    async def go():
        store = RedisJobStore(redis_url, "ttltest", visibility_s=60)
        async with aioredis.from_url(redis_url, decode_responses=True) as r:

            async def ttls(job_id: str) -> dict[str, int]:
                return {k: await r.ttl(k) async for k in r.scan_iter(f"ttltest:job:{job_id}*")}

            job = JobInfo("long", "queued", total=2, chunks=2, chunk_items=1, created=time.time(), ttl_s=30)
            await store.create(job, [[{"text": "a"}], [{"text": "b"}]])
            assert set((await ttls("long")).values()) == {-1}, "queued: no expiry"
            first = await store.take("w", 0.1)
            assert await store.begin(first) == "running"
            assert await store.complete(first, [{"labels": ["y"]}], 0) == 1
            assert set((await ttls("long")).values()) == {-1}, "running: no expiry"
            second = await store.take("w", 0.1)
            assert await store.complete(second, [{"labels": ["y"]}], 0) == 2
            ended = await ttls("long")
            assert len(ended) == 2 and all(0 < t <= 30 for t in ended.values()), ended

            cancelled = JobInfo("gone", "queued", total=1, chunks=1, chunk_items=1, created=time.time(), ttl_s=30)
            await store.create(cancelled, [[{"text": "c"}]])
            assert (await store.cancel("gone")).state == "cancelled"
            assert all(0 < t <= 30 for t in (await ttls("gone")).values())
        await store.close()

    asyncio.run(go())
