"""BentoML's adaptive batching, as the engine's batcher's queue (``engine.batcher.Queue``).

The public endpoints take one JSON object, so they cannot be BentoML batchable APIs themselves (those take
a list). Reaching a batchable API from them goes through BentoML's self-proxy: a full HTTP round trip
inside the process, measured at ~40% of this service's throughput, and in BentoML 1.4.40 that proxy
recycles its session under load and fails in-flight calls with 500s. So the batcher feeds BentoML's own
adaptive-batching dispatcher (``CorkDispatcher``: the same queue, latency model and load shedding that
``@bentoml.api(batchable=True)`` uses) directly, with cache misses only. It lives here, with the rest of
what is BentoML's, so that the engine layer imports no framework.
"""

from __future__ import annotations

from bentoml._internal.marshal.dispatcher import CorkDispatcher, NonBlockSema  # no public API for it in 1.4

from service.engine.batcher import Close, RunBatch, Submit
from service.errors import Overloaded

MAX_CORK_S = 0.02  # the longest the dispatcher learns to hold a batch back for more requests


def _shed() -> None:
    raise Overloaded()


def bentoml_dispatcher_queue(
    run_batch: RunBatch, *, max_batch_size: int, max_latency_ms: int, in_flight: int
) -> tuple[Submit, Close]:
    """BentoML's dispatcher around ``run_batch``: at most ``in_flight`` batches at once; an entry predicted
    to wait past ``max_latency_ms`` is shed (``Overloaded``: 503). Closing cancels its controller task."""
    dispatcher = CorkDispatcher(
        max_latency_in_ms=max_latency_ms,
        max_batch_size=max_batch_size,
        shared_sema=NonBlockSema(in_flight),
        fallback=_shed,
        get_batch_size=len,
        batch_dim=(0, 0),
    )
    _bound_learned_wait(dispatcher)
    return dispatcher(run_batch), dispatcher.shutdown


def _bound_learned_wait(dispatcher: CorkDispatcher) -> None:
    """The dispatcher holds a small batch back for as long as batches have waited on average (its
    ``optimizer.wait``, the mean of the last 50): that is how it learns to cork. But the wait it records
    includes the time a batch stood behind the one running, so an overload teaches it to hold every batch
    for the overload's queueing, and the held batches keep the average up: p99 at half load stayed 3.6-6x
    its baseline for 20 s after an overload (docs/reliability.md). Recorded here is what corking can win:
    at most the batch's own duration (waiting longer than a batch takes never pays for itself), and at most
    ``MAX_CORK_S`` (an overload's batches are long too: bounded by them alone, the held time still stayed
    at 5.9x the baseline's p99 5 s after the drop)."""
    optimizer = dispatcher.optimizer
    record = optimizer.log_outbound

    def log_outbound(n: int, wait: float, duration: float) -> None:
        record(n, min(wait, duration, MAX_CORK_S), duration)

    optimizer.log_outbound = log_outbound
