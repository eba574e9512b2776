"""Two cache tiers for model rows: a bounded in-process LRU in front of an optional Redis.

What is cached is the model's output for one sequence, keyed by a hash of (model revision, kind, the
exact sequence): NLI logits per (text, hypothesis), embeddings per text or per label hypothesis. Scores
are computed from rows exactly as without a cache, so single- and multi-label share entries, and a
request whose labels overlap earlier ones computes only its new pairs.

Redis is never required: every Redis call has a short timeout; failures open a circuit breaker that
skips Redis (with growing backoff) until a probe succeeds, and each state change is logged once.
Lookups are one MGET per request; writes are one pipeline per computed batch, off the response path.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from service.config import redact_url
from service.core.task import Seq
from service.obs.tracing import tracer

log = logging.getLogger("zsc.cache")


def cache_key(prefix: str, revision: str, kind: str, seq: Seq) -> str:
    """``prefix:revision:kind:tdigest``; the revision in every key keeps models apart; the ``t`` says the
    row ends with its sequence's token count (rows stored before without it are not read as such)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(seq[0].encode("utf-8"))
    if seq[1] is not None:
        h.update(b"\x00\x01")  # a separator no text contains; distinguishes (a, b) from (a + b, None)
        h.update(seq[1].encode("utf-8"))
    return f"{prefix}:{revision}:{kind}:t{h.hexdigest()}"


class LocalTier:
    """LRU bounded by entries and bytes; thread-safe (lookups on the event loop, writes from the batch)."""

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.bytes = 0
        self._data: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, keys: Iterable[str]) -> dict[str, np.ndarray]:
        found = {}
        with self._lock:
            for k in keys:
                row = self._data.get(k)
                if row is not None:
                    self._data.move_to_end(k)
                    found[k] = row
        return found

    def put_many(self, items: Iterable[tuple[str, np.ndarray]]) -> None:
        if self.max_entries <= 0 or self.max_bytes <= 0:
            return
        with self._lock:
            for k, row in items:
                old = self._data.pop(k, None)
                if old is not None:
                    self.bytes -= old.nbytes
                self._data[k] = row
                self.bytes += row.nbytes
            while self._data and (len(self._data) > self.max_entries or self.bytes > self.max_bytes):
                _, row = self._data.popitem(last=False)
                self.bytes -= row.nbytes

    def __len__(self) -> int:
        return len(self._data)


class CircuitBreaker:
    """closed -> (failure) -> open for ``backoff`` -> half-open: one probe -> closed or open (backoff x2)."""

    def __init__(
        self,
        name: str,
        base_backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self._clock = clock
        self.base = base_backoff_s
        self.max = max_backoff_s
        self.state = "closed"
        self.backoff = base_backoff_s
        self._retry_at = 0.0
        self._probing = False
        self._lock = threading.Lock()

    def allow(self) -> bool:
        with self._lock:
            if self.state == "closed":
                return True
            if self._clock() >= self._retry_at and not self._probing:
                self._probing = True
                self._set("half-open", "probing")
                return True
            return False

    def success(self) -> None:
        with self._lock:
            self._probing = False
            if self.state != "closed":
                self.backoff = self.base
                self._set("closed", "Redis answers again; using it")

    def failure(self, exc: BaseException) -> None:
        with self._lock:
            self._probing = False
            if self.state == "open":
                return
            if self.state == "half-open":
                self.backoff = min(self.backoff * 2, self.max)
            self._retry_at = self._clock() + self.backoff
            self._set("open", f"skipping Redis for {self.backoff:.0f}s after {type(exc).__name__}: {exc}")

    def _set(self, state: str, why: str) -> None:
        if state != self.state:
            (log.info if state != "open" else log.warning)("%s breaker %s -> %s: %s", self.name, self.state, state, why)
            self.state = state


def short_timeout_client(url: str, timeout_s: float, max_connections: int):
    """An async Redis client whose every call gives up after ``timeout_s`` (no retry): what a request's path
    may wait on a Redis that is never required."""
    import redis.asyncio as aioredis

    return aioredis.Redis.from_url(
        url,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        retry_on_timeout=False,
        health_check_interval=0,
        max_connections=max_connections,
    )


class RedisTier:
    """Async Redis access with short timeouts behind a circuit breaker. Values are raw float32 rows."""

    def __init__(self, url: str, ttl_s: int, timeout_s: float) -> None:
        self.url = redact_url(url)
        self.ttl_s = ttl_s
        self.breaker = CircuitBreaker("redis")
        self._client = short_timeout_client(url, timeout_s, max_connections=64)
        self._pending: set[asyncio.Task] = set()

    async def get_many(self, keys: Sequence[str], width: int | None) -> tuple[dict[str, np.ndarray], int] | None:
        """(rows found, garbage values ignored), or None while the breaker skips Redis.
        Raises RedisUnavailable when the call fails (and opens the breaker)."""
        if not keys or not self.breaker.allow():
            return None
        try:
            values = await self._client.mget(list(keys))
        except Exception as exc:  # timeouts, refused connections, protocol errors: all mean "no Redis"
            self.breaker.failure(exc)
            raise RedisUnavailable(exc) from exc
        self.breaker.success()
        found, garbage = {}, 0
        for k, v in zip(keys, values):
            if v is None:
                continue
            if not isinstance(v, bytes) or len(v) % 4 or (width is not None and len(v) != 4 * width):
                garbage += 1  # not one of our rows: ignore it, recompute, overwrite
                continue
            found[k] = np.frombuffer(v, dtype=np.float32)
        return found, garbage

    def put_many_later(self, items: Sequence[tuple[str, np.ndarray]], on_error) -> None:
        """Write-behind: one pipeline, scheduled on the event loop, never awaited by a request."""
        if not items or self.breaker.state == "open":
            return
        task = asyncio.get_running_loop().create_task(self._put(items, on_error))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _put(self, items: Sequence[tuple[str, np.ndarray]], on_error) -> None:
        with tracer().start_as_current_span("cache.redis.write", attributes={"zsc.rows": len(items)}) as span:
            try:
                async with self._client.pipeline(transaction=False) as pipe:
                    for k, row in items:
                        pipe.set(k, np.ascontiguousarray(row, dtype=np.float32).tobytes(), ex=self.ttl_s)
                    await pipe.execute()
                self.breaker.success()
            except Exception as exc:
                span.record_exception(exc)
                self.breaker.failure(exc)
                on_error(exc)

    async def close(self) -> None:
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        await self._client.aclose()


class RedisUnavailable(Exception):
    pass
