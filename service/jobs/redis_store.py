"""Jobs shared by every replica through Redis: a Stream of chunks read by one consumer group.

Why a Stream and not a queue library (RQ, Celery, arq, Dramatiq): those run a job in a worker process of
their own, so a chunk would leave the replica's batcher and cache, and each brings its own broker
protocol to operate. A Stream with a consumer group is the at-least-once queue itself, in the Redis the
cache already uses: ``XREADGROUP`` hands each chunk to one replica and keeps it pending until ``XACK``;
``XAUTOCLAIM`` gives a chunk pending longer than the visibility timeout (its worker died, or stopped
renewing it) to another; the delivery count bounds retries. Results are written per chunk with
``HSETNX`` inside a script that also advances the counters, so a chunk finished twice (a slow worker and
the one that claimed it) is stored and counted once.

Keys, under the cache prefix: ``<p>:jobs:stream`` (entries: job, chunk, items), ``<p>:job:<id>`` (a
hash: state and counters) and ``<p>:job:<id>:results`` (chunk -> JSON list). A job calibrating on its own
texts keeps its items in ``<p>:job:<id>:items`` (chunk -> JSON list: each chunk runs twice, its stream
entries name it) and its sample's sums in ``<p>:job:<id>:calibration``; the script that adds a chunk's sums
(once per chunk) queues the answer pass when they are all in. A job's keys expire ``ttl_s`` after it ends
(its last chunk stored, or cancelled), never while it is queued or running: a long queue must not expire a
job before a worker reaches it (every chunk of an active job is eventually stored, given up with errors
after ``max_attempts`` deliveries, or the job is cancelled or deleted). Deleting a job removes its keys;
every script that writes to them first checks that the job's hash exists, so a worker still on a chunk of
a deleted job cannot bring it back.

The jobs Redis should persist (``ZSC_JOBS_REDIS_URL``, append-only: docs/deploy.md): restarted on its own
data, it holds the stream, the consumer group with its pending entries and the results, and the workers
carry on. One restarted empty (no persistence) has lost its jobs; the consumer group is made again on the
first call that misses it, so new jobs run.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from service.config import redact_url
from service.jobs.records import ANSWER, ESTIMATE, NOT_STORED, Chunk, JobInfo

log = logging.getLogger("zsc.jobs.redis")

_BEGIN = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return false end
if state == 'queued' then
  redis.call('HSET', KEYS[1], 'state', 'running', 'started', ARGV[1])
  state = 'running'
end
return state
"""
# 2: stored now and it was the job's last chunk; 1: stored now; 0: already stored, or the job was cancelled
# or has expired
_COMPLETE = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state or state == 'cancelled' then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'done', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'errors', ARGV[4])
local n = redis.call('HINCRBY', KEYS[1], 'chunks_done', 1)
if n < tonumber(redis.call('HGET', KEYS[1], 'chunks')) then return 1 end
redis.call('HSET', KEYS[1], 'state', 'done', 'finished', ARGV[5])
for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], ARGV[6]) end  -- kept ttl_s from its end
return 2
"""
_CANCEL = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 0 end
if state == 'queued' or state == 'running' then
  redis.call('HSET', KEYS[1], 'state', 'cancelled', 'finished', ARGV[1])
  for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
end
return 1
"""
# a chunk's sample sums, added once; the last one queues every chunk again for the answer pass (2)
_ESTIMATED = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state or state == 'cancelled' then return 0 end
if redis.call('HSETNX', KEYS[2], 'chunk#' .. ARGV[1], 1) == 0 then return 0 end
for i = 4, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[2], ARGV[i], ARGV[i + 1]) end
local n = redis.call('HINCRBY', KEYS[1], 'estimated', 1)
if n < tonumber(redis.call('HGET', KEYS[1], 'estimate_chunks')) then return 1 end
for c = 0, tonumber(redis.call('HGET', KEYS[1], 'chunks')) - 1 do
  redis.call('XADD', KEYS[3], '*', 'job', ARGV[3], 'chunk', c, 'phase', 'answer')
