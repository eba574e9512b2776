"""The learned in-flight limit with an injected clock: against a simulated replica (a FIFO server of fixed
capacity) at ten times its capacity it settles where accepted requests wait about the target; it probes
upward when saturated and fast, stays put when idle, does not collapse when requests are slow by themselves,
recovers when the overload ends, and tells a refused client how long the replica needs."""

from __future__ import annotations

from collections import deque

import pytest

from service.core.adaptive_limit import AdaptiveLimit


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Replica:
    """A simulated replica that finishes one request every 1 / ``capacity`` seconds in arrival order (each
    also taking a fixed ``service_s`` on top, if given): what it holds carries over from phase to phase."""

    def __init__(self, limit: AdaptiveLimit, clock: Clock, capacity: float, service_s: float = 0.0) -> None:
        self.limit, self.clock, self.capacity, self.service_s = limit, clock, capacity, service_s
        self.queue: deque = deque()  # (admission time, slot)
        self.next_finish: float | None = None

    def run(self, offered: float, seconds: float):
        """``offered`` arrivals per second for ``seconds``: (accepted (finish time, latency), refused count)."""
        clock, limit = self.clock, self.limit
        step = 1 / max(offered, self.capacity) / 4
        next_arrival, end = clock.now, clock.now + seconds
        done, refused = [], 0
        while clock.now < end:
            clock.now += step
            while next_arrival <= clock.now:
                slot = limit.try_acquire()
                if slot is not None:
                    self.queue.append((next_arrival, slot))
                    if self.next_finish is None:
                        self.next_finish = next_arrival + 1 / self.capacity
                else:
                    refused += 1
                next_arrival += 1 / offered
            while self.next_finish is not None and self.next_finish <= clock.now:
                admitted, slot = self.queue.popleft()
                latency = self.next_finish - admitted + self.service_s
                limit.release(slot, latency)
                done.append((self.next_finish, latency))
                self.next_finish = self.next_finish + 1 / self.capacity if self.queue else None
        return done, refused


def simulate(limit, clock, capacity, offered, seconds, service_s=0.0):
    return Replica(limit, clock, capacity, service_s).run(offered, seconds)


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def test_at_ten_times_capacity_accepted_requests_wait_about_the_target():
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, clock=clock)
    done, refused = simulate(limit, clock, capacity=40, offered=400, seconds=30)
    settled = [lat for t, lat in done if t > 10]
    assert p(settled, 0.99) <= 2 * 0.5  # the bound: accepted p99 within twice the target
    assert 0.25 <= p(settled, 0.5) <= 0.75
    assert 10 <= limit.current <= 40  # near capacity x target = 20
    assert len(settled) / 20 >= 0.95 * 40  # the replica still finishes its capacity
    assert refused > 0.8 * 400 * 30


def test_a_static_cap_is_what_it_replaces():
    """The same overload with the limit pinned at 256 (the old default) waits 256 / 40 = 6 s."""
    clock = Clock()
    pinned = AdaptiveLimit(target_s=100.0, max_limit=256, min_limit=256, clock=clock)
    done, _ = simulate(pinned, clock, capacity=40, offered=400, seconds=20)
    assert p([lat for t, lat in done if t > 10], 0.5) > 5


def test_saturated_and_fast_it_probes_upward_to_the_bound():
    clock = Clock()
    limit = AdaptiveLimit(target_s=10.0, max_limit=64, initial=4, clock=clock)
    simulate(limit, clock, capacity=100, offered=1000, seconds=20)
    assert limit.current == 64


def test_idle_headroom_leaves_the_limit_alone():
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, initial=16, clock=clock)
    simulate(limit, clock, capacity=100, offered=10, seconds=20)  # never more than one in flight
    assert limit.current == 16


def test_slow_requests_by_themselves_do_not_throttle_the_replica():
    """Every request takes 1.5 s of service on its own (a big batch): the goal becomes twice that, so the
    limit stays where the replica can work instead of collapsing to its minimum."""
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, clock=clock)
    done, _ = simulate(limit, clock, capacity=20, offered=22, seconds=40, service_s=1.5)
    assert limit.goal_s() >= 3.0 - 1e-9
    assert limit.current > limit.min_limit
    assert len([1 for t, _ in done if t > 20]) / 20 >= 0.9 * 20


def test_after_an_overload_the_limit_lets_the_normal_load_through():
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, clock=clock)
    replica = Replica(limit, clock, capacity=40)
    replica.run(offered=400, seconds=20)
    done, refused = replica.run(offered=20, seconds=10)
    assert refused == 0
    assert p([lat for t, lat in done if t > clock.now - 5], 0.99) < 0.2  # no backlog left behind


def test_retry_after_is_the_time_to_finish_what_it_holds():
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, clock=clock)
    assert limit.retry_after_s() == 1  # nothing measured yet
    simulate(limit, clock, capacity=10, offered=100, seconds=10)
    expected = limit.in_flight / limit.throughput
    assert limit.retry_after_s() == max(1, min(60, -(-expected // 1)))
    assert limit.throughput == pytest.approx(10, rel=0.2)


def test_bounds():
    with pytest.raises(ValueError):
        AdaptiveLimit(target_s=0, max_limit=8)
    limit = AdaptiveLimit(target_s=0.5, max_limit=3)
    assert limit.current == 3 and [limit.try_acquire() is not None for _ in range(4)] == [True, True, True, False]
