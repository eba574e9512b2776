"""How many requests a replica takes at once, learned from the latency it measures: no capacity to configure.

A fixed in-flight cap is right for one model, one machine and one label count, and wrong after any change:
sized for a GPU (256), a CPU replica at ten times its capacity made accepted requests wait 15 s. This limit
moves instead, after the limiters of Netflix's concurrency-limits (gradient, Vegas) and Envoy's adaptive
concurrency filter, against a latency the operator states (``ZSC_TARGET_LATENCY_MS``):

- every window (``window_s``, or ``window_requests`` completions, whichever comes last) it compares the
  window's p90 latency with the goal, ``max(target, 2 x the no-load latency)``: requests that are slow by
  themselves (a 256-item batch, a chunked long text) must not throttle the replica to nothing. The
  no-load latency is measured on requests that found the replica idle (nothing ahead of them), smoothed,
  and, when the limit sits at its minimum, on whatever completes (so little queues there); a minimum over
  all requests would instead creep up with the very queue it is meant to leave out;
- over the goal it moves half-way to ``limit x goal / p90`` (the gradient: at a steady throughput, waiting
  scales with the limit; at most halved per window), but only when more requests were in flight at once
  in the window than that smaller limit: latency over the goal with few requests in did not come from the
  queue the limit allows (load elsewhere on the machine, slow clients at the edge), and a smaller limit
  would refuse requests without making any faster; under the goal while the limit was reached (saturated
  but fast enough) it grows the same way, at most doubled; under the goal and not reached: unchanged (idle
  headroom says nothing about capacity);
- it grows only after two windows in a row that reached the limit: the first window of a sudden overload
  closes on the requests at the front of the queue, fast ones, while the rest still wait;
- always within ``[min_limit, max_limit]`` (``ZSC_MAX_CONCURRENCY`` stays the hard upper bound).

It starts where the replica's measured speed puts it: ``initial`` = half the target x the requests a second one
worker answers (the engine's measurement at start-up with, on a CPU, the request path and the worker's share
of the cores, ``cpu_request_s``; ``Admission.expect``; ``initial_limit``; never under 32 / ``sharers``:
``gate.MIN_START``), so that a sudden overload in the first second waits within the bound, not whatever a
constant allows (64 / ``sharers`` when nothing was measured). Half, since the overload's own refusals take
the same core, and the estimate comes from one short pass.
And it does not wait for a window's end to shrink: when a request arrives at the limit while the oldest one
in flight is older than the goal (CoDel's idea: the sojourn time of what is queued, not the latency of what
has finished), the limit drops at once to what the replica answered while that request waited, times the
goal (Little's law), at most halved; the window starts afresh (its latencies were admitted under the old
limit), and the next such drop waits for a request admitted under the new one to grow old. Only at the
limit: one request slow by itself on a replica with room (a long batch) says nothing about its queue.

Latency here is a request's time inside the replica, queue wait included: by Little's law a limit of L
at a throughput of X requests/s means about L / X of waiting, which is what the goal bounds. A refused
request is told when to come back: ``retry_after_s``, the time the replica needs to finish what it holds.

Pure: the clock is injected; one instance per worker process (and per model), used from one event loop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    """A request taken in: whether it found the replica idle (its latency is then the no-load latency), when,
    and how many requests had finished by then."""

    idle: bool
    at: float = 0.0
    done_before: int = 0
    key: int = 0


def initial_limit(target_s: float, request_s: float) -> int:
    """The in-flight limit whose queue waits half of ``target_s`` at ``request_s`` per request: in a sudden
    overload the refusals of every request over the limit take the same core (at ten times a fast model's
    capacity on one core, 1,500 refusals a second: a third of it or more), and ``request_s`` is an estimate.
    The limit grows from there within two windows when the replica answers faster."""
    return max(1, int(target_s / 2 / max(request_s, 1e-6)))


# CPU time of a /classify request outside the model's work (HTTP, validation, the cache, scoring, the answer):
# 1.0-1.3 ms on one AMD EPYC core (python -m bench.ab, docs/performance.md)
REQUEST_PATH_S = 0.001


def cpu_request_s(model_s: float, cores: int, workers: int, threads: int) -> float:
    """What a request costs one worker of a CPU replica, from the model's work measured at start-up
    (``model_s``, with ``threads`` threads as if the worker had their cores to itself): plus the request
    path, which takes the same cores, and slower by the share of the ``cores`` the worker gets once all
    ``workers`` are busy (two workers of one thread each on one core: each half as fast)."""
    share = min(1.0, cores / max(1, workers * threads))
    return (model_s + REQUEST_PATH_S) / share


class AdaptiveLimit:
    def __init__(
        self,
        target_s: float,
        max_limit: int,
        min_limit: int = 2,
        initial: int | None = None,
        sharers: int = 1,
        window_s: float = 0.5,
        window_requests: int = 16,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[int], None] = lambda limit: None,
    ) -> None:
        if target_s <= 0:
            raise ValueError("target_s must be positive")
        self.target_s = target_s
        self.max_limit = max(1, max_limit)
        self.min_limit = max(1, min(min_limit, self.max_limit))
        # a fresh replica takes a burst (64: a few batches of a CPU replica, less than a GPU's) and learns
        # from there; starting at the bound would let a sudden overload queue 256 before the first window
        self.sharers = max(1, sharers)
        start = initial if initial is not None else 64 // self.sharers
        self.limit = float(min(self.max_limit, max(self.min_limit, start)))
        self.window_s = window_s
        self.window_requests = window_requests
        self._clock = clock
        self._on_change = on_change  # told each new whole limit (a gauge)
        self.in_flight = 0
        self.no_load_s: float | None = None  # slow-moving minimum latency
        self.throughput = 0.0  # completions per second, smoothed over windows
        self._start = clock()
        self._latencies: list[float] = []
        self._idle: list[float] = []
        self._reached = False
        self._peak = 0  # the most requests in flight at once in this window
        self._reached_before = False  # the previous window reached the limit too
        self._started: dict[int, Slot] = {}  # in flight, oldest first
        self._done = 0  # requests finished since the start
        self._keys = 0
        self._shrunk_at = float("-inf")  # the last drop on age

    @property
    def current(self) -> int:
        return int(self.limit)

    def goal_s(self) -> float:
        return max(self.target_s, 2 * self.no_load_s) if self.no_load_s is not None else self.target_s

    def try_acquire(self) -> Slot | None:
        """Take a slot, or None when the replica holds its limit (the caller refuses the request)."""
        now = self._clock()
        if self.in_flight >= self.current:
            self._reached = True
            self._shrink_on_age(now)
            return None
        self._keys += 1
        slot = Slot(idle=self.in_flight == 0, at=now, done_before=self._done, key=self._keys)
        self._started[slot.key] = slot
        self.in_flight += 1
        self._peak = max(self._peak, self.in_flight)
        if self.in_flight >= self.current:
            self._reached = True
        return slot

    def release(self, slot: Slot, latency_s: float) -> None:
        """A request taken by ``try_acquire`` finished after ``latency_s`` (whatever its answer)."""
        self.in_flight = max(0, self.in_flight - 1)
        self._started.pop(slot.key, None)
        self._done += 1
        self._latencies.append(latency_s)
        if slot.idle:
            self._idle.append(latency_s)
        now = self._clock()
        elapsed = now - self._start
        if elapsed >= self.window_s and len(self._latencies) >= self.window_requests:
            self._update(elapsed)
            self._start = now

    def abandon(self, slot: Slot) -> None:
        """A slot given back unused (a call refused elsewhere): nothing is measured."""
        self.in_flight = max(0, self.in_flight - 1)
        self._started.pop(slot.key, None)

    def _shrink_on_age(self, now: float) -> None:
        """At the limit, the oldest request in flight has waited past the goal: the limit drops now to what
        the replica answered in that time, times the goal, at most halved (never grows here); once per
        generation of requests (the oldest must have been admitted after the last drop)."""
        oldest = next(iter(self._started.values()), None)
        if oldest is None or oldest.at < self._shrunk_at:
            return
        age = now - oldest.at
        goal = self.goal_s()
        if age <= goal:
            return
        rate = (self._done - oldest.done_before) / age
        wanted = max(float(self.min_limit), rate * goal, self.limit / 2)
        if wanted >= self.limit:
            return
        before = self.current
        self.limit = wanted
        self._shrunk_at = now
        if self.throughput == 0 and rate > 0:
            self.throughput = rate
        self._latencies.clear()  # admitted under the old limit: the next window judges the new one
        self._idle.clear()
        self._start = now
        if self.current != before:
            self._on_change(self.current)

    def retry_after_s(self) -> int:
        """Whole seconds for the replica to finish what it holds, at its measured throughput (1 to 60)."""
        if self.throughput <= 0:
            return 1
        return max(1, min(60, math.ceil(self.in_flight / self.throughput)))

    def _update(self, elapsed: float) -> None:
        before = self.current
        latencies = sorted(self._latencies)
        p90 = latencies[min(len(latencies) - 1, int(0.9 * len(latencies)))]
        alone = self._idle or (latencies[: max(1, len(latencies) // 10)] if self.current <= self.min_limit else [])
        if alone:
            seen = sorted(alone)[len(alone) // 2]
            self.no_load_s = seen if self.no_load_s is None else self.no_load_s + 0.3 * (seen - self.no_load_s)
        rate = len(latencies) / elapsed
        self.throughput = rate if self.throughput == 0 else 0.7 * self.throughput + 0.3 * rate
        goal = self.goal_s()
        # the gradient: by Little's law the limit that waits ``goal`` is limit x goal / p90; half-way there
        # per window (the window's latencies lag the limit they were admitted under). It grows only after two
        # windows that reached the limit; it shrinks only where the smaller limit would have held back some of
        # what was in flight: latency over the goal with few requests in (load elsewhere on the machine, slow
        # clients at the edge) did not come from the queue the limit allows, and a smaller one would refuse
        # requests without making any faster
        wanted = self.limit * min(2.0, max(0.5, goal / p90))
        if (p90 > goal and self._peak > wanted) or (p90 <= goal and self._reached and self._reached_before):
            self.limit += 0.5 * (wanted - self.limit)
        self.limit = min(float(self.max_limit), max(float(self.min_limit), self.limit))
        self._latencies.clear()
        self._idle.clear()
        self._reached_before, self._reached = self._reached, False
        self._peak = self.in_flight
        if self.current != before:
            self._on_change(self.current)
