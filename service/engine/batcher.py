"""Adaptive batching: concurrent requests' sequences merged into engine calls.

The queue that decides when a batch goes and which requests to shed is given (``Queue``): in the service,
``batch_queue`` (continuous batching, shedding past ``max_latency_ms``); a test may give another. A request's
sequences go into the queue as one entry; its size is its sequence count, so ``max_batch_size`` bounds
sequences per engine call and a large request is split across batches. A request the queue sheds raises
``Overloaded``.

The batcher drives the engine's two stages itself and is where their failures and metrics are handled: an
exception in either stage is the model's failure (``BackendFailure``, counted in
``zsc_engine_errors_total``) for every request of that batch, and each batch's size and the engine's stage
timings go to the ``zsc_*`` metrics. Nothing here calls back up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

import anyio
import numpy as np
from opentelemetry import trace

from service.core.task import Seq
from service.errors import BackendFailure
from service.obs import metrics
from service.obs.tracing import tracer

P = TypeVar("P")


class Stages(Protocol[P]):
    """What the batcher drives (``engine.Engine``): the CPU stage, then the device stage."""

    def prepare(self, sequences: Sequence[Seq]) -> P: ...

    # (one row per sequence, the batch's stats); ``reference``: on the model's fp32 copy
    def run(self, prepared: P, reference: bool = False) -> tuple[Sequence, Any]: ...


RunBatch = Callable[[Sequence[list]], Awaitable[list[list]]]  # the entries of one batch -> each entry's rows
Submit = Callable[[list], Awaitable[list]]  # one entry -> its rows, once its batch has run
Close = Callable[[], None]  # stops the queue's own tasks (a model unloaded)


class Queue(Protocol):
    """Makes the batching queue around ``run_batch``, on the serving event loop: (its ``Submit``, which
    raises ``Overloaded`` for an entry it sheds, and what stops it)."""

    def __call__(
        self, run_batch: RunBatch, *, max_batch_size: int, max_latency_ms: int, in_flight: int
    ) -> tuple[Submit, Close]: ...


class _Entry(list):
    """One request's sequences in the dispatcher's queue, with the span that times its wait (tracing.py)."""

    queue_span: trace.Span


class AdaptiveBatcher(Generic[P]):
    """Merges concurrent requests' sequences into engine calls. Each call has two stages, each in a worker
    thread: ``prepare`` (tokenize and plan, on the CPU) and ``run`` (the forward passes), one ``run`` at a
    time. With ``in_flight`` 2 the dispatcher hands over the next merged batch while the current one is in
    ``run``, so its tokenization overlaps the device's work (a GPU idles otherwise); with 1, calls go one
    after the other, as BentoML's batchable APIs do."""

    def __init__(
        self,
        engine: Stages[P],
        queue: Queue,
        max_batch_size: int,
        max_latency_ms: int,
        in_flight: int = 1,
        on_batch: Callable[[int, int], None] = lambda requests, sequences: None,
        model: str = "model",
    ) -> None:
        self.model = model  # the metrics' and traces' label: one batcher per model, a batch never mixes them
        self._engine = engine
        self._queue = queue
        self._max_batch_size = max_batch_size
        self._max_latency_ms = max_latency_ms
        self._on_batch = on_batch
        self._in_flight = in_flight
        self._call: Submit | None = None
        self._close: Close | None = None
        self._prepare_limiter: anyio.CapacityLimiter | None = None
        self._run_limiter: anyio.CapacityLimiter | None = None
        self._reference_waiting: list[tuple[list[Seq], asyncio.Future]] = []
        self._reference_task: asyncio.Future | None = None

    async def submit(self, sequences: list[Seq]) -> list:
        """Rows for these sequences, computed in a merged batch with other requests' sequences."""
        if self._call is None:  # created on the serving event loop, on first use
            self._limiters()
            self._call, self._close = self._queue(
                self._run_batch,
                max_batch_size=self._max_batch_size,
                max_latency_ms=self._max_latency_ms,
                in_flight=self._in_flight,
            )
        entry = _Entry(sequences)
        entry.queue_span = tracer().start_span("queue", attributes={"zsc.sequences": len(entry)})
        try:
            return await self._call(entry)
        finally:
            if entry.queue_span.is_recording():  # ended when its batch started; a shed request ends it here
                entry.queue_span.end()

    async def submit_reference(self, sequences: list[Seq]) -> list:
        """Rows for these sequences from the model's fp32 copy (``Engine.reference``): labels, and close calls'
        texts. Calls that arrive while the copy computes are merged into its next pass (labels that nearly
        tie make every answer a close call: one pass per request would double a flood's cost), which takes
        its turn on the device with the batches."""
        waiter = asyncio.get_running_loop().create_future()
        self._reference_waiting.append((sequences, waiter))
        if self._reference_task is None:
            self._reference_task = asyncio.ensure_future(self._run_reference())
        return await waiter

    async def _run_reference(self) -> None:
        """Every waiting call's sequences in one pass, until none waits."""
        try:
            while self._reference_waiting:
                entries, self._reference_waiting = self._reference_waiting, []
                flat = [s for sequences, _ in entries for s in sequences]
                try:
                    rows = await self._reference_rows(flat)
                except Exception as exc:  # every call of the pass fails with it, as a batch's requests do
                    for _, waiter in entries:
                        if not waiter.done():
                            waiter.set_exception(exc)
                    continue
                start = 0
                for sequences, waiter in entries:
                    if not waiter.done():  # a caller gone (cancelled) takes nothing
                        waiter.set_result(rows[start : start + len(sequences)])
                    start += len(sequences)
        finally:
            self._reference_task = None

    async def _reference_rows(self, sequences: list[Seq]) -> list:
        prepare, run = self._limiters()
        with tracer().start_as_current_span("reference", attributes={"zsc.sequences": len(sequences)}):
            prepared = await anyio.to_thread.run_sync(
                self._stage, "tokenize", self._engine.prepare, sequences, limiter=prepare
            )
            rows, stats = await anyio.to_thread.run_sync(
                self._stage, "forward", lambda p: self._engine.run(p, reference=True), prepared, limiter=run
            )
        if stats is not None:  # the model's work all the same: its sequences, tokens and passes counted too
            metrics.observe_engine(self.model, stats)
            metrics.REFERENCE_SEQUENCES.labels(self.model).inc(stats.sequences)
            rows = with_tokens(rows, stats.tokens)
        return list(rows)

    def _limiters(self) -> tuple[anyio.CapacityLimiter, anyio.CapacityLimiter]:
        """The two stages' limiters, made on the serving event loop on first use."""
        if self._prepare_limiter is None or self._run_limiter is None:
            self._prepare_limiter = anyio.CapacityLimiter(1)
            self._run_limiter = anyio.CapacityLimiter(1)  # one batch on the device; the next one waits here
        return self._prepare_limiter, self._run_limiter

    def close(self) -> None:
        """Stop the queue's tasks (its model is unloaded); a later ``submit`` would start a new queue."""
        if self._close is not None:
            self._close()
        self._call = self._close = None

    async def _run_batch(self, entries: Sequence[_Entry]) -> list[list]:
        flat = [s for entry in entries for s in entry]
        metrics.observe_batch(self.model, len(entries), len(flat))
        self._on_batch(len(entries), len(flat))
        # The batch belongs to its first request's trace, and every request's queue span links to it
        # (a request larger than max_batch_size reaches here as plain-list pieces: no span of its own)
        spans = [s for s in (getattr(e, "queue_span", None) for e in entries) if s is not None and s.is_recording()]
        batch = tracer().start_span(
            "batch",
            context=trace.set_span_in_context(spans[0]) if spans else None,
            links=[trace.Link(s.get_span_context()) for s in spans],
            attributes={"zsc.requests": len(entries), "zsc.sequences": len(flat), "zsc.model": self.model},
        )
        for span in spans:
            span.add_link(batch.get_span_context())
            span.end()
        with trace.use_span(batch, end_on_exit=True):
            prepared = await anyio.to_thread.run_sync(
                self._stage, "tokenize", self._engine.prepare, flat, limiter=self._prepare_limiter
            )
            rows, stats = await anyio.to_thread.run_sync(
                self._stage, "forward", self._engine.run, prepared, limiter=self._run_limiter
            )
        if stats is not None:
            metrics.observe_engine(self.model, stats)
            rows = with_tokens(rows, stats.tokens)
        out, start = [], 0
        for entry in entries:
            out.append(list(rows[start : start + len(entry)]))
            start += len(entry)
        return out

    def _stage(self, name: str, stage: Callable, arg):
        """One engine stage in its thread, traced; whatever goes wrong in there is the model's failure,
        reported as such to every request of the merged batch."""
        with tracer().start_as_current_span(name):
            try:
                return stage(arg)
            except Exception as exc:
                metrics.ENGINE_ERRORS.labels(self.model).inc()
                raise BackendFailure(exc) from exc


def with_tokens(rows: Any, tokens: np.ndarray | None) -> Any:
    """Each row with its sequence's token count as its last value: the count travels with the row (through
    the dispatcher, which may split a request across batches, and the cache tiers), so that a call's usage
    is read, never counted again (``pipeline.usage``)."""
    if tokens is None:
        return rows
    return np.concatenate([np.asarray(rows, dtype=np.float32), tokens.astype(np.float32)[:, None]], axis=1)
