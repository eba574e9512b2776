"""Job workers yield to interactive traffic on any replica of the jobs Redis (jobs/activity.py).

First the signal itself against a real redis-server: what one process marks another sees, for as long as
the hold, and nothing while Redis is down (each falls back to its own replica's calls) until it is back.
Then two real replicas sharing one jobs Redis: A serves interactive traffic and runs no job
(``ZSC_JOB_WORKERS=0``, or ``ZSC_ROLE=api`` beside B with ``ZSC_ROLE=jobs``), B runs a job with a 10 %
share; B's job slows to a fraction of its rate while A is loaded, every slice B runs meanwhile is
followed by a pause for the cluster's traffic (its own replica serves none), and B goes back to full speed
once A is quiet.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import httpx
import pytest

from harness.launchers import bento_serve, jobs_redis_server
from harness.metrics import counter
from harness.net import free_port
from harness.process import start, wait_all_ready
from service.jobs.activity import ClusterActivity
from tests.integration.test_jobs import LABELS, corpus
from tests.support.jobs import cancel, status, submit

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def jobs_redis(tmp_path):
    proc = start(jobs_redis_server("jobs-redis", free_port(), tmp_path / "jobs-redis")).wait_ready(20)
    yield proc
    proc.stop()


def test_what_one_process_marks_the_others_see_until_redis_goes_away(jobs_redis, tmp_path):
    busy = {"a": False, "b": False}
    a, b = (ClusterActivity(jobs_redis.url, "zsc", name, lambda n=name: busy[n]) for name in ("a", "b"))

    async def go():
        assert b.busy() is None  # b's worker asks: b now reads on each tick
        await a.tick()  # a idle and running no job: no call
        await b.tick()
        assert b.busy() is None
        busy["a"] = True
        await a.tick()  # a marks itself
        await b.tick()
        assert b.busy() == "cluster" and a.busy() == "replica"
        busy["a"] = False
        await asyncio.sleep(0.35)  # past the hold: a's last mark no longer counts
        await b.tick()
        assert b.busy() is None

        busy["a"] = True
        await a.tick()
        jobs_redis.kill()
        await b.tick()  # fails: the view is dropped, b yields to its own replica only
        assert b.busy() is None
        busy["b"] = True
        assert b.busy() == "replica"
        busy["b"] = False

        restarted = start(jobs_redis.member).wait_ready(20)  # same port and files
        try:
            await asyncio.sleep(b.view.retry_s)
            assert b.busy() is None  # b's worker asks again (it has gone on with its job)
            await a.tick()
            await b.tick()
            assert b.busy() == "cluster"
        finally:
            await a.stop()
            await b.stop()
            restarted.stop()

    asyncio.run(go())


def test_processes_running_a_job_count_each_other(jobs_redis):
    """Each process whose worker is at work marks itself as it reads: both see two job workers (the share
    they divide), and one that stops asking drops out after the hold."""
    a, b = (ClusterActivity(jobs_redis.url, "zsc", name, lambda: False) for name in ("a", "b"))

    async def go():
        try:
            a.busy(), b.busy()  # both workers ask after a slice
            await a.tick()
            await b.tick()
            await a.tick()
            assert (a.workers(), b.workers()) == (2, 2)
            a.view._asked = float("-inf")  # a's job is done: its worker no longer asks
            await asyncio.sleep(a._working_hold_ms / 1000 + 0.1)
            b.busy()
            await b.tick()
            assert b.workers() == 1
        finally:
            await a.stop()
            await b.stop()

    asyncio.run(go())


def progress(url: str, worker: str, job_id: str, until, deadline_s: float = 30) -> tuple[float, float, int]:
    """(items per second, slices ``worker`` paused after for the cluster's traffic, items done) from now until
    ``until(items done, pauses)`` holds, polled (the job read through ``url``): a window that ends on what it
    counts, so a slow machine's window is longer, not emptier."""
    done0, yields0 = status(url, job_id)["done"], counter(worker, "zsc_jobs_yields", where="cluster")
    t0 = time.monotonic()
    while True:
        time.sleep(0.2)
        items = status(url, job_id)["done"] - done0
        paused = counter(worker, "zsc_jobs_yields", where="cluster") - yields0
        if until(items, paused):
            return items / (time.monotonic() - t0), paused, items
        assert time.monotonic() - t0 < deadline_s, (items, paused)


# A serves interactive traffic and runs no job, B runs the job: today's replicas with A's worker off, or the
# roles apart (ZSC_ROLE=api and jobs: B serves no job route, so the job is submitted and watched through A)
SPLITS = {
    "workers-off": ({"ZSC_JOB_WORKERS": "0"}, {}),
    "roles": ({"ZSC_ROLE": "api"}, {"ZSC_ROLE": "jobs"}),
}


@pytest.mark.parametrize("split", SPLITS)
def test_a_worker_on_one_replica_yields_while_another_serves(split, tiny_models, jobs_redis, tmp_path):
    common = {**tiny_models, "ZSC_MODEL": "tiny-hf", "ZSC_RUNTIME": "onnx", "ZSC_JOBS_REDIS_URL": jobs_redis.url}
    env_a, env_b = SPLITS[split]
    members = [
        bento_serve("replica-a", free_port(), tmp_path / "a", {**common, **env_a}),
        bento_serve("replica-b", free_port(), tmp_path / "b", {**common, "ZSC_JOB_SHARE_PCT": "10", **env_b}),
    ]
    with contextlib.ExitStack() as stack:
        procs = [stack.enter_context(start(m)) for m in members]
        wait_all_ready(procs, 180)
        a, b = (m.url for m in members)
        jobs_api = a if split == "roles" else b

        job = submit(jobs_api, {"items": corpus(20000), "labels": LABELS})
        deadline = time.monotonic() + 30
        while status(jobs_api, job["id"])["done"] == 0:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        # progress is counted by chunks of 64: eight of them make a rate
        idle_rate, idle_yields, _ = progress(jobs_api, b, job["id"], lambda items, _: items >= 512)
        assert idle_yields == 0  # nobody serves interactive traffic: flat out

        stop = threading.Event()
        answers: list[int] = []

        def client(i: int) -> None:
            with httpx.Client(timeout=30) as http:
                n = 0
                while not stop.is_set():
                    body = {"text": f"The team won the cup, time {i}-{n}", "labels": LABELS}
                    answers.append(http.post(f"{a}/classify", json=body).status_code)
                    n += 1

        threads = [threading.Thread(target=client, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        try:
            # A's marks reach B within a tick or two: B's first pause for them opens the window
            progress(jobs_api, b, job["id"], lambda _, paused: paused >= 1)
            loaded_rate, loaded_yields, loaded_items = progress(jobs_api, b, job["id"], lambda _, paused: paused >= 10)
        finally:
            stop.set()
            for t in threads:
                t.join()
        assert answers and set(answers) == {200}
        time.sleep(1.0)  # past the hold and B's grace
        after_rate, _, _ = progress(jobs_api, b, job["id"], lambda items, _: items >= 512)
        cancel(jobs_api, job["id"])

        assert counter(b, "zsc_jobs_yields", where="replica") == 0  # B itself served no interactive call
        # every slice B ran while A was loaded was followed by a pause: 16 items a slice, progress counted
        # by chunks of 64 (a window may hold up to 3 slices of chunks it does not count, on each edge)
        assert loaded_yields > 0 and loaded_yields >= loaded_items / 16 - 6, (loaded_yields, loaded_items)
        # 10 % of its model time: here 0.06 of the idle rate; yielding only to its own replica, B still ran
        # at 0.37 of it (the cores A and B share)
        assert loaded_rate < 0.2 * idle_rate, (idle_rate, loaded_rate)
        assert after_rate > 2 * loaded_rate, (idle_rate, loaded_rate, after_rate)
