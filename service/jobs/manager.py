"""The jobs of one replica: submit (cut into chunks, queue), look up, cancel, delete, read results in item
order; and the worker that runs chunks here. What the HTTP layer (``http/jobs.py``) calls."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from service.errors import JobNotFound
from service.jobs.items import calibration_mode
from service.jobs.records import JobInfo
from service.jobs.store import JobStore
from service.jobs.worker import JobWorker

log = logging.getLogger("zsc.jobs")
RESULT_CHUNKS_PER_READ = 16  # chunks fetched from the store per round trip when streaming results


class JobManager:
    def __init__(self, store: JobStore, worker: JobWorker | None, chunk_items: int, ttl_s: int) -> None:
        self.store = store
        self.worker = worker
        self.chunk_items = chunk_items
        self.ttl_s = ttl_s

    @property
    def backend(self) -> str:
        return self.store.backend

    async def submit(self, items: list[dict[str, Any]]) -> JobInfo:
        """Queue the job's chunks: twice when some item calibrates on the job's own texts (estimate, then
        answer)."""
        size = self.chunk_items
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        job = JobInfo(
            id=uuid.uuid4().hex,  # unguessable: the id is what lets a caller read the results
            state="queued",
            total=len(items),
            chunks=len(chunks),
            chunk_items=size,
            created=time.time(),
            ttl_s=self.ttl_s,
        )
        await self.store.create(job, chunks, estimate=any(calibration_mode(i) == "job" for i in items))
        return job

    async def get(self, job_id: str) -> JobInfo:
        job = await self.store.info(job_id)
        if job is None:
            raise JobNotFound(job_id, self.ttl_s)
        return job

    async def cancel(self, job_id: str) -> JobInfo:
        job = await self.store.cancel(job_id)
        if job is None:
            raise JobNotFound(job_id, self.ttl_s)
        return job

    async def delete(self, job_id: str) -> JobInfo:
        """Remove the job and its results (a running one stops: no chunk starts after this, and the one in
        progress is not stored); the job as it was just before."""
        job = await self.get(job_id)
        if not await self.store.delete(job_id):  # gone meanwhile (deleted by another call, or expired)
            raise JobNotFound(job_id, self.ttl_s)
        return job

    async def results(self, job: JobInfo, offset: int, limit: int) -> list[dict[str, Any]]:
        """The finished items among ``offset .. offset + limit - 1``, in order, each with its ``index``."""
        end = min(job.total, offset + limit)
        if offset >= end:
            return []
        chunks = range(offset // job.chunk_items, (end - 1) // job.chunk_items + 1)
        stored = await self.store.results(job, chunks)
        return [entry for entry in _entries(job, stored) if offset <= entry["index"] < end]

    async def watch_depth(self, report: Callable[[int], None], every_s: float = 5.0) -> None:
        """Report the queue's depth every few seconds, until cancelled (a store error skips one report)."""
        while True:
            try:
                report(await self.store.depth())
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.debug("job queue depth: %s", exc)
            await asyncio.sleep(every_s)

    async def stream(self, job: JobInfo) -> AsyncIterator[dict[str, Any]]:
        """Every finished item in order, fetched a few chunks at a time."""
        for first in range(0, job.chunks, RESULT_CHUNKS_PER_READ):
            stored = await self.store.results(job, range(first, min(job.chunks, first + RESULT_CHUNKS_PER_READ)))
            for entry in _entries(job, stored):
                yield entry


def _entries(job: JobInfo, stored: dict[int, list[dict[str, Any]]]):
    for index in sorted(stored):
        for position, result in zip(job.chunk_range(index), stored[index]):
            yield {"index": position, **result}
