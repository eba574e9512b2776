"""The batching queue (engine/batch_queue.py) on an event loop: a batch starts when the device is free and takes
what queued meanwhile, nothing polls, a caller that goes away takes its sequences out, shedding past the
bound, and closing."""

from __future__ import annotations

import asyncio

import pytest

from service.engine.batch_queue import BatchQueue
from service.errors import Overloaded


class Device:
    """A run_batch that records each batch and finishes it when told (``release``), or at once."""

    def __init__(self, hold: bool = True) -> None:
        self.batches: list[list[list]] = []
        self.hold = hold
        self.gates: list[asyncio.Event] = []

    async def run_batch(self, entries):
        self.batches.append([list(e) for e in entries])
        gate = asyncio.Event()
        self.gates.append(gate)
        if self.hold:
            await gate.wait()
        return [[f"row:{s}" for s in e] for e in entries]

    def release(self) -> None:
        for gate in self.gates:
            gate.set()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_lone_request_goes_at_once_and_what_queues_behind_a_batch_goes_together_when_it_ends():
    async def go():
        device = Device()
        queue = BatchQueue(device.run_batch, max_batch_size=64, max_latency_ms=60_000)
        first = asyncio.ensure_future(queue.submit(["a"]))
        await settle()
        assert device.batches == [[["a"]]]  # no hold-back: the device was free
        rest = [asyncio.ensure_future(queue.submit([f"b{i}", f"c{i}"])) for i in range(5)]
        await settle()
        assert len(device.batches) == 1  # the device is busy: they wait, nothing else starts
        device.release()
        assert await first == ["row:a"]
        await settle()
        assert device.batches[1] == [[f"b{i}", f"c{i}"] for i in range(5)]  # one batch of all five
        device.release()
        assert [await r for r in rest] == [[f"row:b{i}", f"row:c{i}"] for i in range(5)]

    asyncio.run(go())


def test_an_entry_larger_than_a_batch_is_split_and_its_rows_joined_in_order():
    async def go():
        device = Device(hold=False)
        queue = BatchQueue(device.run_batch, max_batch_size=4, max_latency_ms=60_000)
        rows = await queue.submit([str(i) for i in range(10)])
        assert rows == [f"row:{i}" for i in range(10)]
        assert [sum(len(e) for e in b) for b in device.batches] == [4, 4, 2]

    asyncio.run(go())


def test_a_caller_that_goes_away_takes_its_queued_sequences_out():
    async def go():
        device = Device()
        queue = BatchQueue(device.run_batch, max_batch_size=64, max_latency_ms=60_000)
        running = asyncio.ensure_future(queue.submit(["a"]))
        await settle()
        gone = asyncio.ensure_future(queue.submit(["gone"]))
        kept = asyncio.ensure_future(queue.submit(["kept"]))
        await settle()
        gone.cancel()
        await settle()
        device.release()
        await running
        await settle()
        device.release()
        assert await kept == ["row:kept"]
        assert device.batches == [[["a"]], [["kept"]]]

    asyncio.run(go())


def test_an_entry_that_would_wait_past_the_bound_is_refused_at_once_and_one_that_has_is_refused_at_its_turn():
    async def go():
        now = [0.0]
        device = Device()
        queue = BatchQueue(device.run_batch, max_batch_size=8, max_latency_ms=1_000, clock=lambda: now[0])
        first = asyncio.ensure_future(queue.submit(["a", "b"]))
        await settle()
        now[0] = 0.2  # 0.1 s a sequence
        device.release()
        await first
        blocking = asyncio.ensure_future(queue.submit(["x"] * 8))  # 0.8 s on the device
        await settle()
        waiting = asyncio.ensure_future(queue.submit(["y"]))  # 8 sequences ahead, 0.8 s: within the bound
        more = asyncio.ensure_future(queue.submit(["w", "w"]))  # 9 ahead: 0.9 s
        await settle()
        with pytest.raises(Overloaded):
            await queue.submit(["z"])  # 11 ahead: 1.1 s, refused before it queues
        now[0] = 2.0  # the device took far longer than measured: those queued waited past the bound meanwhile
        device.release()
        await blocking
        for call in (waiting, more):
            with pytest.raises(Overloaded):
                await call
        assert len(device.batches) == 2  # neither ran

    asyncio.run(go())


def test_closing_refuses_what_waits_and_what_runs():
    async def go():
        device = Device()
        queue = BatchQueue(device.run_batch, max_batch_size=64, max_latency_ms=60_000)
        running = asyncio.ensure_future(queue.submit(["a"]))
        await settle()
        waiting = asyncio.ensure_future(queue.submit(["b"]))
        await settle()
        queue.close()
        for call in (running, waiting):
            with pytest.raises(Overloaded):
                await call
        with pytest.raises(RuntimeError):
            await queue.submit(["c"])

    asyncio.run(go())


def test_a_whole_entry_reaches_the_batch_as_itself():
    """What the caller put on its entry (the batcher's queue span) reaches run_batch; a piece of a split one
    cannot carry it."""

    class Tagged(list):
        tag = "mine"

    async def go():
        device = Device(hold=False)
        queue = BatchQueue(device.run_batch, max_batch_size=64, max_latency_ms=60_000)
        seen = []

        async def run_batch(entries):
            seen.extend(getattr(e, "tag", None) for e in entries)
            return await device.run_batch(entries)

        queue._run_batch = run_batch
        await queue.submit(Tagged(["a", "b"]))
        assert seen == ["mine"]

    asyncio.run(go())


def test_a_batch_behind_another_counts_only_its_own_time():
    """Two batches in flight (the GPU default): the second waits on the device for the first, and that wait
    is the first's cost, not its own. Measured on its wall time, one sequence behind eight would cost 0.9 s
    and the next load be refused."""

    async def go():
        now = [0.0]
        device = Device()
        queue = BatchQueue(device.run_batch, max_batch_size=8, max_latency_ms=1_000, in_flight=2, clock=lambda: now[0])
        big = asyncio.ensure_future(queue.submit(["a"] * 8))
        small = asyncio.ensure_future(queue.submit(["b"]))
        await settle()
        assert len(device.batches) == 2  # both in flight
        now[0] = 0.8  # the device ran the eight: 0.1 s a sequence
        device.gates[0].set()
        await big
        now[0] = 0.9  # then the one: 0.1 s of its own, 0.9 s since it started
        device.gates[1].set()
        await small
        held = [asyncio.ensure_future(queue.submit(["c"] * 4)) for _ in range(2)]
        await settle()
        assert len(device.batches) == 4  # both slots busy again, 8 sequences running
        # 8 ahead at 0.1 s: 0.8 s, within the bound (at the wall-time measure, 0.26 s each: 2.1 s, refused)
        waiting = asyncio.ensure_future(queue.submit(["d"]))
        await settle()
        device.release()
        await asyncio.gather(*held)
        await settle()
        device.release()
        assert await waiting == ["row:d"]

    asyncio.run(go())
