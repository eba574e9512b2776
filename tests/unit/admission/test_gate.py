"""Admission (``service.admission.gate``), pure: the hard bound, the one model's learned limit taken at the
edge, each model's own taken by the registry's call unless the request holds it already, refusals worded
with their setting and when to retry, limits kept across a model's new version and dropped with it."""

from __future__ import annotations

import asyncio

import pytest
from prometheus_client import REGISTRY

from service.admission.gate import MIN_START, REPLICA, Admission
from service.config import Settings
from service.errors import AtCapacity, ShuttingDown


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def in_context(fn):
    """Each request runs in its own task, as the server runs them (the ticket is a context variable)."""

    async def main():
        return await asyncio.create_task(fn())

    return asyncio.run(main())


def test_the_hard_bound_alone():
    gate = Admission(target_s=None, max_in_flight=2, retry_after_s=3)
    gate.serve(["m"])
    assert gate.limits == {} and gate.edge_limit() == 2
    first, second = gate.enter(), gate.enter()
    with pytest.raises(AtCapacity) as refused:
        gate.enter()
    assert str(refused.value).startswith("the service holds 2 requests, its limit (ZSC_MAX_CONCURRENCY)")
    assert refused.value.retry_after_s == 3
    gate.leave(first)
    gate.leave(first)  # once per ticket
    assert gate.in_flight == 1
    gate.leave(second)
    assert gate.enter() is not None


def test_one_model_its_learned_slot_is_taken_at_the_edge_and_measured_to_the_answer():
    clock = Clock()
    gate = Admission(target_s=0.5, max_in_flight=256, clock=clock)
    gate.serve(["m"])
    limit = gate.limits["m"]
    assert gate.edge_limit() == limit.current == 64
    assert REGISTRY.get_sample_value("zsc_in_flight_limit", {"model": REPLICA}) is not None

    async def request():
        ticket = gate.enter()
        with gate.models(["m"]):  # the registry's call: the edge's slot is the one held
            during = limit.in_flight
        clock.now += 0.2
        gate.leave(ticket)
        return during

    assert in_context(request) == 1 and limit.in_flight == 0
    limit.limit = 1.0
    held = gate.enter()
    with pytest.raises(AtCapacity) as refused:
        gate.enter()
    assert "the service holds 1 requests, as many as it answers within 500 ms (ZSC_TARGET_LATENCY_MS; " in str(
        refused.value
    )
    assert "at most 256, ZSC_MAX_CONCURRENCY" in str(refused.value) and refused.value.retry_after_s >= 1
    gate.leave(held)


def test_several_models_each_takes_its_own_in_the_registry():
    gate = Admission(target_s=0.5, max_in_flight=256)
    gate.serve(["a", "b"])
    a, b = gate.limits["a"], gate.limits["b"]
    a.limit = 1.0

    async def request(models):
        ticket = gate.enter()
        try:
            with gate.models(models):
                return a.in_flight, b.in_flight
        finally:
            gate.leave(ticket)

    assert in_context(lambda: request(["a", "b"])) == (1, 1) and a.in_flight == b.in_flight == 0
    taken = a.try_acquire()
    with pytest.raises(AtCapacity, match=r"^model 'a' holds 1 requests, as many as it answers within 500 ms"):
        in_context(lambda: request(["b", "a"]))
    assert b.in_flight == 0  # the slot taken of b before a refused was given back
    assert in_context(lambda: request(["b"])) == (1, 1)
    a.abandon(taken)
    assert gate.edge_limit() == 256  # several models: the edge keeps only the hard bound


def test_a_new_version_keeps_its_limit_and_a_removed_model_drops_it():
    gate = Admission.from_settings(Settings.from_env({"ZSC_TARGET_LATENCY_MS": "300", "ZSC_WORKERS": "2"}))
    gate.serve(["a", "b"])
    learned = gate.limits["a"]
    assert learned.target_s == 0.3 and learned.max_limit == 128 and learned.current == 32  # 64 split in two
    gate.serve(["a", "b"])  # a new version of a: same name
    assert gate.limits["a"] is learned
    gate.serve(["b"])
    assert set(gate.limits) == {"b"} and gate.edge_limit() == gate.limits["b"].current


def test_admission_starts_each_models_limit_from_its_measured_cost():
    admission = Admission(target_s=0.5, max_in_flight=256, sharers=2)
    admission.expect("fast", 0.0005)  # 500: capped by the hard bound
    admission.expect("e5", 0.0053)  # a small model on one core: 47
    admission.expect("slow", 0.2)  # never under the floor: 32 per replica, 16 per worker
    admission.serve(["fast", "e5", "slow", "unmeasured"])
    starts = {name: limit.current for name, limit in admission.limits.items()}
    assert starts == {"fast": 256, "e5": 47, "slow": MIN_START // 2, "unmeasured": 32}


def test_stopping_refuses_every_request_and_drained_says_when_the_last_one_left():
    gate = Admission(target_s=None, max_in_flight=4, retry_after_s=2)
    gate.serve(["m"])

    async def run() -> tuple[bool, bool]:
        held = gate.enter()
        gate.stop()
        with pytest.raises(ShuttingDown) as refused:
            gate.enter()
        assert refused.value.retry_after_s == 2 and refused.value.error_type == "shutting_down"
        assert await gate.drained(0.05) is False, "one request is still in flight"
        asyncio.get_running_loop().call_later(0.05, gate.leave, held)
        return await gate.drained(5), gate.in_flight == 0

    assert asyncio.run(run()) == (True, True)


def test_stopping_with_nothing_in_flight_is_drained_at_once():
    gate = Admission(target_s=None, max_in_flight=0)
    gate.serve(["m"])

    async def run() -> bool:
        gate.stop()
        return await gate.drained(0.01)

    assert asyncio.run(run()) is True
