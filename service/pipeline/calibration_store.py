"""Traffic calibration records shared by replicas through Redis (the cache's, ``ZSC_REDIS_URL``).

One hash per record: ``<prefix>:cal2:<scope>:<model revision>:<space>:<digest of the sorted wordings>``, fields
as ``core.calibration_sources`` names them (each source's behind its name). A scope keeps at most
``ZSC_CALIBRATION_SCOPE_RECORDS`` records: a sorted set ``<prefix>:cal2:<scope>:index`` holds its keys by last
write, and a write past the bound deletes the oldest. No writer reads before it writes: a flush adds its delta with
increments only (``HINCRBYFLOAT`` for a number; a row of sums packed in one field, ``core.calibration.pack_row``,
is added element by element by a Lua script, as atomic), decay turned into growth (``increment_fields``: a text
at position p weighs 2 ** (age(p) - age(origin)), the reader divides by that of the record's own ``texts``), so
replicas never overwrite each other. Every write renews the key's lifetime (``ZSC_CALIBRATION_TTL_S``): a record no
one uses is gone after it, and Redis's memory stays bounded. Once in every few hundred half-lives a record
is rewritten on a smaller scale (``rebase_fields``), in a transaction that fails if anyone wrote meanwhile
(the next flush tries again).

Redis is never required: calls time out after ``ZSC_REDIS_TIMEOUT_MS`` and a circuit breaker skips Redis
after a failure (as the cache's tier does); a process then keeps learning on its own, and a flush that
failed is kept for the next one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from service.config import redact_url
from service.core.calibration import LabelStats, needs_rebase
from service.core.calibration_sources import increment_record, rebase_record, texts_of
from service.pipeline.cache import CircuitBreaker, short_timeout_client

log = logging.getLogger("zsc.calibration")
# the records' format in their keys: "cal2" keeps each label's sums per winning label (2026-12-05), where "cal"
# kept them weighed as the texts came; a replica of either version reads and writes only its own format's
KIND = "cal2"
# KEYS[1] the record; ARGV[1] how many numbers, then (field, increment) for each, then (field, packed row) for
# each row: a row missing is the row, else the sum element by element (%.17g reads back as the same double)
_ADD = """
local numbers = tonumber(ARGV[1])
for i = 2, 2 * numbers, 2 do redis.call('HINCRBYFLOAT', KEYS[1], ARGV[i], ARGV[i + 1]) end
for i = 2 * numbers + 2, #ARGV, 2 do
  local old = redis.call('HGET', KEYS[1], ARGV[i])
  if not old then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  else
    local before = {}
    for v in string.gmatch(old, '[^,]+') do before[#before + 1] = tonumber(v) end
    local sums = {}
    for v in string.gmatch(ARGV[i + 1], '[^,]+') do
      sums[#sums + 1] = string.format('%.17g', (before[#sums + 1] or 0) + tonumber(v))
    end
    redis.call('HSET', KEYS[1], ARGV[i], table.concat(sums, ','))
  end
end
return numbers
"""


class CalibrationStoreUnavailable(Exception):
    pass


class CalibrationStore:
    def __init__(self, url: str, prefix: str, ttl_s: int, timeout_s: float, scope_records: int = 256) -> None:
        self.url = redact_url(url)
        self.scope_records = scope_records
        self.prefix = prefix
        self.ttl_s = ttl_s
        self.breaker = CircuitBreaker("calibration redis")
        self._client = short_timeout_client(url, timeout_s, max_connections=16)
        self._add = self._client.register_script(_ADD)

    def key(self, scope: str, revision: str, space: str, digest: str) -> str:
        return f"{self.prefix}:{KIND}:{scope}:{revision}:{space}:{digest}"

    def index(self, scope: str) -> str:
        return f"{self.prefix}:{KIND}:{scope}:index"

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

    async def add(self, key: str, scope: str, delta: dict[str, LabelStats], half_life: float) -> dict:
        """Add a delta per source (increments only) and answer the record as it is after it (every replica's
        texts); the scope's oldest records past its bound are deleted."""
        if not self.breaker.allow():
            raise CalibrationStoreUnavailable("the breaker is open")
        labels = next(iter(delta.values())).labels
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.hincrbyfloat(key, "texts", texts_of(delta))
                pipe.hget(key, "origin")
                position, origin = await pipe.execute()
            fields = increment_record(delta, float(position), float(origin or 0.0), half_life)
            numbers = [(name, repr(float(value))) for name, value in fields.items() if not isinstance(value, str)]
            rows = [(name, value) for name, value in fields.items() if isinstance(value, str)]
            await self._add(keys=[key], args=[len(numbers), *(x for pair in (*numbers, *rows) for x in pair)])
            index = self.index(scope)
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.expire(key, self.ttl_s)
                pipe.zadd(index, {key: time.time()})
                pipe.expire(index, self.ttl_s)
                pipe.zcard(index)
                pipe.hgetall(key)
                *_, held, after = await pipe.execute()
            if held > self.scope_records:
                await self._trim(index, held - self.scope_records)
            if needs_rebase(after, half_life):
                after = await self._rebase(key, labels, half_life) or after
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
                fresh = rebase_record(labels, fields, half_life)
                pipe.multi()
                pipe.hset(key, mapping=fresh)
                pipe.expire(key, self.ttl_s)
                await pipe.execute()
            except WatchError:
                return None
        log.info("calibration record %s rebased at %.0f texts", key, fresh["texts"])
        return fresh

    async def _trim(self, index: str, extra: int) -> None:
        """Delete a scope's ``extra`` least recently written records."""
        oldest = await self._client.zpopmin(index, extra)
        if oldest:
            await self._client.delete(*[k for k, _ in oldest])

    async def close(self) -> None:
        await self._client.aclose()
