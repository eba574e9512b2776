"""Jobs across replicas: redis-server, three `bentoml serve` replicas and nginx (the real cluster command).

One job is submitted, polled and fetched through nginx; the access log shows different replicas answering.
A replica is SIGKILLed (its whole process tree) while it works on a chunk: the survivors claim that chunk
after the visibility timeout, the job completes, and every item is there exactly once, with the answer
/classify_batch gives for it.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
import redis as redis_client

from harness.cluster import kill_member, member_pids
from harness.metrics import counter
from tests.integration.test_jobs import LABELS, corpus
from tests.support.cluster import access_log, attempts, local_cluster
from tests.support.jobs import batch_answers, results_jsonl

pytestmark = pytest.mark.timeout(600)
VISIBILITY_S = 4


@pytest.fixture(scope="module")
def cluster(tiny_models, tmp_path_factory):
    """Three replicas of the tiny NLI model (what is tested is the job machinery across replicas)."""
    run_dir = tmp_path_factory.mktemp("jobs-cluster")
    env = {**tiny_models, "ZSC_MODEL": "tiny-hf", "ZSC_RUNTIME": "onnx", "ZSC_JOB_VISIBILITY_S": str(VISIBILITY_S)}
    with local_cluster(run_dir, env, replicas=3) as state:
        yield state


def fresh(method: str, url: str, tag: str, **kwargs) -> httpx.Response:
    """One request on a new connection (nginx picks a replica per request; a kept-alive client would too,
    but a new one makes each pick independent of the last)."""
    with httpx.Client(timeout=120) as client:
        return client.request(method, url, headers={"X-Request-ID": tag}, **kwargs)


def test_a_job_survives_a_replica_killed_mid_job(cluster):
    url = cluster["nginx"]["url"]
    run_dir = Path(cluster["run_dir"])
    items = corpus(2000)
    store = redis_client.Redis(port=cluster["jobs_redis"]["port"], decode_responses=True)  # jobs have their own

    r = fresh("POST", f"{url}/jobs", "job-submit", json={"items": items, "labels": LABELS})
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]

    # let every replica get going, then kill one that holds a chunk
    def status(n: int) -> dict:
        s = fresh("GET", f"{url}/jobs/{job_id}", f"job-poll-{n}")
        assert s.status_code == 200, s.text
        return s.json()

    polls = 0
    while status(polls)["chunks_done"] < 3:
        polls += 1
        time.sleep(0.2)
    victim = cluster["replicas"][1]
    killed = kill_member(run_dir, victim["name"])
    assert killed and not member_pids(run_dir, victim["name"])
    stream, group = "zsc:jobs:stream", "zsc-job-workers"
    orphaned = sum(
        int(c["pending"]) for c in store.xinfo_consumers(stream, group) if int(c["name"].rsplit("-", 1)[1]) in killed
    )

    deadline = time.monotonic() + 400
    while (job := status(polls))["state"] != "done":
        assert time.monotonic() < deadline, job
        polls += 1
        time.sleep(0.5)
    assert (job["done"], job["chunks_done"], job["errors"]) == (2000, 32, 0)

    # every item exactly once: one stored result list per chunk, counters not counted twice
    assert store.hlen(f"zsc:job:{job_id}:results") == 32
    fetched = [results_jsonl(f"{url}", job_id) for _ in range(3)]
    for got in fetched:
        assert [e.pop("index") for e in got] == list(range(2000))
    assert fetched[0] == fetched[1] == fetched[2] == batch_answers(url, [{"labels": LABELS, **i} for i in items])

    # the chunk the dead replica held was claimed by a survivor after the visibility timeout
    survivors = [r for r in cluster["replicas"] if r["name"] != victim["name"]]
    claimed = sum(counter(r["url"], "zsc_jobs_chunks", outcome="claimed") for r in survivors)
    assert orphaned >= 1 and claimed >= orphaned, (orphaned, claimed)

    # submit, polls and fetches reached different replicas (nginx writes its log every second: wait for the
    # three fetches, the last requests, to be in it)
    deadline = time.monotonic() + 10
    while True:
        entries = [e for e in access_log(cluster, settle=0) if e["uri"].startswith("/jobs")]
        fetches = [e for e in entries if e["uri"].startswith(f"/jobs/{job_id}/results")]
        if len(fetches) >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    served = {e["request_id"]: attempts(e)[-1][0] for e in entries if e["status"] in (200, 202)}
    submit_at = served["job-submit"]
    others = Counter(addr for tag, addr in served.items() if tag != "job-submit")
    assert len(others) >= 2 and set(others) - {submit_at}, (submit_at, others)
    fetch_from = {attempts(e)[-1][0] for e in entries if e["uri"].startswith(f"/jobs/{job_id}/results")}
    assert fetch_from - {submit_at}, "every fetch went to the replica that took the submission"