end
return 2
"""


def stream_key(prefix: str) -> str:
    """The jobs stream's key (``ZSC_CACHE_PREFIX``): what KEDA's ``redis-streams`` trigger names as ``stream``."""
    return f"{prefix}:jobs:stream"


def group_name(prefix: str) -> str:
    """The consumer group every replica's job worker reads through (KEDA's ``consumerGroup``)."""
    return f"{prefix}-job-workers"


_INT_FIELDS = (
    "total",
    "chunks",
    "chunk_items",
    "done",
    "errors",
    "chunks_done",
    "ttl_s",
    "estimate_chunks",
    "estimated",
)
_FLOAT_FIELDS = ("created", "started", "finished")


class RedisJobStore:
    backend = "redis"

    def __init__(self, url: str, prefix: str, visibility_s: float, timeout_s: float = 5.0) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError

        self.url = redact_url(url)
        self._timeout_s = timeout_s
        # one immediate retry on a broken connection: after Redis restarts, every pooled connection is dead
        # and the first call on each would fail (a job route answering 503 to a Redis that is back). Every
        # call here may run twice: at worst a job's chunks are queued twice, and results are stored once.
        self._redis = aioredis.from_url(
            url,
            decode_responses=True,
            socket_timeout=timeout_s + 30,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        )
        self._stream = stream_key(prefix)
        self._group = group_name(prefix)
        self._prefix = prefix
        self._visibility_ms = int(visibility_s * 1000)
        self._begin = self._redis.register_script(_BEGIN)
        self._complete = self._redis.register_script(_COMPLETE)
        self._cancel = self._redis.register_script(_CANCEL)
        self._estimated = self._redis.register_script(_ESTIMATED)
        self._group_ready = False

    def _job_key(self, job_id: str) -> str:
        return f"{self._prefix}:job:{job_id}"

    def _results_key(self, job_id: str) -> str:
        return f"{self._prefix}:job:{job_id}:results"

    def _items_key(self, job_id: str) -> str:
        return f"{self._prefix}:job:{job_id}:items"

    def _calibration_key(self, job_id: str) -> str:
        return f"{self._prefix}:job:{job_id}:calibration"

    async def _ensure_group(self) -> None:
        if self._group_ready:
            return
        from redis.exceptions import ResponseError

        try:
            await self._redis.xgroup_create(self._stream, self._group, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    async def create(self, job: JobInfo, chunks: list[list[dict[str, Any]]], estimate: bool = False) -> None:
        await self._ensure_group()
        if estimate:
            job.estimate_chunks = len(chunks)
        fields = {k: v for k, v in vars(job).items() if v is not None}
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(self._job_key(job.id), mapping=fields)  # no expiry until the job ends
            if estimate:  # each chunk runs twice: its items once in the job's own hash, entries name them
                items_key = self._items_key(job.id)
                pipe.hset(items_key, mapping={i: json.dumps(c, ensure_ascii=False) for i, c in enumerate(chunks)})
            for i, items in enumerate(chunks):
                entry = {"job": job.id, "chunk": i, "phase": ESTIMATE} if estimate else {"job": job.id, "chunk": i}
                if not estimate:
                    entry["items"] = json.dumps(items, ensure_ascii=False)
                pipe.xadd(self._stream, entry)
            await pipe.execute()

    async def info(self, job_id: str) -> JobInfo | None:
        raw = await self._redis.hgetall(self._job_key(job_id))
        if not raw:
            return None
        values: dict[str, Any] = {"id": raw["id"], "state": raw["state"]}
        values.update({k: int(raw[k]) for k in _INT_FIELDS if k in raw})
        values.update({k: float(raw[k]) for k in _FLOAT_FIELDS if k in raw})
        return JobInfo(**values)

    async def cancel(self, job_id: str) -> JobInfo | None:
        job = await self.info(job_id)
        if job is None:
            return None
        await self._cancel(keys=self._keys(job_id), args=[time.time(), job.ttl_s])
        return await self.info(job_id)

    def _keys(self, job_id: str) -> list[str]:
        """Every key of one job, its hash first."""
        return [
            self._job_key(job_id),
            self._results_key(job_id),
            self._items_key(job_id),
            self._calibration_key(job_id),
        ]

    async def delete(self, job_id: str) -> bool:
        # the chunks still on the stream stay there until a worker takes them and finds no job (skipped)
        return await self._redis.delete(*self._keys(job_id)) > 0

    async def results(self, job: JobInfo, chunks: range) -> dict[int, list[dict[str, Any]]]:
        if not chunks:
            return {}
        raw = await self._redis.hmget(self._results_key(job.id), [str(i) for i in chunks])
        return {i: json.loads(r) for i, r in zip(chunks, raw) if r is not None}

    def _lost_group(self, exc: Exception) -> bool:
        """Whether ``exc`` says the consumer group is gone (Redis restarted without its data); if so it is
        made again on the next call."""
        from redis.exceptions import ResponseError

        if isinstance(exc, ResponseError) and str(exc).startswith("NOGROUP"):
            log.warning("the jobs stream's consumer group is gone (Redis lost its data?): making it again")
            self._group_ready = False
            return True
        return False

    async def take(self, consumer: str, wait_s: float) -> Chunk | None:
        try:
            return await self._take(consumer, wait_s)
        except Exception as exc:
            if self._lost_group(exc):
                return None
            raise

    async def _take(self, consumer: str, wait_s: float) -> Chunk | None:
        await self._ensure_group()
        # first a chunk whose worker stopped renewing it, then a new one
        _, claimed, *_ = await self._redis.xautoclaim(
            self._stream, self._group, consumer, min_idle_time=self._visibility_ms, start_id="0-0", count=1
        )
        for entry_id, fields in claimed:
            if not fields:  # deleted under its pending entry: nothing left to do
                await self._redis.xack(self._stream, self._group, entry_id)
                continue
            [pending] = await self._redis.xpending_range(self._stream, self._group, entry_id, entry_id, 1)
            log.warning("claimed chunk %s of job %s from a worker that stopped", fields["chunk"], fields["job"])
            return await self._chunk(entry_id, fields, consumer, pending["times_delivered"], reclaimed=True)
        got = await self._redis.xreadgroup(
            self._group, consumer, {self._stream: ">"}, count=1, block=max(1, int(wait_s * 1000))
        )
        for _, entries in got or []:
            for entry_id, fields in entries:
                return await self._chunk(entry_id, fields, consumer, 1, reclaimed=False)
        return None

    async def _chunk(
        self, entry_id: str, fields: dict[str, str], consumer: str, deliveries: int, reclaimed: bool
    ) -> Chunk:
        raw = fields.get("items")
        if raw is None:  # a chunk of a job that runs twice: its items are in the job's own hash (gone: [])
            raw = await self._redis.hget(self._items_key(fields["job"]), fields["chunk"]) or "[]"
        return Chunk(
            fields["job"],
            int(fields["chunk"]),
            json.loads(raw),
            entry_id,
            deliveries,
            reclaimed,
            {"consumer": consumer},
            fields.get("phase", ANSWER),
        )

    async def begin(self, chunk: Chunk) -> str | None:
        return await self._begin(keys=[self._job_key(chunk.job_id)], args=[time.time()])

    async def keepalive(self, chunk: Chunk) -> None:
        # resets the entry's idle time, so no other replica claims a chunk that is still being worked on
        consumer = chunk.extra["consumer"]
        await self._redis.xclaim(self._stream, self._group, consumer, 0, [chunk.token], justid=True)

    async def release(self, chunk: Chunk) -> None:
        # a worker that stops (the pod is shutting down) gives its chunk back at once: marked idle for the
        # whole visibility timeout, the next XAUTOCLAIM of any replica takes it instead of waiting that long
        consumer = chunk.extra["consumer"]
        await self._redis.xclaim(
            self._stream, self._group, consumer, 0, [chunk.token], idle=self._visibility_ms, justid=True
        )

    async def complete(self, chunk: Chunk, results: list[dict[str, Any]], errors: int) -> int:
        job = await self.info(chunk.job_id)
        if job is None:
            return NOT_STORED
        return await self._complete(
            keys=self._keys(chunk.job_id),
            args=[chunk.index, json.dumps(results, ensure_ascii=False), len(results), errors, time.time(), job.ttl_s],
        )

    async def estimated(self, chunk: Chunk, sums: dict[str, float]) -> int:
        job = await self.info(chunk.job_id)
        if job is None:
            return NOT_STORED
        keys = [self._job_key(job.id), self._calibration_key(job.id), self._stream]
        pairs = [x for name, value in sums.items() for x in (name, repr(float(value)))]
        return await self._estimated(keys=keys, args=[chunk.index, job.ttl_s, job.id, *pairs])

    async def calibration(self, job_id: str) -> dict[str, float]:
        raw = await self._redis.hgetall(self._calibration_key(job_id))
        return {k: float(v) for k, v in raw.items() if not k.startswith("chunk#")}

    async def ack(self, chunk: Chunk) -> None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.xack(self._stream, self._group, chunk.token)
                pipe.xdel(self._stream, chunk.token)
                await pipe.execute()
        except Exception as exc:
            if not self._lost_group(exc):  # with the group, its pending entry is gone too: nothing to ack
                raise

    async def depth(self) -> int:
        await self._ensure_group()
        return int(await self._redis.xlen(self._stream))

    async def close(self) -> None:
        await self._redis.aclose()
