"""Cache pieces without servers: keys, the in-process LRU, the circuit breaker (injected clock), URL redaction."""

from __future__ import annotations

import logging

import numpy as np

from service.pipeline.cache import CircuitBreaker, LocalTier, cache_key, redact_url


def test_revision_and_kind_are_part_of_every_key():
    seq = ("text", "hypothesis")
    assert cache_key("zsc", "rev-a", "nli", seq) != cache_key("zsc", "rev-b", "nli", seq)
    assert cache_key("zsc", "r", "nli", seq) != cache_key("zsc", "r", "embedding", seq)
    assert cache_key("a", "r", "nli", seq).startswith("a:r:nli:")
    assert cache_key("zsc", "r", "nli", seq) == cache_key("zsc", "r", "nli", ("text", "hypothesis"))


def test_keys_keep_pair_boundaries():
    assert cache_key("zsc", "r", "nli", ("ab", "c")) != cache_key("zsc", "r", "nli", ("a", "bc"))
    assert cache_key("zsc", "r", "embedding", ("ab", None)) != cache_key("zsc", "r", "embedding", ("a", "b"))
    assert cache_key("zsc", "r", "nli", ("a", "")) != cache_key("zsc", "r", "nli", ("a", None))


def test_local_tier_bounds_entries_and_bytes():
    tier = LocalTier(max_entries=3, max_bytes=10**6)
    tier.put_many((f"k{i}", np.zeros(4, np.float32)) for i in range(5))
    assert len(tier) == 3 and set(tier.get_many(["k0", "k1", "k2", "k3", "k4"])) == {"k2", "k3", "k4"}
    small = LocalTier(max_entries=100, max_bytes=40)
    small.put_many((f"k{i}", np.zeros(4, np.float32)) for i in range(5))  # 16 bytes each
    assert small.bytes <= 40 and len(small) == 2


def test_local_tier_is_lru_and_can_be_off():
    tier = LocalTier(max_entries=2, max_bytes=10**6)
    tier.put_many([("a", np.ones(1, np.float32)), ("b", np.ones(1, np.float32))])
    tier.get_many(["a"])  # a is now the most recent
    tier.put_many([("c", np.ones(1, np.float32))])
    assert set(tier.get_many(["a", "b", "c"])) == {"a", "c"}
    off = LocalTier(max_entries=0, max_bytes=10**6)
    off.put_many([("a", np.ones(1, np.float32))])
    assert len(off) == 0


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_breaker_opens_on_failure_and_probes_after_backoff(caplog):
    clock = Clock()
    breaker = CircuitBreaker("redis", base_backoff_s=1, max_backoff_s=4, clock=clock)
    assert breaker.allow() and breaker.state == "closed"
    with caplog.at_level(logging.INFO, logger="zsc.cache"):
        breaker.failure(ConnectionError("refused"))
    assert breaker.state == "open" and not breaker.allow()
    clock.now += 0.99
    assert not breaker.allow()
    clock.now += 0.02
    assert breaker.allow() and breaker.state == "half-open"
    assert not breaker.allow(), "one probe at a time"
    breaker.success()
    assert breaker.state == "closed" and breaker.allow()
    assert [r.message.split(":")[0] for r in caplog.records] == ["redis breaker closed -> open"]


def test_breaker_backoff_doubles_up_to_the_cap_and_resets_on_success():
    clock = Clock()
    breaker = CircuitBreaker("redis", base_backoff_s=1, max_backoff_s=4, clock=clock)
    breaker.failure(TimeoutError())
    waits = []
    for _ in range(4):  # every probe fails
        wait = 0.0
        while not breaker.allow():
            clock.now += 0.25
            wait += 0.25
        waits.append(wait)
        breaker.failure(TimeoutError())
    assert waits == [1.0, 2.0, 4.0, 4.0]
    while not breaker.allow():
        clock.now += 0.25
    breaker.success()
    breaker.failure(TimeoutError())
    assert breaker.backoff == 1


def test_breaker_logs_each_state_change_once(caplog):
    breaker = CircuitBreaker("redis", clock=Clock())
    with caplog.at_level(logging.INFO, logger="zsc.cache"):
        for _ in range(5):
            breaker.failure(ConnectionError("down"))
    assert len(caplog.records) == 1


def test_redis_password_is_redacted():
    assert redact_url("redis://:s3cret@host:6379/0") == "redis://:***@host:6379/0"
    assert redact_url("rediss://user:s3cret@host/1") == "rediss://user:***@host/1"
    assert redact_url("redis://host:6379/0") == "redis://host:6379/0"
