"""Jobs' pure parts: parsing submissions, the in-process store, the worker's rules, results in order.
(The Redis store, the HTTP surface and replicas dying: tests/integration/test_jobs*.py.)"""

from __future__ import annotations

import asyncio
import json

import pytest

from service.errors import InvalidRequest, JobNotFound, UnprocessableRequest
from service.jobs import intake
from service.jobs.manager import JobManager
from service.jobs.records import CANCELLED, DONE, Chunk, JobInfo
from service.jobs.store import MemoryJobStore
from service.jobs.worker import JobWorker, WorkerConfig

LABELS = ["sports", "billing"]


# -- intake ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shared", "message"),
    [
        ({"multi_label": [["x"]]}, "the job's shared fields: multi_label: Input should be a valid boolean"),
        ({"hypothesis_template": "no place"}, "the job's shared fields: hypothesis_template: "),
        ({"threshold": 2}, "the job's shared fields: threshold: "),
        ({"labels": []}, "the job's shared fields: labels: "),
    ],
)
def test_a_shared_field_the_document_forbids_is_refused_even_when_every_item_overrides_it(shared, message):
    items = [{"text": "a", "labels": LABELS, "multi_label": False, "hypothesis_template": "About {}.",
              "threshold": 0.5}]  # fmt: skip
    with pytest.raises(InvalidRequest, match=f"^{message}"):
        intake.from_json({"items": items, **shared}, 100)
    assert len(intake.from_json({"items": items, "multi_label": True, "threshold": None}, 100)) == 1


def test_json_shapes_merge_shared_fields_under_each_item():
    items = intake.from_json(
        {"texts": ["a", "b"], "items": [{"text": "c", "labels": ["x", "y"]}, "d"], "labels": LABELS, "top_k": 1},
        100,
    )
    assert [i.text for i in items] == ["c", "d", "a", "b"]  # items first, then texts
    assert items[0].labels == ["x", "y"] and items[1].labels == LABELS  # an item's own fields win
    assert all(i.top_k == 1 for i in items)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([1, 2], "a job is a JSON object"),
        ({"texts": []}, "the job has no items"),
        ({"texts": ["a"], "labels": LABELS, "colour": "red"}, r"unknown field\(s\) \['colour'\]"),
        ({"texts": ["a", "b", "c"], "labels": LABELS}, "3 items; the limit is 2"),
        ({"texts": ["ok", ""], "labels": LABELS}, "item 2: text"),
        ({"items": [7], "labels": LABELS}, "item 1: a classify body"),
    ],
)
def test_bad_json_submissions_say_what_to_fix(body, message):
    with pytest.raises(InvalidRequest, match=message):
        intake.from_json(body, 2)


def test_items_that_break_a_rule_no_schema_states_are_422_naming_them():
    """Valid by the document, refused when resolved (the model registry's resolve, here a label-set-free
    one with the real check), before anything is queued: 422 naming each bad item."""
    from service.api.limits import in_force
    from service.pipeline.label_sets import Resolved
    from service.pipeline.prepare import check_call

    def resolve(request):
        resolved = Resolved(request, {}, [])
        check_call([resolved], in_force())
        return resolved

    requests = intake.from_json({"items": [{"text": "ok"}, {"text": "b", "labels": ["a", " a"]}], "labels": LABELS}, 9)
    with pytest.raises(UnprocessableRequest, match=r"^item 2: label 'a' appears twice: labels must be unique$"):
        intake.resolved(requests, resolve)
    assert [r.request.text for r in intake.resolved(requests[:1], resolve)] == ["ok"]


def test_files_jsonl_and_csv_with_options():
    lines = "\n".join([json.dumps("plain text"), json.dumps({"text": "own", "labels": ["p", "q"]}), "", '"last"'])
    items = intake.from_file(lines.encode(), "x.jsonl", "", {"labels": "sports,billing", "multi_label": "true"}, 10)
    assert [i.text for i in items] == ["plain text", "own", "last"]
    assert items[0].labels == ["sports", "billing"] and items[0].multi_label is True
    assert items[1].labels == ["p", "q"]
    csv_text = 'id,body\n1,first one\n2,"second, with a comma"\n'
    options = {"labels": json.dumps(LABELS), "text_column": "body"}
    rows = intake.from_file(csv_text.encode("utf-8-sig"), "t.csv", "", options, 10)
    assert [r.text for r in rows] == ["first one", "second, with a comma"] and rows[0].labels == LABELS


