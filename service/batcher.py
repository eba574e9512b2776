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
from typing import TypeVar

import anyio
from bentoml._internal.marshal.dispatcher import CorkDispatcher, NonBlockSema
from opentelemetry import trace

from .errors import Overloaded
from .task import Seq
from .tracing import tracer

P = TypeVar("P")


def _shed():
    raise Overloaded()


class _Job(list):
    """One request's sequences, with the span that times its wait in the queue (tracing.py)."""

    queue_span: trace.Span


class AdaptiveBatcher:
    """Merges concurrent requests' sequences into engine calls. Each call has two stages, each in a worker
    thread: ``prepare`` (tokenize and plan, on the CPU) and ``run`` (the forward passes), one ``run`` at a
    time. With ``in_flight`` 2 the dispatcher hands over the next merged batch while the current one is in
    ``run``, so its tokenization overlaps the device's work (a GPU idles otherwise); with 1, calls go one
    after the other, as BentoML's batchable APIs do."""

    def __init__(
        self,
        prepare: Callable[[list[Seq]], P],
        run: Callable[[P], Sequence],
        max_batch_size: int,
        max_latency_ms: int,
        on_batch: Callable[[int, int], None] = lambda jobs, sequences: None,
        in_flight: int = 1,
    ) -> None:
        self._prepare = prepare  # blocking: one merged batch of sequences -> what run needs
        self._run = run  # blocking: -> one row per sequence
        self._max_batch_size = max_batch_size
        self._max_latency_ms = max_latency_ms
        self._on_batch = on_batch
        self._in_flight = in_flight
        self._call = None
        self._prepare_limiter: anyio.CapacityLimiter | None = None
        self._run_limiter: anyio.CapacityLimiter | None = None

    async def submit(self, sequences: list[Seq]) -> list:
        """Rows for these sequences, computed in a merged batch with other requests' sequences."""
        if self._call is None:  # created on the serving event loop, on first use
            dispatcher = CorkDispatcher(
                max_latency_in_ms=self._max_latency_ms,
                max_batch_size=self._max_batch_size,
                shared_sema=NonBlockSema(self._in_flight),
                fallback=_shed,
                get_batch_size=len,
                batch_dim=(0, 0),
            )
            self._prepare_limiter = anyio.CapacityLimiter(1)
            self._run_limiter = anyio.CapacityLimiter(1)  # one batch on the device; the next one waits here
            self._call = dispatcher(self._run_jobs)
        job = _Job(sequences)
        job.queue_span = tracer().start_span("queue", attributes={"zsc.sequences": len(job)})
        try:
            return await self._call(job)
        finally:
            if job.queue_span.is_recording():  # ended when its batch started; a shed request ends it here
                job.queue_span.end()

    async def _run_jobs(self, jobs: Sequence[_Job]) -> list[list]:
        flat = [s for job in jobs for s in job]
        self._on_batch(len(jobs), len(flat))
        # The batch belongs to its first request's trace, and every request's queue span links to it
        # (a request larger than max_batch_size reaches here as plain-list pieces: no span of its own)
        spans = [s for s in (getattr(job, "queue_span", None) for job in jobs) if s is not None and s.is_recording()]
        batch = tracer().start_span(
            "batch",
            context=trace.set_span_in_context(spans[0]) if spans else None,
            links=[trace.Link(s.get_span_context()) for s in spans],
            attributes={"zsc.requests": len(jobs), "zsc.sequences": len(flat)},
        )
        for span in spans:
            span.add_link(batch.get_span_context())
            span.end()
        with trace.use_span(batch, end_on_exit=True):
            prepared = await anyio.to_thread.run_sync(
                self._traced, "tokenize", self._prepare, flat, limiter=self._prepare_limiter
            )
            rows = await anyio.to_thread.run_sync(
                self._traced, "forward", self._run, prepared, limiter=self._run_limiter
            )
        out, start = [], 0
        for job in jobs:
            out.append(list(rows[start : start + len(job)]))
            start += len(job)
        return out

    @staticmethod
    def _traced(name: str, stage: Callable, arg):
        with tracer().start_as_current_span(name):
            return stage(arg)
