"""BentoML's adaptive batching, driven in-process.

The public endpoints take one JSON object, so they cannot be BentoML batchable APIs themselves (those take
a list). Reaching a batchable API from them goes through BentoML's self-proxy: a full HTTP round trip
inside the process, measured at ~40% of this service's throughput, and in BentoML 1.4.40 that proxy
recycles its session under load and fails in-flight calls with 500s. So the service feeds BentoML's own
adaptive-batching dispatcher (``CorkDispatcher``: the same queue, latency model and load shedding that
``@bentoml.api(batchable=True)`` uses) directly, with cache misses only.

A job is the list of sequences one request still needs; its size is its sequence count, so
``max_batch_size`` bounds sequences per engine call and a large job is split across batches. A request the
dispatcher sheds raises ``Overloaded``; an exception from ``run`` fails every request of that batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import anyio
from bentoml._internal.marshal.dispatcher import CorkDispatcher

from .errors import Overloaded
from .task import Seq


def _shed():
    raise Overloaded()


class AdaptiveBatcher:
    def __init__(
        self,
        run: Callable[[list[Seq]], Sequence],
        max_batch_size: int,
        max_latency_ms: int,
        on_batch: Callable[[int, int], None] = lambda jobs, sequences: None,
    ) -> None:
        self._run = run  # blocking: one merged batch of sequences -> one row per sequence
        self._max_batch_size = max_batch_size
        self._max_latency_ms = max_latency_ms
        self._on_batch = on_batch
        self._call = None
        self._limiter: anyio.CapacityLimiter | None = None

    async def submit(self, sequences: list[Seq]) -> list:
        """Rows for these sequences, computed in a merged batch with other requests' sequences."""
        if self._call is None:  # created on the serving event loop, on first use
            dispatcher = CorkDispatcher(
                max_latency_in_ms=self._max_latency_ms,
                max_batch_size=self._max_batch_size,
                fallback=_shed,
                get_batch_size=len,
                batch_dim=(0, 0),
            )
            self._limiter = anyio.CapacityLimiter(1)  # one batch in flight; the next one queues meanwhile
            self._call = dispatcher(self._run_jobs)
        return await self._call(list(sequences))

    async def _run_jobs(self, jobs: Sequence[list[Seq]]) -> list[list]:
        flat = [s for job in jobs for s in job]
        self._on_batch(len(jobs), len(flat))
        rows = await anyio.to_thread.run_sync(self._run, flat, limiter=self._limiter)
        out, start = [], 0
        for job in jobs:
            out.append(list(rows[start : start + len(job)]))
            start += len(job)
        return out