@pytest.mark.parametrize(
    ("data", "name", "options", "message"),
    [
        (b'"a"\n{oops\n', "x.jsonl", {"labels": "a,b"}, "line 2 is not JSON"),
        (b'"a"\n""\n', "x.jsonl", {"labels": "a,b"}, "line 2: text"),
        (b"text\nhello\n", "x.csv", {"labels": "a,b", "text_column": "body"}, "no column 'body'"),
        (b"\xff\xfe", "x.jsonl", {}, "not UTF-8"),
        (b'"a"\n', "x.xlsx", {"labels": "a,b"}, "upload a .jsonl"),
        (b'"a"\n', "x.jsonl", {"labels": "a,b", "colour": "red"}, "unknown option"),
        (b'"a"\n"b"\n"c"\n', "x.jsonl", {"labels": "a,b"}, "more than 2 items"),
    ],
)
def test_bad_files_say_what_to_fix(data, name, options, message):
    with pytest.raises(InvalidRequest, match=message):
        intake.from_file(data, name, "", options, 2)


# -- store, worker, manager -----------------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def answer_of(item: dict) -> dict:
    return {"labels": item["labels"], "scores": [1.0, 0.0], "text": item["text"]}


def make(
    items: int,
    chunk: int = 3,
    ttl: int = 60,
    run=None,
    share: float = 1.0,
    busy=lambda: None,
    sleeps=None,
    events=None,
    sharing=lambda: 1,
):
    clock = Clock()
    store = MemoryJobStore(clock)
    calls: list[list[str]] = []

    async def run_items(batch, calibration=None):
        calls.append([i["text"] for i in batch])
        return [answer_of(i) for i in batch] if run is None else await run(batch)

    async def fake_sleep(s):
        (sleeps if sleeps is not None else []).append(s)

    config = WorkerConfig(consumer="t", slice_items=2, share=share, max_attempts=2)
    observe = (lambda event, n: events.append((event, n))) if events is not None else (lambda event, n: None)
    worker = JobWorker(store, run_items, config, busy, observe, sharing, sleep=fake_sleep)
    manager = JobManager(store, worker, chunk, ttl)
    bodies = [{"text": f"t{i}", "labels": LABELS} for i in range(items)]
    return clock, store, worker, manager, bodies, calls


async def drain(store, worker) -> int:
    n = 0
    while (chunk := await store.take("t", 0.01)) is not None:
        await worker.process(chunk)
        n += 1
    return n


def test_a_job_runs_in_slices_and_reads_back_in_order():
    async def go():
        _, store, worker, manager, bodies, calls = make(7)
        job = await manager.submit(bodies)
        assert (job.chunks, job.state) == (3, "queued")
        assert await drain(store, worker) == 3
        job = await manager.get(job.id)
        assert (job.state, job.done, job.chunks_done, job.errors) == (DONE, 7, 3, 0)
        assert calls == [["t0", "t1"], ["t2"], ["t3", "t4"], ["t5"], ["t6"]]  # slices of 2 within chunks of 3
        page = await manager.results(job, 2, 4)
        assert [e["index"] for e in page] == [2, 3, 4, 5] and page[0]["text"] == "t2"
        streamed = [e async for e in manager.stream(job)]
        assert [e["index"] for e in streamed] == list(range(7)) and [e["text"] for e in streamed][-1] == "t6"
        assert await manager.results(job, 7, 10) == []

    asyncio.run(go())


def test_a_chunk_completed_twice_counts_once():
    async def go():
        _, store, worker, manager, bodies, _ = make(3)
        job = await manager.submit(bodies)
        chunk = await store.take("t", 0.01)
        twin = Chunk(chunk.job_id, chunk.index, chunk.items)  # the same chunk, claimed by a second worker
        assert await worker.process(chunk) is True
        assert await worker.process(twin) is False
        job = await manager.get(job.id)
        assert (job.done, job.chunks_done, job.state) == (3, 1, DONE)

    asyncio.run(go())


def test_cancel_stops_chunks_not_yet_started():
    async def go():
        _, store, worker, manager, bodies, calls = make(9)
        job = await manager.submit(bodies)
        await worker.process(await store.take("t", 0.01))
        cancelled = await manager.cancel(job.id)
        assert cancelled.state == CANCELLED and cancelled.finished is not None
        await drain(store, worker)
        job = await manager.get(job.id)
        assert (job.state, job.done, job.chunks_done) == (CANCELLED, 3, 1)
        assert sum(len(c) for c in calls) == 3  # nothing after the cancel reached the classifier
        assert [e["index"] for e in await manager.results(job, 0, 100)] == [0, 1, 2]  # what finished stays

    asyncio.run(go())


