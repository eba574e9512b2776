"""The adaptive batcher and its queue (engine/batch_queue.py) on an event loop, no server: merging,
splitting a request larger than a batch, load shedding, and failure of a whole batch (the batcher's own
wrapping: BackendFailure and zsc_engine_errors_total)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from prometheus_client import REGISTRY

from service.engine.batch_queue import batch_queue
from service.engine.batcher import AdaptiveBatcher
from service.errors import BackendFailure, Overloaded
from service.http.errors import status_of


class Model:
    """Stands in for the engine: one row per sequence (its text, upper-cased), with a fixed cost per call."""

    def __init__(self, seconds: float = 0.0, fail_when=lambda seqs: False) -> None:
        self.seconds, self.fail_when = seconds, fail_when
        self.calls: list[int] = []  # sequences per engine call
        self.batches: list[set[str]] = []  # the requests ("r<i>") of each engine call
        self.threads: set[str] = set()
        self.reference_calls: list[int] = []  # sequences per pass of the fp32 copy

    def prepare(self, seqs):
        return list(seqs)

    def run(self, seqs, reference=False):
        if reference:
            self.reference_calls.append(len(seqs))
            time.sleep(self.seconds)
            if self.fail_when(seqs):
                raise RuntimeError("the fp32 copy failed on this pass")
            return [text.lower() for text, _ in seqs], None
        return self.compute(seqs), None  # (rows, the batch's stats: none here)

    def compute(self, seqs):
        self.calls.append(len(seqs))
        self.batches.append({text.split("-")[0] for text, _ in seqs})
        self.threads.add(threading.current_thread().name)
        time.sleep(self.seconds)
        if self.fail_when(seqs):
            raise RuntimeError("the model failed on this batch")
        return [text.upper() for text, _ in seqs]


def job(i: int, n: int = 1) -> list[tuple[str, None]]:
    return [(f"r{i}-s{k}", None) for k in range(n)]


async def submit_all(batcher, jobs, stagger_s=0.0):
    async def one(j, delay):
        await asyncio.sleep(delay)
        return await batcher.submit(j)

    return await asyncio.gather(*(one(j, i * stagger_s) for i, j in enumerate(jobs)), return_exceptions=True)


def test_concurrent_requests_merge_and_each_gets_its_own_rows():
    model, batches = Model(seconds=0.03), []
    batcher = AdaptiveBatcher(
        model,
        batch_queue,
        max_batch_size=64,
        max_latency_ms=60_000,
        on_batch=lambda j, s: batches.append(j),
    )
    jobs = [job(i, 1 + i % 3) for i in range(40)]
    results = asyncio.run(submit_all(batcher, jobs))
    assert results == [[t.upper() for t, _ in j] for j in jobs]
    assert sum(model.calls) == sum(len(j) for j in jobs)
    assert max(batches) > 1, f"no batch merged requests: {batches}"
    assert len(batches) < len(jobs)
    assert not any(name == "MainThread" for name in model.threads), "the model must run off the event loop"


def test_a_job_larger_than_a_batch_is_split_and_reassembled_in_order():
    model = Model()
    batcher = AdaptiveBatcher(model, batch_queue, max_batch_size=8, max_latency_ms=60_000)
    big = job(0, 21)
    [rows] = asyncio.run(submit_all(batcher, [big]))
    assert rows == [t.upper() for t, _ in big]
    assert max(model.calls) <= 8 and sum(model.calls) == 21


def test_requests_predicted_to_wait_past_the_limit_are_shed():
    model = Model(seconds=0.25)
    batcher = AdaptiveBatcher(model, batch_queue, max_batch_size=2, max_latency_ms=100)
    results = asyncio.run(asyncio.wait_for(submit_all(batcher, [job(i) for i in range(12)]), timeout=30))
    shed = [r for r in results if isinstance(r, Overloaded)]
    answered = [r for r in results if isinstance(r, list)]
    assert shed and answered, results
    assert len(shed) + len(answered) == 12, "every request gets an answer or a 503, none hangs"
    assert status_of(shed[0]) == 503 and "ZSC_MAX_LATENCY_MS" in str(shed[0])


def test_a_failing_batch_fails_every_request_in_it_and_the_next_batch_runs():
    poisoned = "r105-s0"
    model = Model(seconds=0.05, fail_when=lambda seqs: any(t == poisoned for t, _ in seqs))
    batcher = AdaptiveBatcher(model, batch_queue, max_batch_size=64, max_latency_ms=60_000)

    async def scenario():
        for i in range(12):  # past the dispatcher's training, which sends requests one by one
            await batcher.submit(job(i))
        burst = await submit_all(batcher, [job(100 + i) for i in range(12)])
        after = await batcher.submit(job(99))
        return burst, after

    errors_before = REGISTRY.get_sample_value("zsc_engine_errors_total", {"model": "model"}) or 0
    burst, after = asyncio.run(scenario())
    errors = REGISTRY.get_sample_value("zsc_engine_errors_total", {"model": "model"})
    assert errors == errors_before + 1, "one failed batch, counted once"
    [shared] = [b for b in model.batches if "r105" in b]
    assert len(shared) > 1, "the poisoned request was merged with others"
    for i, result in enumerate(burst):
        if f"r{100 + i}" in shared:
            assert isinstance(result, BackendFailure) and "failed on this batch" in str(result)
        else:
            assert result == [f"R{100 + i}-S0"]
    assert after == ["R99-S0"], "the batcher keeps working after a failed batch"


@pytest.mark.parametrize("n", [1, 5])
def test_on_batch_counts_requests_and_sequences(n):
    seen = []
    batcher = AdaptiveBatcher(
        Model(),
        batch_queue,
        max_batch_size=64,
        max_latency_ms=60_000,
        on_batch=lambda j, s: seen.append(s),
    )
    asyncio.run(submit_all(batcher, [job(0, n)]))
    assert seen == [n]


def test_two_batches_in_flight_overlap_the_next_batch_s_preparation_with_the_current_run():
    events = []

    def prepare(seqs):
        events.append(("prepare", seqs[0][0].split("-")[0], time.monotonic()))
        return list(seqs)

    def run(seqs):
        events.append(("run-start", seqs[0][0].split("-")[0], time.monotonic()))
        time.sleep(0.3 if seqs[0][0].startswith("r100") else 0.0)
        events.append(("run-end", seqs[0][0].split("-")[0], time.monotonic()))
        return [t.upper() for t, _ in seqs], None

    class Stages:
        pass

    stages = Stages()
    stages.prepare, stages.run = prepare, run

    async def scenario(in_flight):
        events.clear()
        batcher = AdaptiveBatcher(stages, batch_queue, max_batch_size=64, max_latency_ms=60_000, in_flight=in_flight)
        for i in range(12):  # past the dispatcher's training
            await batcher.submit(job(i))
        events.clear()
        first = asyncio.ensure_future(batcher.submit(job(100)))
        await asyncio.sleep(0.05)
        second = await batcher.submit(job(200))
        return await first, second, list(events)

    first, second, seen = asyncio.run(scenario(2))
    assert (first, second) == (["R100-S0"], ["R200-S0"])
    at = {(kind, who): t for kind, who, t in seen}
    assert at[("prepare", "r200")] < at[("run-end", "r100")], "prepared while the first batch ran"
    assert at[("run-start", "r200")] >= at[("run-end", "r100")], "one run at a time"

    *_, seen = asyncio.run(scenario(1))
    at = {(kind, who): t for kind, who, t in seen}
    assert at[("prepare", "r200")] >= at[("run-end", "r100")], "one batch at a time from start to end"


def test_each_row_comes_back_with_its_token_count_as_its_last_value():
    import numpy as np

    from service.engine.batcher import with_tokens

    rows = np.array([[0.5, -1.0], [2.0, 3.0]], dtype=np.float32)
    out = with_tokens(rows, np.array([7, 512]))
    assert out.shape == (2, 3) and out[:, -1].tolist() == [7.0, 512.0] and np.array_equal(out[:, :-1], rows)
    assert with_tokens(rows, None) is rows  # stages that measure nothing: the rows as they are


def test_calls_to_the_fp32_copy_made_while_it_computes_are_merged_into_its_next_pass():
    model = Model(seconds=0.05)
    batcher = AdaptiveBatcher(model, batch_queue, max_batch_size=64, max_latency_ms=60_000)
    jobs = [[(f"R{i}-S{k}", None) for k in range(1 + i % 3)] for i in range(12)]

    async def scenario():
        return await asyncio.gather(*(batcher.submit_reference(j) for j in jobs))

    assert asyncio.run(scenario()) == [[t.lower() for t, _ in j] for j in jobs]
    assert sum(model.reference_calls) == sum(len(j) for j in jobs) and len(model.reference_calls) < len(jobs)
    assert model.calls == []  # nothing went through the batches


def test_a_failing_pass_of_the_fp32_copy_fails_its_calls_and_the_next_pass_runs():
    model = Model(seconds=0.02, fail_when=lambda seqs: any(t.startswith("BAD") for t, _ in seqs))
    batcher = AdaptiveBatcher(model, batch_queue, max_batch_size=64, max_latency_ms=60_000)

    async def scenario():
        bad = await asyncio.gather(batcher.submit_reference([("BAD-1", None)]), return_exceptions=True)
        good = await batcher.submit_reference([("OK-1", None)])
        return bad, good

    [failed], good = asyncio.run(scenario())
    assert isinstance(failed, BackendFailure) and good == ["ok-1"]
