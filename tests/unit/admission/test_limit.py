"""The learned in-flight limit with an injected clock: against a simulated replica (a FIFO server of fixed
capacity) at ten times its capacity it settles where accepted requests wait about the target; two workers
on one device, each with its own limit, keep the bound from an overload's first second; it probes upward
when saturated and fast (not on an overload's first window), stays put when idle, does not collapse when
requests are slow by themselves, recovers when the overload ends, and tells a refused client how long
the replica needs."""

from __future__ import annotations

from collections import deque

import pytest

from service.admission.limit import AdaptiveLimit, cpu_request_s, initial_limit


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Replica:
    """A simulated replica that finishes one request every 1 / ``capacity`` seconds in arrival order (each
    also taking a fixed ``service_s`` on top, if given): what it holds carries over from phase to phase.
    Given several limits (the workers of one replica, each with its own), arrivals go to them in turn and
    share the one server. Each refusal takes ``refusal_s`` of that server (one core answers both)."""

    def __init__(
        self,
        limit: AdaptiveLimit | list[AdaptiveLimit],
        clock: Clock,
        capacity: float,
        service_s: float = 0.0,
        refusal_s: float = 0.0,
    ) -> None:
        self.limits = limit if isinstance(limit, list) else [limit]
        self.clock, self.capacity, self.service_s, self.refusal_s = clock, capacity, service_s, refusal_s
        self.queue: deque = deque()  # (admission time, limit, slot)
        self.next_finish: float | None = None
        self.arrivals = 0

    def run(self, offered: float, seconds: float):
        """``offered`` arrivals per second for ``seconds``: (accepted (finish time, latency), refused count)."""
        clock = self.clock
        step = 1 / max(offered, self.capacity) / 4
        next_arrival, end = clock.now, clock.now + seconds
        done, refused = [], 0
        while clock.now < end:
            clock.now += step
            while next_arrival <= clock.now:
                limit = self.limits[self.arrivals % len(self.limits)]
                self.arrivals += 1
                slot = limit.try_acquire()
                if slot is not None:
                    self.queue.append((next_arrival, limit, slot))
                    if self.next_finish is None:
                        self.next_finish = next_arrival + 1 / self.capacity
                else:
                    refused += 1
                    if self.next_finish is not None:
                        self.next_finish += self.refusal_s
                next_arrival += 1 / offered
            while self.next_finish is not None and self.next_finish <= clock.now:
                admitted, limit, slot = self.queue.popleft()
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
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, clock=clock)
    replica = Replica(limit, clock, capacity=40)
    replica.run(offered=4, seconds=20)  # never more than one in flight
    assert limit.current == 64  # the start: nothing learned
    replica.run(offered=400, seconds=10)
    replica.run(offered=4, seconds=2)  # the overload's queue drains (its oldest may still shrink the limit)
    learned = limit.current
    replica.run(offered=4, seconds=20)
    assert limit.current == learned
    assert AdaptiveLimit(target_s=0.5, max_limit=256, sharers=2).current == 32  # a replica's 64, two workers


def test_latency_over_the_goal_with_room_to_spare_leaves_the_limit_alone():
    """Requests slowed by something other than the queue the limit allows (load elsewhere on the machine,
    slow clients at the edge): a smaller limit would refuse requests and make none faster."""
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.1, max_limit=256, initial=78, clock=clock)
    Replica(limit, clock, capacity=40, service_s=0.02).run(offered=20, seconds=10)
    Replica(limit, clock, capacity=40, service_s=0.4).run(offered=20, seconds=10)  # 4x the target, few in flight
    assert limit.current == 78


def test_a_queue_over_the_goal_under_a_high_limit_brings_it_down():
    """A flood that never reaches a high start (a fast model's measured cost) still queues past the goal:
    the limit comes down to where that queue would wait about the goal, and then refuses the rest."""
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=512, initial=300, clock=clock)
    done, refused = Replica(limit, clock, capacity=40).run(offered=60, seconds=20)  # 20/s more than it serves
    assert limit.current < 60 and refused > 0
    assert p([lat for t, lat in done if t > 15], 0.99) < 2 * 0.5


def test_two_workers_sharing_one_device_keep_the_bound_together():
    """Two workers, each with its own limit, on one server: at ten times its capacity, onset included,
    accepted requests wait within twice the target and the server stays busy."""
    clock = Clock()
    limits = [AdaptiveLimit(target_s=0.5, max_limit=128, sharers=2, clock=clock) for _ in range(2)]
    replica = Replica(limits, clock, capacity=100)
    replica.run(offered=10, seconds=10)
    done, _ = replica.run(offered=1000, seconds=20)
    assert p([lat for _, lat in done], 0.99) <= 2 * 0.5
    assert len(done) >= 0.9 * 100 * 20


def test_the_first_window_of_an_overload_does_not_grow_the_limit():
    """It closes on the requests at the front of the queue (fast) while the rest still wait."""
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, initial=20, window_s=0.1, window_requests=4, clock=clock)
    slots = [limit.try_acquire() for _ in range(20)]
    clock.now = 1.0
    for slot in slots[:4]:
        limit.release(slot, 0.05)  # p90 of the window 0.05 s, far under the goal, and the limit was reached
    assert limit.current == 20


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


