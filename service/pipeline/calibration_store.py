"""Traffic calibration records shared by replicas through Redis (the cache's, ``ZSC_REDIS_URL``).

One hash per record: ``<prefix>:cal:<model revision>:<space>:<digest of the sorted wordings>``, fields as
``core.calibration.to_fields`` names them. No writer reads before it writes: a flush adds its delta with
``HINCRBYFLOAT`` only, decay turned into growth (``increment_fields``: a text at position p weighs
2 ** ((p - origin) / half_life), the reader divides by that of the record's own ``texts``), so replicas
never overwrite each other. Every write renews the key's lifetime (``ZSC_CALIBRATION_TTL_S``): a record no
one uses is gone after it, and Redis's memory stays bounded. Once in every few hundred half-lives a record
is rewritten on a smaller scale (``rebase_fields``), in a transaction that fails if anyone wrote meanwhile
(the next flush tries again).

Redis is never required: calls time out after ``ZSC_REDIS_TIMEOUT_MS`` and a circuit breaker skips Redis
after a failure (as the cache's tier does); a process then keeps learning on its own, and a flush that
failed is kept for the next one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from service.config import redact_url
from service.core.calibration import LabelStats, increment_fields, needs_rebase, rebase_fields
from service.pipeline.cache import CircuitBreaker, short_timeout_client

log = logging.getLogger("zsc.calibration")


class CalibrationStoreUnavailable(Exception):
    pass


class CalibrationStore:
    def __init__(self, url: str, prefix: str, ttl_s: int, timeout_s: float) -> None:
        self.url = redact_url(url)
        self.prefix = prefix
        self.ttl_s = ttl_s
        self.breaker = CircuitBreaker("calibration redis")
        self._client = short_timeout_client(url, timeout_s, max_connections=16)

    def key(self, revision: str, space: str, digest: str) -> str:
        return f"{self.prefix}:cal:{revision}:{space}:{digest}"

    async def read(self, keys: Sequence[str]) -> list[dict] | None:
        """Each record's fields ({} for none), or None while the breaker skips Redis; raises
        ``CalibrationStoreUnavailable`` when the call fails."""
        if not keys or not self.breaker.allow():
            return None
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.hgetall(key)
                found = await pipe.execute()
        except Exception as exc:  # timeouts, refused connections, protocol errors: no Redis for now
            self.breaker.failure(exc)
            raise CalibrationStoreUnavailable(exc) from exc
        self.breaker.success()
        return found

    async def add(self, key: str, delta: LabelStats, half_life: float) -> dict:
        """Add a delta (increments only) and answer the record as it is after it (every replica's texts)."""
        if not self.breaker.allow():
            raise CalibrationStoreUnavailable("the breaker is open")
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.hincrbyfloat(key, "texts", delta.texts)
                pipe.hget(key, "origin")
                position, origin = await pipe.execute()
            fields = increment_fields(delta, float(position), float(origin or 0.0), half_life)
            async with self._client.pipeline(transaction=False) as pipe:
                for name, value in fields.items():
                    pipe.hincrbyfloat(key, name, value)
                pipe.expire(key, self.ttl_s)
                pipe.hgetall(key)
                *_, after = await pipe.execute()
            if needs_rebase(after, half_life):
                after = await self._rebase(key, delta.labels, half_life) or after
        except Exception as exc:
            self.breaker.failure(exc)
            raise CalibrationStoreUnavailable(exc) from exc
        self.breaker.success()
        return after

    async def _rebase(self, key: str, labels: tuple[str, ...], half_life: float) -> dict | None:
        """The record on a smaller scale, written only if nobody wrote it meanwhile (else: the next flush)."""
        from redis.exceptions import WatchError

        async with self._client.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(key)
                fields = await pipe.hgetall(key)
                fresh = rebase_fields(labels, fields, half_life)
                pipe.multi()
                pipe.hset(key, mapping=fresh)
                pipe.expire(key, self.ttl_s)
                await pipe.execute()
            except WatchError:
                return None
        log.info("calibration record %s rebased at %.0f texts", key, fresh["texts"])
        return fresh

    async def close(self) -> None:
        await self._client.aclose()
