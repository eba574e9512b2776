"""The batching queue: requests' entries in arrival order, handed to the engine as batches, continuously.

A batch goes as soon as the device is free (fewer than ``in_flight`` batches running) and takes what has
queued meanwhile, up to ``max_batch_size`` sequences (a larger entry is split across batches and its rows
joined again): under load each batch holds what arrived while the last one ran, and an idle replica
answers a lone request at once. Nothing polls: a batch starts when an entry arrives at a free device or when
a batch ends with entries waiting (TEI's and vLLM's continuous batching, here for encoders). BentoML's
CorkDispatcher, which this replaces, woke every millisecond while a batch ran and learned a hold-back
time that an overload's queue taught to be long (docs/performance.md, docs/reliability.md).

Shedding: an entry that would wait past ``max_latency_ms`` before its batch starts, at the throughput the
queue has measured (sequences a second, over the last batches), is refused at once (``Overloaded``: 503),
and one still queued when that time has passed is refused then. The learned in-flight limit
(``service.admission``) keeps the queue short long before this bound: it is the last guard, for a replica
whose limit is off.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from service.engine.batcher import Close, RunBatch, Submit
from service.errors import Overloaded

SMOOTHING = 0.2  # the weight of the newest batch in the measured seconds per sequence


@dataclass(eq=False)  # one request's entry: found in the queue by identity
class _Waiting:
    entry: list
    done: asyncio.Future
    at: float
    pieces: list = field(default_factory=list)  # rows of the pieces run so far, an entry split across batches
    left: int = 0  # sequences not yet handed to a batch


class BatchQueue:
    def __init__(
        self,
        run_batch: RunBatch,
        *,
        max_batch_size: int,
        max_latency_ms: int,
        in_flight: int = 1,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._run_batch = run_batch
        self._max_batch_size = max(1, max_batch_size)
        self._max_wait_s = max_latency_ms / 1000
        self._in_flight = max(1, in_flight)
        self._clock = clock
        self._queue: deque[_Waiting] = deque()
        self._queued_sequences = 0
        self._running: set[asyncio.Task] = set()
        self._running_sequences = 0
        self._seconds_per_sequence: float | None = None
        self._last_end: float | None = None  # when the last batch ended: a batch's device time starts no earlier
        self._closed = False

    async def submit(self, entry: list) -> list:
        """``entry``'s rows, once the batches holding its sequences have run; ``Overloaded`` when it would
        wait past the bound."""
        if self._closed:
            raise RuntimeError("the batching queue is closed")
        if not entry:
            return []
        now = self._clock()
        if self._predicted_wait_s() > self._max_wait_s:
            raise Overloaded()
        waiting = _Waiting(entry, asyncio.get_running_loop().create_future(), now, left=len(entry))
        self._queue.append(waiting)
        self._queued_sequences += len(entry)
        self._start_batches()
        try:
            return await waiting.done
        except asyncio.CancelledError:  # the caller went away: its sequences still queued need not run
            self._drop(waiting)
            raise

    def close(self) -> None:
        """Refuse what still waits and cancel the batches running (the model is unloaded)."""
        self._closed = True
        while self._queue:
            waiting = self._queue.popleft()
            if not waiting.done.done():
                waiting.done.set_exception(Overloaded())
        self._queued_sequences = 0
        for task in list(self._running):
            task.cancel()

    # -- the batches ---------------------------------------------------------------------------------------
    def _start_batches(self) -> None:
        while self._queue and len(self._running) < self._in_flight and not self._closed:
            batch = self._take()
            if not batch:
                return
            task = asyncio.ensure_future(self._run(batch))
            self._running.add(task)
            task.add_done_callback(self._finished)

    def _take(self) -> list[tuple[_Waiting, list]]:
        """The next batch: (entry, its piece) from the front, up to ``max_batch_size`` sequences; entries
        that have waited past the bound are refused on the way."""
        now = self._clock()
        batch: list[tuple[_Waiting, list]] = []
        room = self._max_batch_size
        while self._queue and room > 0:
            waiting = self._queue[0]
            fresh = waiting.left == len(waiting.entry)
            if fresh and now - waiting.at > self._max_wait_s:
                self._queue.popleft()
                self._queued_sequences -= waiting.left
                if not waiting.done.done():
                    waiting.done.set_exception(Overloaded())
                continue
            start = len(waiting.entry) - waiting.left
            # a whole entry goes as itself (what the caller put on it, a trace's span, goes with it)
            piece = waiting.entry if start == 0 and waiting.left <= room else waiting.entry[start : start + room]
            waiting.left -= len(piece)
            self._queued_sequences -= len(piece)
            room -= len(piece)
            batch.append((waiting, piece))
            if waiting.left == 0:
                self._queue.popleft()
        return batch

    async def _run(self, batch: list[tuple[_Waiting, list]]) -> None:
        started = self._clock()
        sequences = sum(len(piece) for _, piece in batch)
        self._running_sequences += sequences
        try:
            rows = await self._run_batch([piece for _, piece in batch])
        except BaseException as exc:  # every request of the batch fails with it (closed: refused)
            failure = Overloaded() if isinstance(exc, asyncio.CancelledError) else exc
            for waiting, _ in batch:
                if not waiting.done.done():
                    waiting.done.set_exception(failure)
                self._drop(waiting)
            if failure is not exc:
                raise
            return
        finally:
            self._running_sequences -= sequences
        # its own time: from its start or the end of the batch before, whichever was later. With two batches in
        # flight (a GPU's default) the second waits on the device for the first, and its wall time counted that
        # too: a small batch behind a large one measured a sequence at many times its cost, and the queue, so
        # measured, refused most of a 1,024-client load it could serve (docs/performance.md, "GPU")
        ended = self._clock()
        since = started if self._last_end is None else max(started, self._last_end)
        per_sequence = max(0.0, ended - since) / sequences  # 0: it ended before the one ahead of it
        self._last_end = ended if self._last_end is None else max(ended, self._last_end)
        previous = self._seconds_per_sequence
        self._seconds_per_sequence = (
            per_sequence if previous is None else previous + SMOOTHING * (per_sequence - previous)
        )
        for (waiting, _), piece_rows in zip(batch, rows):
            waiting.pieces.extend(piece_rows)
            if waiting.left == 0 and len(waiting.pieces) == len(waiting.entry) and not waiting.done.done():
                waiting.done.set_result(waiting.pieces)

    def _finished(self, task: asyncio.Task) -> None:
        self._running.discard(task)
        self._start_batches()

    def _drop(self, waiting: _Waiting) -> None:
        """An entry whose caller is gone, or whose batch failed: its pieces still queued are taken out."""
        if waiting.left and waiting in self._queue:
            self._queue.remove(waiting)
            self._queued_sequences -= waiting.left
            waiting.left = 0

    def _predicted_wait_s(self) -> float:
        """How long a new entry would wait for its batch to start: the sequences running and queued ahead of
        it, at the measured speed (0 while the device has room, or before a batch has been measured)."""
        if self._seconds_per_sequence is None or len(self._running) < self._in_flight:
            return 0.0
        return (self._queued_sequences + self._running_sequences) * self._seconds_per_sequence


def batch_queue(
    run_batch: RunBatch, *, max_batch_size: int, max_latency_ms: int, in_flight: int
) -> tuple[Submit, Close]:
    """The ``engine.batcher.Queue`` the service uses: a ``BatchQueue`` around ``run_batch``."""
    queue = BatchQueue(run_batch, max_batch_size=max_batch_size, max_latency_ms=max_latency_ms, in_flight=in_flight)
    return queue.submit, queue.close