def per_second_p99(done, start: float) -> list[float]:
    """The accepted p99 latency in each whole second after ``start`` (by finish time)."""
    seconds: dict[int, list[float]] = {}
    for finished, latency in done:
        if finished > start:
            seconds.setdefault(int(finished - start), []).append(latency)
    return [p(lat, 0.99) for _, lat in sorted(seconds.items())]


# (requests/s the replica answers when nothing is refused, the start-up estimate's share of a request's time,
# the core time of one refusal): a small model on one core (the estimate 3/4 of a request), and a fast one
# (multilingual-e5-small on OpenVINO bf16, 172 requests/s on one AVX512-BF16 core, 5.8 ms a request, of which
# the estimate sees 3.6 + 1 ms, or 2.1 + 1 counting its labels as texts) whose 10x step is refused at 1,500 a
# second, 0.3 ms each
STEPS = [(40, 0.75, 0.0), (120, 0.75, 0.0), (172, 0.55, 0.0003)]


@pytest.mark.parametrize(("capacity", "model_share", "refusal_s"), STEPS)
def test_started_from_the_measured_service_time_a_sudden_step_waits_within_twice_the_target_from_its_first_second(
    capacity, model_share, refusal_s
):
    """The limit starts at half the target / the measured time per request: the first second of a 10x step is
    already within twice the target (starting at 64 it waited 64 / 40 = 1.6 s at 40 requests/s), even when
    the request path and the step's refusals, which the estimate leaves out, halve what the core answers."""
    clock = Clock()
    measured = model_share / capacity  # the engine's share of a request: the HTTP path is the rest
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, initial=initial_limit(0.5, measured), clock=clock)
    replica = Replica(limit, clock, capacity=capacity, refusal_s=refusal_s)
    replica.run(offered=capacity / 10, seconds=3)
    step = clock.now
    done, _ = replica.run(offered=10 * capacity, seconds=10)
    worst = per_second_p99(done, step)
    assert len(worst) >= 9 and max(worst) <= 2 * 0.5, worst
    answering = 1 - 9 * capacity * refusal_s  # the core's share the refusals leave
    assert len(done) >= 0.9 * capacity * answering * 10  # and the replica stays busy


def test_the_old_start_is_what_it_replaces():
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, clock=clock)  # 64, nothing measured
    replica = Replica(limit, clock, capacity=40)
    replica.run(offered=4, seconds=3)
    step = clock.now
    done, _ = replica.run(offered=400, seconds=5)
    assert per_second_p99(done, step)[1] > 2 * 0.5


def test_at_the_limit_an_oldest_request_past_the_goal_shrinks_the_limit_at_once():
    """No window has closed (too few requests finished); the oldest in flight has waited 2 s while 10
    finished: the replica answers 5 a second, so the arrival that finds the limit full drops it toward
    5 x the 1 s goal (at most halved), not at a window's end; not again until a request admitted under
    the new limit is as old."""
    clock = Clock()
    changes: list[int] = []
    limit = AdaptiveLimit(target_s=1.0, max_limit=256, initial=40, window_requests=1000, clock=clock,
                          on_change=changes.append)  # fmt: skip
    slots = [limit.try_acquire() for _ in range(40)]
    for i, slot in enumerate(slots[:10]):
        clock.now = 0.1 * (i + 1)
        limit.release(slot, clock.now)
    clock.now = 2.0
    later = [limit.try_acquire() for _ in range(10)]
    assert None not in later  # room: an old request alone drops nothing
    assert limit.current == 40 and limit.try_acquire() is None  # at the limit: now it does
    assert limit.current == 20 and changes == [20]
    clock.now = 2.5
    assert limit.try_acquire() is None and limit.current == 20  # the same old requests: judged once
    for slot in [*slots[10:40], *later]:
        limit.release(slot, clock.now)
    fresh = [limit.try_acquire() for _ in range(20)]  # admitted under the new limit, then stuck
    clock.now = 4.0
    assert None not in fresh and limit.try_acquire() is None and limit.current == 10


def test_one_slow_request_on_a_replica_with_room_drops_nothing():
    clock = Clock()
    limit = AdaptiveLimit(target_s=0.5, max_limit=256, initial=30, clock=clock)
    limit.try_acquire()  # a 256-item batch, say: 5 s on its own
    clock.now = 5.0
    assert limit.try_acquire() is not None and limit.current == 30


def test_initial_limit_is_the_target_over_the_time_per_request():
    assert initial_limit(0.5, 0.01) == 25  # half the target's worth: the rest of the core is the request path's
    assert initial_limit(0.5, 2.0) == 1
    assert AdaptiveLimit(target_s=0.5, max_limit=30, initial=initial_limit(0.5, 0.001)).current == 30


def test_a_cpu_workers_request_costs_the_model_the_request_path_and_its_share_of_the_cores():
    assert cpu_request_s(0.002, cores=1, workers=1, threads=1) == pytest.approx(0.003)
    assert cpu_request_s(0.002, cores=1, workers=2, threads=1) == pytest.approx(0.006)  # one core, two workers
    assert cpu_request_s(0.002, cores=4, workers=2, threads=2) == pytest.approx(0.003)  # each its own two
    assert cpu_request_s(0.002, cores=2, workers=1, threads=1) == pytest.approx(0.003)  # room to spare: no faster