def test_delete_forgets_the_job_and_a_worker_mid_chunk_writes_nothing_back():
    holder: dict = {}

    async def deleting(batch):  # the job is deleted while its first slice is in the model
        if not holder.get("deleted"):
            holder["deleted"] = await holder["manager"].delete(holder["id"])
        return [answer_of(i) for i in batch]

    async def go():
        _, store, worker, manager, bodies, calls = make(9, run=deleting)
        job = await manager.submit(bodies)
        holder.update(manager=manager, id=job.id)
        assert await worker.process(await store.take("t", 0.01)) is False  # its results were dropped
        assert holder["deleted"].state == "running"  # what it was just before
        assert await drain(store, worker) == 2  # the other chunks are taken and skipped, not run
        assert len(calls) == 2  # the first chunk's two slices only
        for lookup in (manager.get, manager.cancel, manager.delete):
            with pytest.raises(JobNotFound):
                await lookup(job.id)
        assert (store._jobs, store._results, store._expires) == ({}, {}, {})

    asyncio.run(go())


def test_expired_jobs_are_gone():
    async def go():
        clock, store, worker, manager, bodies, _ = make(3, ttl=30)
        job = await manager.submit(bodies)
        await drain(store, worker)
        clock.now += 29
        assert (await manager.get(job.id)).state == DONE
        clock.now += 2
        with pytest.raises(Exception, match=f"no job '{job.id}': it was never submitted, or it expired"):
            await manager.get(job.id)

    asyncio.run(go())


def test_a_queued_job_outlives_its_ttl_which_runs_from_its_end():
    async def go():
        clock, store, worker, manager, bodies, _ = make(3, ttl=30)
        job = await manager.submit(bodies)
        clock.now += 3600  # a long queue: far past the TTL before any worker reaches the job
        assert (await manager.get(job.id)).state == "queued"
        await drain(store, worker)
        clock.now += 29
        assert (await manager.get(job.id)).state == DONE
        clock.now += 2
        with pytest.raises(JobNotFound):
            await manager.get(job.id)
        cancelled = await manager.submit(bodies)
        clock.now += 3600
        await manager.cancel(cancelled.id)
        clock.now += 29
        assert (await manager.get(cancelled.id)).state == "cancelled"
        clock.now += 2
        with pytest.raises(JobNotFound):
            await manager.get(cancelled.id)

    asyncio.run(go())


def test_failing_slices_are_retried_then_answered_with_errors():
    attempts = {"n": 0}

    async def flaky(batch):
        attempts["n"] += 1
        if batch[0]["text"] == "t0" and attempts["n"] == 1:
            raise RuntimeError("a transient failure")
        if batch[0]["text"] == "t2":
            raise RuntimeError("the model cannot")
        return [answer_of(i) for i in batch]

    async def go():
        _, store, worker, manager, bodies, _ = make(3, run=flaky)
        job = await manager.submit(bodies)
        await drain(store, worker)
        job = await manager.get(job.id)
        results = await manager.results(job, 0, 10)
        assert [("labels" in r, r.get("error_type")) for r in results] == [
            (True, None),
            (True, None),
            (False, "backend_error"),
        ]
        assert "the model cannot" in results[2]["error"] and (job.done, job.errors, job.state) == (3, 1, DONE)

    asyncio.run(go())


def test_a_chunk_handed_out_too_often_is_answered_unread():
    async def go():
        _, store, worker, manager, bodies, calls = make(2)
        job = await manager.submit(bodies)
        chunk = await store.take("t", 0.01)
        chunk.deliveries = 3  # max_attempts is 2: it killed two workers already
        await worker.process(chunk)
        assert calls == []
        results = await manager.results(await manager.get(job.id), 0, 10)
        assert {r["error_type"] for r in results} == {"job_item_failed"}

    asyncio.run(go())


def test_the_worker_yields_to_interactive_traffic_by_its_share():
    async def slow(batch):
        await asyncio.sleep(0.02)  # model time of one slice
        return [answer_of(i) for i in batch]

    async def go(where: str | None) -> tuple[list[float], list[tuple[str, int]]]:
        sleeps: list[float] = []
        events: list[tuple[str, int]] = []
        _, store, worker, manager, bodies, _ = make(
            4, run=slow, share=0.25, busy=lambda: where, sleeps=sleeps, events=events
        )
        await manager.submit(bodies)
        await drain(store, worker)
        return sleeps, [e for e in events if e[0].startswith("yielded")]

    assert asyncio.run(go(None)) == ([], [])  # no interactive traffic anywhere: flat out
    for where in ("replica", "cluster"):  # on this replica, or only on another one of the jobs Redis
        sleeps, yields = asyncio.run(go(where))
        assert len(sleeps) == 3  # one per slice: chunks of 3 and 1 items in slices of 2
        assert all(0.055 <= s < 0.5 for s in sleeps), sleeps  # 3x its own time: 25 % of the wall time
        assert yields == [(f"yielded_{where}", 1)] * 3


