"""Models changed while serving (``runtime.models.ModelManager``), on built components (no server): a new
version replaces the old one under concurrent calls with none failing and the old one retired after them;
unloading; the memory check; the models file reconciled (loaded, replaced, unloaded, reordered); the admin
API's routes refusing a replica of several workers."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from service.api.classify import ClassifyRequest
from service.build import build
from service.engine.batch_queue import batch_queue
from service.errors import LastModel, ModelTooLarge, NotInStore
from service.runtime.models import read_models_file
from tests.support.calls import call
from tests.unit.conftest import MINILM

V1, V2 = replace(MINILM, tag="minilm:v1"), replace(MINILM, tag="minilm:v2")
OTHER = replace(MINILM, tag="other:v1")
STORE = {m.tag: m for m in (V1, V2, OTHER)}


def lookup(tag: str):
    """As the BentoML store answers: a full tag, or a name for its latest version."""
    found = STORE.get(tag) or next((m for t, m in reversed(STORE.items()) if t.split(":")[0] == tag), None)
    if found is None:
        raise NotInStore(tag)
    return found


def req(i: int) -> ClassifyRequest:
    return ClassifyRequest.model_validate({"text": f"parcel {i} is late", "labels": ["billing", "shipping"]})


def test_a_new_version_replaces_the_old_under_load_and_the_old_is_retired(settings_for):
    # 40 calls at once: past the learned limit's start on a fast machine (32 at least); admission is not what
    # this test is about
    c = build(settings_for(ZSC_TARGET_LATENCY_MS="-1"), [V1], batch_queue, find_stored=lookup)

    async def scenario():
        old = c.models.default
        calls = [asyncio.create_task(c.models.classify(call([req(i)]))) for i in range(40)]
        await asyncio.sleep(0.01)
        changed, replaced = await c.model_manager.serve("minilm:v2")
        assert changed and replaced == "minilm:v1"
        assert await c.model_manager.serve("minilm:v2") == (False, None)  # that very version: nothing to do
        replaced = old if replaced == old.tag else None
        calls += [asyncio.create_task(c.models.classify(call([req(100 + i)]))) for i in range(10)]
        answers = await asyncio.gather(*calls)
        return old, replaced, answers

    old, replaced, answers = asyncio.run(scenario())
    tags = [a.results[0].model for a in answers]
    assert replaced is old and old.components is None and old.pipeline.in_flight == 0  # retired after its calls
    assert set(tags[:40]) <= {"minilm:v1", "minilm:v2"} and set(tags[40:]) == {"minilm:v2"}
    assert [m.tag for m in c.models.served] == ["minilm:v2"]


def test_unload_and_the_last_model(settings_for):
    c = build(settings_for(), [V1, OTHER], batch_queue)

    async def scenario():
        model, freed = await c.model_manager.unload("minilm")
        with pytest.raises(LastModel, match="the only model"):
            await c.model_manager.unload("other")
        return model, freed

    model, freed = asyncio.run(scenario())
    assert model.tag == "minilm:v1" and freed >= 0 and [m.name for m in c.models.served] == ["other"]
    assert c.models.default.name == "other"  # the next in line


def test_a_model_that_would_not_fit_is_refused_before_loading(settings_for):
    c = build(settings_for(ZSC_MEMORY_LIMIT_MB="1"), [V1], batch_queue)
    with pytest.raises(ModelTooLarge, match=r"loading other:v1 needs about \d+ MB; this replica has -?\d+ MB left"):
        c.model_manager.load(OTHER)
    assert [m.tag for m in c.models.served] == ["minilm:v1"]


def test_the_models_file_is_reconciled(settings_for, tmp_path):
    c = build(settings_for(), [V1], batch_queue, find_stored=lookup)
    path = tmp_path / "models"
    path.write_text("# served models, the default first\nother:v1\nminilm:v2, no-such-model\n")
    assert read_models_file(path) == ["other:v1", "minilm:v2", "no-such-model"]

    async def scenario():
        await c.model_manager.reconcile(read_models_file(path))  # a model not in the store: skipped, not fatal
        first = [m.tag for m in c.models.served]
        await c.model_manager.reconcile(["minilm"])
        return first, [m.tag for m in c.models.served]

    first, then = asyncio.run(scenario())
    assert first == ["other:v1", "minilm:v2"] and then == ["minilm:v2"]


def test_the_admin_api_refuses_a_replica_of_several_workers(settings_for):
    """A call reaches one worker process: the others would keep their models, so it is refused (409)."""
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from service.errors import ManyWorkers
    from service.http.admin import routes
    from service.http.errors import STATUS

    settings = settings_for(ZSC_WORKERS="2")
    c = build(settings, [V1], batch_queue, find_stored=lookup)
    app = Starlette(routes=routes(c.model_manager, settings))
    with TestClient(app) as client:
        answer = client.post("/admin/models", json={"model": "minilm:v2"})
        gone = client.delete("/admin/models/minilm")
    assert (ManyWorkers, 409) in STATUS
    assert answer.status_code == 409 and gone.status_code == 409
    assert answer.json()["error_type"] == "many_workers" and "ZSC_MODELS_FILE" in answer.json()["error"]
    assert [m.tag for m in c.models.served] == ["minilm:v1"]
