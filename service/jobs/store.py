"""The job store's interface, and the in-process store used without Redis.

A store keeps each job's record and its results per chunk, and queues its chunks for workers: ``take`` one,
``begin`` it (which says whether the job still wants it), ``complete`` it with its results (stored once: a
chunk completed twice counts once; ``records.FINISHED`` when it was the last), then ``ack`` it. A job that
calibrates on its own texts (``create(..., estimate=True)``) first queues every chunk for its estimate pass:
``estimated`` adds a chunk's sample sums to the job's (once per chunk), and the last one queues every chunk
again, to be answered with the fit (``calibration``: the summed sample). ``cancel``
keeps the record and what finished; ``delete`` removes both, and a chunk of a deleted job is then neither
begun nor stored (a worker mid-chunk finds the job gone and drops its results: nothing brings it back). The Redis
store (``redis_store.py``) does this across replicas; this one inside one process: a job is visible only
to the worker process that accepted it, and a restart loses it (README: use Redis, or ``ZSC_WORKERS=1``,
for jobs).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, Protocol

from service.jobs.records import (
    ACTIVE,
    ANSWER,
    CANCELLED,
    DONE,
    ESTIMATE,
    FINISHED,
    NOT_STORED,
    QUEUED,
    RUNNING,
    STORED,
    Chunk,
    JobInfo,
)


class JobStore(Protocol):
    backend: str

    async def create(self, job: JobInfo, chunks: list[list[dict[str, Any]]], estimate: bool = False) -> None: ...
    async def info(self, job_id: str) -> JobInfo | None: ...
    async def cancel(self, job_id: str) -> JobInfo | None: ...
    async def delete(self, job_id: str) -> bool: ...
    async def results(self, job: JobInfo, chunks: range) -> dict[int, list[dict[str, Any]]]: ...
    async def take(self, consumer: str, wait_s: float) -> Chunk | None: ...
    async def begin(self, chunk: Chunk) -> str | None: ...
    async def keepalive(self, chunk: Chunk) -> None: ...
    async def release(self, chunk: Chunk) -> None: ...
    async def complete(self, chunk: Chunk, results: list[dict[str, Any]], errors: int) -> int: ...
    async def ack(self, chunk: Chunk) -> None: ...
    async def estimated(self, chunk: Chunk, sums: dict[str, float]) -> int: ...
    async def calibration(self, job_id: str) -> dict[str, float]: ...
    async def depth(self) -> int: ...
    async def close(self) -> None: ...


class MemoryJobStore:
    """Jobs in this process: the same behaviour as the Redis store, minus sharing and durability."""

    backend = "memory"

    def __init__(self, clock=time.time) -> None:
        self._clock = clock
        self._jobs: dict[str, JobInfo] = {}
        self._results: dict[str, dict[int, list[dict[str, Any]]]] = {}
        self._expires: dict[str, float] = {}
        self._queue: asyncio.Queue[Chunk] = asyncio.Queue()
        self._items: dict[str, list[list[dict[str, Any]]]] = {}  # jobs with an estimate pass: to queue again
        self._sums: dict[str, dict[str, float]] = {}  # their sample's sums
        self._estimated: dict[str, set[int]] = {}

    async def create(self, job: JobInfo, chunks: list[list[dict[str, Any]]], estimate: bool = False) -> None:
        self._jobs[job.id] = job
        self._results[job.id] = {}  # no expiry until the job ends (_touch), however long it waits
        if estimate:
            job.estimate_chunks = len(chunks)
            self._items[job.id], self._sums[job.id], self._estimated[job.id] = chunks, {}, set()
        for i, items in enumerate(chunks):
            self._queue.put_nowait(Chunk(job.id, i, items, phase=ESTIMATE if estimate else ANSWER))

    async def info(self, job_id: str) -> JobInfo | None:
        self._expire()
        return self._jobs.get(job_id)

    async def cancel(self, job_id: str) -> JobInfo | None:
        job = await self.info(job_id)
        if job is not None and job.state in ACTIVE:
            job.state, job.finished = CANCELLED, self._clock()
            self._touch(job)
        return job

    async def delete(self, job_id: str) -> bool:
        """Forget the job and its results; False when there was none. Its chunks still queued are skipped
        when taken (``begin`` finds no job)."""
        self._expire()
        self._expires.pop(job_id, None)
        self._forget(job_id)
        return self._jobs.pop(job_id, None) is not None

    async def results(self, job: JobInfo, chunks: range) -> dict[int, list[dict[str, Any]]]:
        stored = self._results.get(job.id, {})
        return {i: stored[i] for i in chunks if i in stored}

    async def take(self, consumer: str, wait_s: float) -> Chunk | None:
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(self._queue.get(), wait_s)
        return None

    async def begin(self, chunk: Chunk) -> str | None:
        job = await self.info(chunk.job_id)
        if job is None:
            return None
        if job.state == QUEUED:
            job.state, job.started = RUNNING, self._clock()
        return job.state

    async def keepalive(self, chunk: Chunk) -> None:
        return None  # nobody else could take it over

    async def release(self, chunk: Chunk) -> None:
        self._queue.put_nowait(chunk)  # back in line: this process goes on running jobs

    async def complete(self, chunk: Chunk, results: list[dict[str, Any]], errors: int) -> int:
        job = await self.info(chunk.job_id)
        stored = self._results.get(chunk.job_id)
        if job is None or stored is None or job.state == CANCELLED or chunk.index in stored:
            return NOT_STORED
        stored[chunk.index] = results
        job.done += len(results)
        job.errors += errors
        job.chunks_done += 1
        if job.chunks_done >= job.chunks:
            job.state, job.finished = DONE, self._clock()
            self._touch(job)
            return FINISHED
        return STORED

    async def ack(self, chunk: Chunk) -> None:
        return None

    async def estimated(self, chunk: Chunk, sums: dict[str, float]) -> int:
        job = await self.info(chunk.job_id)
        done = self._estimated.get(chunk.job_id)
        if job is None or done is None or job.state == CANCELLED or chunk.index in done:
            return NOT_STORED
        done.add(chunk.index)
        total = self._sums[job.id]
        for name, value in sums.items():
            total[name] = total.get(name, 0.0) + value
        job.estimated += 1
        if job.estimated < job.estimate_chunks:
            return STORED
        for i, items in enumerate(self._items.pop(job.id)):  # the answer pass
            self._queue.put_nowait(Chunk(job.id, i, items))
        return FINISHED

    async def calibration(self, job_id: str) -> dict[str, float]:
        return dict(self._sums.get(job_id, {}))

    async def depth(self) -> int:
        return self._queue.qsize()

    async def close(self) -> None:
        return None

    def _touch(self, job: JobInfo) -> None:
        """The job has ended (done or cancelled): kept ``ttl_s`` from now."""
        self._expires[job.id] = self._clock() + job.ttl_s

    def _expire(self) -> None:
        now = self._clock()
        for job_id in [j for j, at in self._expires.items() if at <= now]:
            del self._expires[job_id]
            self._jobs.pop(job_id, None)
            self._forget(job_id)

    def _forget(self, job_id: str) -> None:
        for held in (self._results, self._items, self._sums, self._estimated):
            held.pop(job_id, None)