def test_job_workers_sharing_the_cluster_divide_its_share():
    """Three job workers at work in the cluster (cluster-wide yielding): each takes a third of the share,
    so together they take what one would (25 %: each sleeps 11x its own time, not 3x)."""

    async def slow(batch):
        await asyncio.sleep(0.02)
        return [answer_of(i) for i in batch]

    async def go():
        sleeps: list[float] = []
        _, store, worker, manager, bodies, _ = make(
            4, run=slow, share=0.25, busy=lambda: "cluster", sleeps=sleeps, sharing=lambda: 3
        )
        await manager.submit(bodies)
        await drain(store, worker)
        return sleeps

    sleeps = asyncio.run(go())
    assert len(sleeps) == 3 and all(0.215 <= s < 1.5 for s in sleeps), sleeps  # 11 x at least 0.02 s


def test_a_store_that_fails_for_a_while_loses_no_classified_chunk():
    """The jobs Redis restarting: begin, complete and ack fail a few times each, then answer; the chunk is
    classified once and stored once."""

    class Flaky(MemoryJobStore):
        def __init__(self) -> None:
            super().__init__()
            self.failures = {"begin": 2, "complete": 3, "ack": 1}

        def _fail(self, what: str) -> None:
            if self.failures[what] > 0:
                self.failures[what] -= 1
                raise ConnectionError(f"{what}: connection refused")

        async def begin(self, chunk):
            self._fail("begin")
            return await super().begin(chunk)

        async def complete(self, chunk, results, errors):
            self._fail("complete")
            return await super().complete(chunk, results, errors)

        async def ack(self, chunk):
            self._fail("ack")
            return await super().ack(chunk)

    async def go():
        store, waits, calls = Flaky(), [], []

        async def run_items(batch, calibration=None):
            calls.append(len(batch))
            return [answer_of(i) for i in batch]

        async def sleep(s):
            waits.append(s)

        worker = JobWorker(store, run_items, WorkerConfig(consumer="t", slice_items=2), sleep=sleep)
        manager = JobManager(store, worker, 3, 60)
        job = await manager.submit([{"text": f"t{i}", "labels": LABELS} for i in range(3)])
        assert await worker.process(await store.take("t", 0.01)) is True
        job = await manager.get(job.id)
        assert (job.state, job.done, job.chunks_done) == (DONE, 3, 1)
        assert calls == [2, 1] and store.failures == {"begin": 0, "complete": 0, "ack": 0}
        assert waits == [0.5, 1.0, 0.5, 1.0, 2.0, 0.5]  # growing waits per call, from 0.5 s again for the next

    asyncio.run(go())


def test_job_info_reports_progress_and_rate():
    info = JobInfo("j", "running", total=10, chunks=2, chunk_items=5, created=0.0, done=4, started=100.0)
    info.finished = 102.0
    view = info.as_dict("memory")
    assert view["progress"] == 0.4 and view["items_per_s"] == 2.0 and view["elapsed_s"] == 2.0
    assert list(info.chunk_range(1)) == [5, 6, 7, 8, 9]


def test_a_stopping_worker_hands_its_chunk_back():
    started = asyncio.Event()

    async def slow(batch):
        started.set()
        await asyncio.sleep(30)
        return [answer_of(i) for i in batch]

    async def go():
        _, store, worker, manager, bodies, _ = make(3, run=slow)
        job = await manager.submit(bodies)
        worker.start()
        await asyncio.wait_for(started.wait(), 5)
        await worker.stop()
        chunk = await store.take("t", 0.01)  # back in the queue, unfinished
        assert chunk is not None and chunk.index == 0 and (await manager.get(job.id)).done == 0

    asyncio.run(go())


def test_a_draining_worker_finishes_its_chunk_and_takes_no_other():
    """SIGTERM with time to drain: the chunk at work is finished and stored once; the next stays queued."""
    started, go_on = asyncio.Event(), asyncio.Event()

    async def gated(batch):
        started.set()
        await go_on.wait()
        return [answer_of(i) for i in batch]

    async def go():
        _, store, worker, manager, bodies, _ = make(6, run=gated)  # two chunks of 3
        job = await manager.submit(bodies)
        worker.start()
        await asyncio.wait_for(started.wait(), 5)
        stopping = asyncio.create_task(worker.stop(drain_s=5))
        await asyncio.sleep(0.05)
        assert not stopping.done(), "it waits for the chunk at work"
        go_on.set()
        await asyncio.wait_for(stopping, 5)
        info = await manager.get(job.id)
        assert (info.done, info.chunks_done) == (3, 1)
        chunk = await store.take("t", 0.01)  # the second chunk was never taken
        assert chunk is not None and chunk.index == 1 and not chunk.reclaimed

    asyncio.run(go())
