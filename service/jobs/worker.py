"""A replica's job worker: takes chunks from the store and classifies them, yielding to interactive traffic.

A chunk's items go through the service's one path (``run_items``: ``items.classify_items``, i.e.
``Pipeline.classify``: the same label sets, cache, adaptive batching and engine as ``/classify``) in slices
of ``slice_items``, so an interactive request never waits behind more than one small slice. While
interactive requests are in flight (or were a moment ago), on this replica or, with the cluster-wide signal
(``activity.py``), on any replica of the jobs Redis, the worker sleeps after each slice so that its own model
time stays under ``share`` of the wall time; with no interactive load it runs flat out.

A job whose items ask for calibration "job" runs each chunk twice (``records.ESTIMATE``, then answer): the
estimate pass scores those items (their texts are the sample, nothing is answered) and adds the chunk's
sums to the job's in the store; the last chunk in queues the answer pass, whose chunks are answered with
the fit (``jobs.calibration``), read once per job and chunk.

Failures: an item the service rejects (too long, an unknown label set) gets an error in place of its
answer and the job goes on. A slice the model fails on is retried (``max_attempts``), then its items get
the error. A chunk whose worker dies is claimed by another replica after the visibility timeout (Redis);
one handed out more than ``max_attempts`` times (it kills its workers) is answered with errors unread.
Stopping (SIGTERM: a rolling update, or the autoscaler removing a jobs replica) drains: no chunk is taken
any more, the chunks at work are finished within ``drain_s``, and any still unfinished then is handed back
to the queue for another worker to take at once (nothing lost; its results are stored once whoever ends it).
The store down (the jobs Redis restarting): taking chunks is retried with a growing wait, and the calls a
classified chunk's results depend on (``begin``, ``complete``, ``ack``: each safe to repeat) are retried
until the store answers, so the work is not thrown away.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from service.core.calibration import CalibrationConfig
from service.jobs.activity import Interactive
from service.jobs.calibration import fitted, sample_sums
from service.jobs.items import calibration_mode
from service.jobs.records import ACTIVE, ESTIMATE, FINISHED, NOT_STORED, Chunk, is_error, item_error
from service.jobs.store import JobStore
from service.obs.tasks import cancel_and_wait
from service.pipeline.calibration import JobCalibration

log = logging.getLogger("zsc.jobs.worker")

# a slice of stored items -> their results; with the job's own calibration (its sample, or its fit)
RunItems = Callable[[list[dict[str, Any]], JobCalibration | None], Awaitable[list[dict[str, Any]]]]
T = TypeVar("T")


@dataclass(frozen=True)
class WorkerConfig:
    consumer: str  # this worker's name in the consumer group (host and pid)
    concurrency: int = 1  # chunks worked on at once
    slice_items: int = 16  # items per call into the pipeline
    share: float = 0.5  # of the model's time while interactive requests are in flight
    visibility_s: float = 60.0
    max_attempts: int = 3
    idle_wait_s: float = 2.0  # how long one take() blocks when the queue is empty


class JobWorker:
    def __init__(
        self,
        store: JobStore,
        run_items: RunItems,
        config: WorkerConfig,
        interactive: Interactive = lambda: None,
        observe: Callable[[str, int], None] = lambda event, n: None,
        sharing: Callable[[], int] = lambda: 1,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        calibration: CalibrationConfig = CalibrationConfig(),
    ) -> None:
        self.store = store
        self._run_items = run_items
        self.config = config
        self._busy = interactive  # after each slice: "replica", "cluster" (interactive calls served there), None
        self._sharing = sharing  # job workers the share is divided among (cluster-wide yielding), this one included
        # ("items" | "chunks" | "finished" | "claimed" | "skipped" | "retries" | "yielded_replica" |
        # "yielded_cluster", count)
        self._observe = observe
        self._sleep = sleep
        self._calibration = calibration
        self._tasks: list[asyncio.Task] = []
        self._working: set[asyncio.Task] = set()  # the tasks holding a chunk now
        self._stopping = False

    def start(self) -> None:
        self._stopping = False
        self._tasks = [
            asyncio.create_task(self._loop(), name=f"job-worker-{i}") for i in range(self.config.concurrency)
        ]

    async def stop(self, drain_s: float = 0.0) -> None:
        """Stop taking chunks; a chunk being worked on is finished if it can be within ``drain_s``, else
        released unfinished, for another worker to take at once (if this process dies instead, another
        replica claims it after the visibility timeout)."""
        self._stopping = True
        busy = [t for t in self._tasks if t in self._working]
        for task in self._tasks:
            if task not in self._working:
                task.cancel()  # waiting for a chunk: nothing to finish
        if busy and drain_s > 0:
            log.info("job worker stopping: finishing %d chunk(s), up to %.0f s (ZSC_JOB_DRAIN_S)", len(busy), drain_s)
            _, late = await asyncio.wait(busy, timeout=drain_s)
            if late:
                log.warning("job worker stopping: %d chunk(s) unfinished after %.0f s, handed back", len(late), drain_s)
        for task in self._tasks:
            task.cancel()  # all of them first: they release their chunks at once
        for task in self._tasks:
            await cancel_and_wait(task, swallow=(Exception,))
        self._tasks = []

    async def _loop(self) -> None:
        backoff = 0.5
        me = asyncio.current_task()
        while not self._stopping:
            try:
                chunk = await self.store.take(self.config.consumer, self.config.idle_wait_s)
                if chunk is not None:
                    self._working.add(me)
                    try:
                        await self.process(chunk)
                    finally:
                        self._working.discard(me)
                backoff = 0.5
            except asyncio.CancelledError:
                raise
            except Exception:  # the store is unreachable: keep trying, slower (a restart takes seconds)
                log.exception("job worker: store error; retrying in %.1f s", backoff)
                await self._sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    async def process(self, chunk: Chunk) -> bool:
        """Work one chunk to the end; True when its results were stored by this call."""
        state = await self._until_answered("begin", chunk, self.store.begin)
        if state not in ACTIVE:  # cancelled, or expired: nothing to do
            await self._until_answered("ack", chunk, self.store.ack)
            self._observe("skipped", 1)
            return False
        if chunk.reclaimed:
            self._observe("claimed", 1)
        if chunk.phase == ESTIMATE:
            return await self._estimate(chunk)
        if chunk.deliveries > self.config.max_attempts:
            message = f"this chunk was handed out {chunk.deliveries} times and never finished; given up"
            results = [item_error(message, "job_item_failed")] * len(chunk.items)
        else:
            fit = None
            if any(calibration_mode(i) == "job" for i in chunk.items):
                summed = await self._until_answered("calibration", chunk, lambda c: self.store.calibration(c.job_id))
                fit = fitted(summed, self._calibration)
            results = await self._guarded(chunk, self._classify(chunk, chunk.items, fit))
        errors = sum(is_error(r) for r in results)
        outcome = await self._until_answered("complete", chunk, lambda c: self.store.complete(c, results, errors))
        await self._until_answered("ack", chunk, self.store.ack)
        if outcome != NOT_STORED:
            self._observe("items", len(results))
            self._observe("chunks", 1)
        if outcome == FINISHED:
            self._observe("finished", 1)
        return outcome != NOT_STORED

    async def _estimate(self, chunk: Chunk) -> bool:
        """The estimate pass of one chunk: its items asking for calibration "job" scored raw, their sums added
        to the job's (once per chunk); True when they were added by this call."""
        sample = JobCalibration()
        wanted = [i for i in chunk.items if calibration_mode(i) == "job"]
        if wanted and chunk.deliveries <= self.config.max_attempts:
            await self._guarded(chunk, self._classify(chunk, wanted, sample))
        summed = await self._until_answered("calibration", chunk, lambda c: self.store.calibration(c.job_id))
        sums = sample_sums(sample, summed, self._calibration)
        outcome = await self._until_answered("estimated", chunk, lambda c: self.store.estimated(c, sums))
        await self._until_answered("ack", chunk, self.store.ack)
        if outcome != NOT_STORED:
            self._observe("estimated", 1)
        return outcome != NOT_STORED

    async def _guarded(self, chunk: Chunk, work: Awaitable[T]) -> T:
        """A chunk's model work, kept alive in the store meanwhile; if the worker stops, the chunk is handed
        to another worker at once."""
        keepalive = asyncio.create_task(self._keep_alive(chunk))
        try:
            return await work
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.store.release(chunk))
            raise
        finally:
            keepalive.cancel()

    async def _until_answered(self, what: str, chunk: Chunk, call: Callable[[Chunk], Awaitable[T]]) -> T:
        """A store call of this chunk, repeated until the store answers, so that a chunk already classified
        is not thrown away while the jobs Redis restarts. Each may run twice: results are stored once per
        chunk, and a second begin or ack changes nothing."""
        wait = 0.5
        while True:
            try:
                return await call(chunk)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning(
                    "job worker: %s of chunk %d of job %s failed (%s: %s); retrying in %.1f s",
                    what,
                    chunk.index,
                    chunk.job_id,
                    type(exc).__name__,
                    exc,
                    wait,
                )
                await self._sleep(wait)
                wait = min(wait * 2, 5.0)

    async def _classify(
        self, chunk: Chunk, items: list[dict[str, Any]], calibration: JobCalibration | None
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        step = max(1, self.config.slice_items)
        for start in range(0, len(items), step):
            piece = items[start : start + step]
            began = time.monotonic()
            out += await self._with_retries(piece, calibration)
            await self._yield(time.monotonic() - began)
        return out

    async def _with_retries(
        self, items: list[dict[str, Any]], calibration: JobCalibration | None
    ) -> list[dict[str, Any]]:
        for attempt in range(1, self.config.max_attempts + 1):
            try:
                return await self._run_items(items, calibration)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the model or the batcher failed on the whole slice
                if attempt == self.config.max_attempts:
                    log.error("job slice failed %d times: %s", attempt, exc)
                    return [item_error(f"classification failed: {exc}", "backend_error")] * len(items)
                self._observe("retries", 1)
                await self._sleep(0.2 * 2**attempt)
        raise AssertionError("unreachable")

    async def _yield(self, worked_s: float) -> None:
        """Keep the job workers' share of model time under ``share`` while interactive traffic is around:
        this worker's part of it, when others share it (cluster-wide yielding)."""
        share = self.config.share
        if 0 < share < 1 and (where := self._busy()):
            self._observe(f"yielded_{where}", 1)
            mine = share / max(1, self._sharing())
            await self._sleep(worked_s * (1 - mine) / mine)

    async def _keep_alive(self, chunk: Chunk) -> None:
        while True:
            await asyncio.sleep(self.config.visibility_s / 3)
            with contextlib.suppress(Exception):
                await self.store.keepalive(chunk)
