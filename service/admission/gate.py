"""The admission of one worker process: the hard bound and the learned limit of each model, in one object.

A request holds a place under the hard bound (``ZSC_MAX_CONCURRENCY`` divided among the workers) and a slot
of the learned limit of every model it uses. Where it takes them:

- ``enter``, at the HTTP edge once the request's head and body are read: the hard bound, and, while the
  replica serves one model, that model's slot (the only model a request can use: refusing here, before
  anything parses the body, is what keeps a refusal cheap at ten times a replica's capacity);
- ``models``, in the model registry once the call's models are known: the slot of each model the request
  does not hold yet (a replica serving several models: a flood on one sheds only that model's requests).

Both read the same ``Ticket`` (a context variable: the edge and the registry never meet), and a slot is
measured from the moment it is taken to ``leave``, less the time the edge waited on the client: service
time, never upload or download time. Job calls take no slot: they yield to interactive traffic instead.

Stopping (SIGTERM, ``http/drain.py``): ``stop`` refuses every request from then on (``ShuttingDown``) and
``drained`` waits until the admitted ones have left.

One instance per worker process, made before the framework builds anything (``from_settings``), given to
the edge and to ``service.build``; used from one event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field

from service.admission.limit import AdaptiveLimit, Slot, initial_limit
from service.config import Settings
from service.errors import AtCapacity, ShuttingDown
from service.obs import metrics

# The measured start is never below this (per replica, split among its workers): the estimate comes from one
# short pass at start-up, and a start under the clients of a closed loop that retry a refusal at once turns
# into a storm of refusals that takes the core from the requests it serves (the limit then learns lower).
MIN_START = 32
REPLICA = "*"  # zsc_in_flight_limit's series for what the edge admits up to (one model: its learned limit)


@dataclass
class Ticket:
    """What one admitted request holds: its place under the hard bound, and the learned slots it took."""

    taken_at: float
    slots: dict[str, tuple[AdaptiveLimit, Slot]] = field(default_factory=dict)  # by model name
    left: bool = False


_current: ContextVar[Ticket | None] = ContextVar("zsc_ticket", default=None)


class Admission:
    def __init__(
        self,
        target_s: float | None,
        max_in_flight: int,
        sharers: int = 1,
        retry_after_s: int = 1,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """``target_s``: the latency the learned limits keep (None: no learned limit, the hard bound alone);
        ``max_in_flight``: this worker's hard bound (0: none); ``sharers``: the workers of one replica."""
        self.target_s = target_s
        self.max_in_flight = max_in_flight
        self.sharers = sharers
        self.retry_after_s = retry_after_s
        self._clock = clock
        self.limits: dict[str, AdaptiveLimit] = {}
        self.request_s: dict[str, float] = {}  # each model's measured cost of a request, seconds
        self.served: tuple[str, ...] = ()
        self.in_flight = 0
        self.stopping = False
        self._left_last: asyncio.Event | None = None  # set when, stopping, the last admitted request leaves

    @classmethod
    def from_settings(cls, s: Settings) -> Admission:
        target_ms = s.target_latency_ms_for()
        return cls(target_ms / 1000 if target_ms else None, s.max_in_flight_per_worker(), s.workers, s.retry_after_s)

    # -- the models served (the registry says) ---------------------------------------------------------
    def serve(self, names: Sequence[str]) -> None:
        """The models served from now on. Each has its own learned limit, made on first sight and kept while
        the model is served (a new version of it keeps what was learned: same name, same load)."""
        self.served = tuple(names)
        if self.target_s is not None and self.max_in_flight:
            for name in self.served:
                if name not in self.limits:
                    cost = self.request_s.get(name)
                    self.limits[name] = AdaptiveLimit(
                        self.target_s,
                        self.max_in_flight,
                        initial=max(initial_limit(self.target_s, cost), MIN_START // self.sharers) if cost else None,
                        sharers=self.sharers,
                        on_change=self._gauge(name),
                    )
                    self._gauge(name)(self.limits[name].current)
            for name in [n for n in self.limits if n not in self.served]:
                del self.limits[name]
        self._gauge(REPLICA)(self.edge_limit())

    def expect(self, model: str, request_s: float) -> None:
        """A model about to be served costs this worker about ``request_s`` per request (measured at start-up):
        its learned limit, when first made, starts from it (``limit.initial_limit``)."""
        self.request_s[model] = request_s

    def edge_limit(self) -> int:
        """What ``enter`` admits up to: the one model's learned limit, else the hard bound (0: none)."""
        only = self._only_limit()
        return only.current if only is not None else self.max_in_flight

    # -- the edge ----------------------------------------------------------------------------------------
    def enter(self) -> Ticket:
        """Take a request in (its body read), or ``AtCapacity`` (``ShuttingDown`` once stopping); the ticket is
        the current one from here."""
        if self.stopping:
            raise ShuttingDown(self.retry_after_s)
        if self.max_in_flight and self.in_flight >= self.max_in_flight:
            raise AtCapacity(
                f"the service holds {self.in_flight} requests, its limit (ZSC_MAX_CONCURRENCY)", self.retry_after_s
            )
        ticket = Ticket(self._clock())
        only = self._only_limit()
        if only is not None:
            slot = only.try_acquire()
            if slot is None:
                raise AtCapacity(
                    f"the service holds {only.in_flight} requests, as many as it answers within "
                    f"{only.goal_s() * 1000:.0f} ms (ZSC_TARGET_LATENCY_MS; at most {self.max_in_flight}, "
                    "ZSC_MAX_CONCURRENCY)",
                    only.retry_after_s(),
                )
            ticket.slots[self.served[0]] = (only, slot)
        self.in_flight += 1
        _current.set(ticket)
        return ticket

    def leave(self, ticket: Ticket, waited_s: float = 0.0) -> None:
        """The request's call is over (answered, or failed): its place and slots are given back, measured
        from when it was taken, less ``waited_s`` (time spent waiting on the client, not serving it). Once
        per ticket."""
        if ticket.left:
            return
        ticket.left = True
        self.in_flight -= 1
        if self.in_flight == 0 and self._left_last is not None:
            self._left_last.set()
        elapsed = max(0.0, self._clock() - ticket.taken_at - waited_s)
        for limit, slot in ticket.slots.values():
            limit.release(slot, elapsed)

    # -- stopping ----------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Refuse every request from now on; ``drained`` says when the admitted ones have left."""
        self.stopping = True
        self._left_last = asyncio.Event()
        if self.in_flight == 0:
            self._left_last.set()

    async def drained(self, within_s: float) -> bool:
        """Whether every admitted request left within ``within_s`` seconds (after ``stop``)."""
        assert self._left_last is not None, "drained() before stop()"
        try:
            await asyncio.wait_for(self._left_last.wait(), within_s)
        except TimeoutError:
            return False
        return True

    # -- the registry ------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def models(self, names: Sequence[str]) -> Iterator[None]:
        """Hold a slot of each named model's limit that the current request does not hold yet, for the
        duration of the block; ``AtCapacity`` naming the first model that is full (the slots taken so far
        are given back unmeasured)."""
        ticket = _current.get()
        held = ticket.slots if ticket is not None and not ticket.left else {}
        taken: list[tuple[AdaptiveLimit, Slot]] = []
        for name in names:
            limit = self.limits.get(name)
            if limit is None or name in held:
                continue
            slot = limit.try_acquire()
            if slot is None:
                for other, mine in taken:
                    other.abandon(mine)
                raise AtCapacity(
                    f"model {name!r} holds {limit.in_flight} requests, as many as it answers within "
                    f"{limit.goal_s() * 1000:.0f} ms (ZSC_TARGET_LATENCY_MS)",
                    limit.retry_after_s(),
                )
            taken.append((limit, slot))
        started = self._clock()
        try:
            yield
        finally:
            elapsed = self._clock() - started
            for limit, slot in taken:
                limit.release(slot, elapsed)

    def _only_limit(self) -> AdaptiveLimit | None:
        return self.limits.get(self.served[0]) if len(self.served) == 1 else None

    def _gauge(self, model: str) -> Callable[[int], None]:
        def set_limit(current: int) -> None:
            metrics.IN_FLIGHT_LIMIT.labels(model).set(current)
            if model != REPLICA and self._only_limit() is self.limits.get(model):
                metrics.IN_FLIGHT_LIMIT.labels(REPLICA).set(current)

        return set_limit
