"""The cache tiers against a real redis-server: hits, partial hits, TTL, revision isolation, faults.

The NLI servers count every (text, hypothesis) pair that reaches the model in zsc_sequences_total, so
"computes only the new pairs" is checked by counting, not assumed. One server per configuration: two
replicas on a shared Redis (``pair``), and one on a Redis of its own that the fault tests kill, restart and
stall (``fragile``); the TTL, the second revision and a dead Redis need settings of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time

import httpx
import pytest

from harness.launchers import redis_url
from harness.metrics import counter
from harness.net import free_port
from tests.support.server import bento_server, redis, run_cli

LABELS = ["billing", "shipping", "refund", "praise", "account"]


def post(url, text, labels, **extra):
    r = httpx.post(f"{url}/classify", json={"text": text, "labels": labels, **extra}, timeout=60)
    assert r.status_code == 200, r.text
    return r


def sequences(url) -> float:
    return counter(url, "zsc_sequences_total")


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    server = redis(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


def client(server):
    import redis as redis_lib

    return redis_lib.Redis.from_url(server.url, socket_timeout=2)


@contextlib.contextmanager
def nli_server(env, tmp_path, name, redis_url, **settings):
    """tiny-hf behind Redis; the in-process tier is off unless asked, so Redis does the work."""
    extra = {"ZSC_MODEL": "tiny-hf", "ZSC_REDIS_URL": redis_url, "ZSC_CACHE_LOCAL_ENTRIES": "0", **settings}
    with bento_server({**env, **extra}, tmp_path / f"{name}.log") as url:
        yield url


@pytest.fixture(scope="module")
def pair(tiny_models, redis_server, tmp_path_factory):
    """Two replicas on the shared Redis, the in-process tier off: (a, b)."""
    logs = tmp_path_factory.mktemp("pair")
    with (
        nli_server(tiny_models, logs, "a", redis_server.url) as a,
        nli_server(tiny_models, logs, "b", redis_server.url) as b,
    ):
        yield a, b


def test_hit_partial_hit_and_shared_across_replicas(pair, redis_server):
    client(redis_server).flushall()
    a, b = pair
    first = post(a, "my card was charged twice", LABELS[:3])
    assert first.headers["x-cache"] == "miss"
    time.sleep(0.3)  # writes go to Redis behind the response

    before = sequences(a)
    again = post(a, "my card was charged twice", LABELS[:3], multi_label=True)
    assert again.headers["x-cache"] == "hit" and sequences(a) == before

    partial = post(a, "my card was charged twice", LABELS[1:5])  # shipping, refund known; praise, account new
    assert partial.headers["x-cache"] == "partial"
    assert sequences(a) - before == 2, "only the two new pairs reach the model"

    # the other replica has never seen the text: everything comes from Redis
    b_before = sequences(b)
    other = post(b, "my card was charged twice", LABELS[:3])
    assert other.headers["x-cache"] == "hit" and sequences(b) == b_before
    assert other.json()["scores"] == pytest.approx(first.json()["scores"], abs=1e-6)
    assert counter(b, "zsc_cache_requests_total", tier="redis", result="hit") >= 3


def test_ttl_expiry(tiny_models, redis_server, tmp_path):
    client(redis_server).flushall()
    with nli_server(tiny_models, tmp_path, "ttl", redis_server.url, ZSC_CACHE_TTL_S="1") as url:
        post(url, "where is my parcel", LABELS[:2])
        written = time.monotonic()
        time.sleep(0.3)
        assert post(url, "where is my parcel", LABELS[:2]).headers["x-cache"] == "hit"
        while (status := post(url, "where is my parcel", LABELS[:2]).headers["x-cache"]) == "hit":
            assert time.monotonic() - written < 10, "the entries outlived their TTL"
            time.sleep(0.1)  # a read does not refresh an entry's TTL
        assert status == "miss" and time.monotonic() - written >= 0.9, "gone at the TTL, not before"


def test_new_model_revision_never_reads_old_entries(pair, tiny_models, tiny_checkpoints, redis_server, tmp_path):
    client(redis_server).flushall()
    result = run_cli(
        ["import-model", str(tiny_checkpoints["hf"][0]), "--name", "tiny-hf-r2", "--revision", "r2", "--no-onnx"],
        tiny_models,
    )
    assert result.returncode == 0, result.stderr
    r1, _ = pair
    post(r1, "the screen has dead pixels", LABELS)
    time.sleep(0.3)
    assert post(r1, "the screen has dead pixels", LABELS).headers["x-cache"] == "hit"
    with nli_server(tiny_models, tmp_path, "r2", redis_server.url, ZSC_MODEL="tiny-hf-r2") as r2:
        fresh = post(r2, "the screen has dead pixels", LABELS)
        assert fresh.headers["x-cache"] == "miss" and fresh.json()["revision"] == "r2"


def test_garbage_in_redis_is_ignored_and_overwritten(pair, redis_server):
    client(redis_server).flushall()
    url, _ = pair
    garbage_before = counter(url, "zsc_cache_errors_total", tier="redis", kind="garbage")
    reference = post(url, "please refund me", ["refund", "praise"]).json()
    time.sleep(0.3)
    r = client(redis_server)
    keys = r.keys("zsc:*:nli:*")  # the cache's rows (the job queue's stream lives beside them)
    assert len(keys) == 2
    for k in keys:
        r.set(k, b"not a row")
    again = post(url, "please refund me", ["refund", "praise"])
    assert again.headers["x-cache"] == "miss"
    assert again.json()["scores"] == pytest.approx(reference["scores"], abs=1e-6)
    assert counter(url, "zsc_cache_errors_total", tier="redis", kind="garbage") == garbage_before + 2


def _reference_scores(url, bodies):
    return [httpx.post(f"{url}/classify", json=b, timeout=60).json()["scores"] for b in bodies]


async def _burst(url, bodies, concurrency=16, during=None):
    """Send every body once with bounded concurrency; ``during`` runs after a third have been sent."""
    sem = asyncio.Semaphore(concurrency)
    sent = 0

    async with httpx.AsyncClient(timeout=60) as client:

        async def one(body):
            nonlocal sent
            async with sem:
                sent += 1
                if during is not None and sent == len(bodies) // 3:
                    await asyncio.get_running_loop().run_in_executor(None, during)
                return await client.post(f"{url}/classify", json=body)

        return await asyncio.gather(*(one(b) for b in bodies))


def test_redis_down_before_start(tiny_models, tmp_path):
    dead = redis_url(free_port())  # nothing listens there
    with nli_server(tiny_models, tmp_path, "down", dead, ZSC_CACHE_LOCAL_ENTRIES="1000") as url:
        r = post(url, "I love this coffee machine", LABELS)
        assert r.headers["x-cache"] == "miss"
        assert post(url, "I love this coffee machine", LABELS).headers["x-cache"] == "hit"  # in-process tier
        assert counter(url, "zsc_cache_errors_total", tier="redis", kind="read") >= 1


class Fragile:
    """A server on a Redis of its own, which the tests may kill and restart (same port) or stall."""

    def __init__(self, redis_dir):
        self.dir = redis_dir
        self.redis = redis(redis_dir)
        self.url = ""

    def restart_redis(self):
        self.redis = redis(self.dir, port=self.redis.member.port)


@pytest.fixture(scope="module")
def fragile(tiny_models, tmp_path_factory):
    work = tmp_path_factory.mktemp("fragile")
    state = Fragile(work / "redis")
    try:
        with nli_server(tiny_models, work, "fragile", state.redis.url) as url:
            state.url = url
            yield state
    finally:
        state.redis.kill()


def test_slow_redis_is_skipped(fragile):
    url = fragile.url
    bodies = [{"text": f"slow {i}", "labels": LABELS[:3]} for i in range(30)]
    before = counter(url, "zsc_cache_errors_total", tier="redis", kind="read")

    def stall():
        with contextlib.suppress(Exception):
            client(fragile.redis).execute_command("DEBUG", "SLEEP", "1.5")

    responses = asyncio.run(_burst(url, bodies, concurrency=8, during=stall))
    assert [r.status_code for r in responses] == [200] * len(responses)
    assert counter(url, "zsc_cache_errors_total", tier="redis", kind="read") >= before + 1


def wait_for_redis_in_use(url: str, name: str, seconds: float = 20) -> None:
    """Poll until a text sent twice is a Redis hit the second time (the breaker closed, Redis answering)."""
    deadline = time.monotonic() + seconds
    for attempt in itertools.count():
        text = f"wake the cache {name} {attempt}"
        post(url, text, LABELS[:2])
        time.sleep(0.2)  # the write goes to Redis off the request's path
        if post(url, text, LABELS[:2]).headers["x-cache"] == "hit":
            return
        assert time.monotonic() < deadline, f"Redis was not used again within {seconds} s"


def test_redis_killed_during_a_burst_then_restarted(fragile, pair):
    bodies = [{"text": f"order {i} arrived broken", "labels": LABELS[: 2 + i % 4]} for i in range(60)]
    expected = _reference_scores(pair[0], bodies)  # the same model elsewhere
    url = fragile.url
    wait_for_redis_in_use(url, "before")  # past the breaker's backoff, should an earlier test have opened it
    responses = asyncio.run(_burst(url, bodies * 2, during=fragile.redis.kill))
    assert [r.status_code for r in responses] == [200] * len(responses)
    for body, r in zip(bodies * 2, responses):
        assert r.json()["scores"] == pytest.approx(expected[bodies.index(body)], abs=1e-6)

    # Redis back on the same port: once the breaker lets a probe through, the cache is used again
    fragile.restart_redis()
    wait_for_redis_in_use(url, "wake")  # once the breaker lets a probe through, the cache is used again
    redis_hits = counter(url, "zsc_cache_requests_total", tier="redis", result="hit")
    assert redis_hits >= 2, "Redis is used again after it came back"
    assert client(fragile.redis).dbsize() > 0
