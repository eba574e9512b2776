"""``build(settings, model, queue)`` as a plain function: what it wires to what, what the settings change,
and a /classify-shaped call and a job through the components it returns, in one event loop, no server."""

from __future__ import annotations

import asyncio

import pytest

from service.api.classify import ClassifyRequest
from service.build import build
from service.engine.batch_queue import batch_queue
from service.jobs.items import to_store
from service.jobs.redis_store import RedisJobStore
from service.pipeline.pipeline import Pipeline
from tests.support.calls import call, classification
from tests.unit.conftest import MINILM

BODY = {"text": "My card was charged twice for one order", "labels": ["billing", "shipping", "praise"]}


def test_build_wires_one_path(settings_for):
    c = build(settings_for(), [MINILM], batch_queue)
    [served] = c.models.served
    engine, batcher, scorer = served.components.engine, served.components.batcher, served.components.scorer
    assert c.pipeline is served.pipeline and c.pipeline.scorer is scorer and scorer._submit == batcher.submit
    assert batcher._engine is engine and c.pipeline.tokenizer is engine.tokenizer and batcher.model == "minilm"
    assert c.pipeline.label_sets is c.label_sets and list(c.label_sets) == ["support"]
    assert c.pipeline.model_tag == "minilm:test" and served.spec.kind == "embedding" and served.name == "minilm"
    assert c.jobs.backend == "memory" and c.jobs.worker is not None
    assert c.activity is None and c.jobs.worker._busy() is None  # no Redis: the replica's own calls only
    assert scorer.redis is None and c.redis is None


def test_settings_choose_the_stores_and_the_worker(settings_for):
    c = build(settings_for(ZSC_REDIS_URL="redis://127.0.0.1:1/0", ZSC_JOB_WORKERS="0"), [MINILM], batch_queue)
    assert isinstance(c.jobs.store, RedisJobStore) and c.pipeline.scorer.redis is c.redis is not None  # unconnected
    assert c.jobs.store.url == c.redis.url  # one Redis for both, unless jobs have their own
    assert c.jobs.worker is None  # accepts and serves jobs, runs none
    assert c.activity is not None  # and publishes its interactive calls, for the replicas that run jobs


def test_jobs_get_their_own_redis_and_yield_to_the_cluster(settings_for):
    env = {"ZSC_REDIS_URL": "redis://127.0.0.1:1/0", "ZSC_JOBS_REDIS_URL": "redis://:pw@127.0.0.1:2/0"}
    c = build(settings_for(**env), [MINILM], batch_queue)
    assert c.redis.url == "redis://127.0.0.1:1/0" and c.jobs.store.url == "redis://:***@127.0.0.1:2/0"
    assert c.jobs.worker._busy == c.activity.busy  # the cluster-wide signal, in the jobs' Redis
    c = build(settings_for(ZSC_JOBS_REDIS_URL="redis://127.0.0.1:2/0"), [MINILM], batch_queue)
    assert c.redis is None and c.pipeline.scorer.redis is None and isinstance(c.jobs.store, RedisJobStore)
    c = build(
        settings_for(ZSC_JOBS_REDIS_URL="redis://127.0.0.1:2/0", ZSC_JOB_YIELD_SCOPE="replica"),
        [MINILM],
        batch_queue,
    )
    assert c.activity is not None and c.jobs.worker._busy != c.activity.busy and c.jobs.worker._busy() is None


def test_a_call_and_a_job_item_take_the_same_function_and_get_the_same_answer(settings_for, monkeypatch):
    calls = []
    classify = Pipeline.classify

    async def spy(self, call):
        calls.append(call.job)
        return await classify(self, call)

    monkeypatch.setattr(Pipeline, "classify", spy)
    c = build(settings_for(ZSC_JOB_CHUNK_ITEMS="2"), [MINILM], batch_queue)

    async def scenario():
        await c.start()
        try:
            direct = await c.pipeline.classify(call([ClassifyRequest.model_validate(BODY)]))
            item = to_store(c.models.resolve(classification(BODY)))
            job = await c.jobs.submit([item, item, item])
            for _ in range(200):
                if (await c.jobs.get(job.id)).state == "done":
                    break
                await asyncio.sleep(0.05)
            return direct, await c.jobs.results(await c.jobs.get(job.id), 0, 10)
        finally:
            await c.stop()

    direct, results = asyncio.run(scenario())
    want = direct.results[0].model_dump(mode="json")
    assert [{k: v for k, v in r.items() if k != "index"} for r in results] == [want] * 3
    assert calls[0] is False and set(calls[1:]) == {True} and len(calls) >= 3  # 3 items in chunks of 2


def test_a_bad_label_set_directory_stops_the_build(settings_for, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.yaml").write_text("name: x\nlabels: [a, a]\n")
    with pytest.raises(ValueError, match=r"label set file .*x\.yaml.*appears twice"):
        build(settings_for(ZSC_LABEL_SETS=str(bad)), [MINILM], batch_queue)
