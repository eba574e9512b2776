"""Several models in one replica (ModelRegistry), built by build() from the bundled English encoder under
two names: a request picks its model by name or tag, a label set runs on the model it was tuned on, a
mixed call is split by model and answered in order, each model's batches are its own, and a full model
sheds only its own calls."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from prometheus_client import REGISTRY

from service.admission.limit import AdaptiveLimit
from service.build import build
from service.engine.batch_queue import batch_queue
from service.errors import AtCapacity, ModelNotFound
from service.http.errors import error_response, status_of
from tests.support.calls import call, classification
from tests.unit.conftest import MINILM

FIRST = replace(MINILM, tag="first-model:v1")  # English (the bundled encoder's metadata)
SECOND = replace(MINILM, tag="second-model:v2", metadata={**MINILM.metadata, "languages": ["zh", "en"]})


def req(**body):
    return classification({"text": "Where is my parcel?", "labels": ["billing", "shipping"], **body})


@pytest.fixture
def two(settings_for, tmp_path):
    (tmp_path / "sets" / "tuned.yaml").write_text("name: tuned\nlabels: [billing, shipping]\nmodel: second-model\n")
    return build(settings_for(), [FIRST, SECOND], batch_queue)


def batches(model: str) -> float:
    return REGISTRY.get_sample_value("zsc_batch_requests_count", {"model": model}) or 0.0


def test_a_request_picks_its_model_and_the_default_is_the_first(two):
    models = two.models
    assert [m.name for m in models.served] == ["first-model", "second-model"] and models.default.name == "first-model"
    assert models.find(None) is models.default and models.find("second-model") is models.find("second-model:v2")
    with pytest.raises(
        ModelNotFound, match=r"unknown model 'nope'; this replica serves: first-model, second-model"
    ) as e:
        models.find("nope")
    assert status_of(e.value) == 404 and e.value.error_type == "model_not_found"
    assert [s["name"] for s in models.summaries()] == ["first-model", "second-model"]
    first = models.summaries()[0]
    assert first["default"] and first["tag"] == "first-model:v1" and first["kind"] == "embedding"
    assert first["state"] == "ready" and first["max_length"] == 128 and first["memory_mb"] >= 0


def test_a_label_set_runs_on_the_model_it_was_tuned_on_unless_the_request_says(two):
    models = two.models
    assert models.for_request(req(labels=None, label_set="tuned")).name == "second-model"
    assert models.for_request(req(labels=None, label_set="tuned", model="first-model")).name == "first-model"
    assert models.for_request(req(labels=None, label_set="support")).name == "first-model"  # its model: not here
    resolved = models.resolve(req(labels=None, label_set="tuned"))
    assert resolved.request.model == "second-model" and resolved.warnings == []  # a job stores its model


def test_a_mixed_call_is_split_by_model_and_answered_in_order(two):
    before = {m: batches(m) for m in ("first-model", "second-model")}
    bodies = [
        req(),
        req(model="second-model"),
        req(text="Refund my card", model="first-model:v1"),
        req(model="second-model"),
    ]

    async def scenario():
        return await two.models.classify(call(bodies))

    answers = asyncio.run(scenario())
    assert [a.model for a in answers.results] == [
        "first-model:v1",
        "second-model:v2",
        "first-model:v1",
        "second-model:v2",
    ]
    assert answers.results[1].scores == answers.results[3].scores == answers.results[0].scores  # the same weights
    assert batches("first-model") > before["first-model"] and batches("second-model") > before["second-model"]


def test_an_unknown_model_fails_a_call_but_only_its_item_in_a_job(two):
    async def scenario():
        with pytest.raises(ModelNotFound):
            await two.models.classify(call([req(), req(model="nope")]))
        return await two.models.classify(call([req(), req(model="nope")], job=True))

    answers = asyncio.run(scenario())
    assert answers.results[0].model == "first-model:v1" and answers.results[1].error_type == "model_not_found"


def test_auto_picks_per_text_the_first_model_covering_its_script(two):
    models = two.models
    assert models.for_request(req(model="auto")).name == "first-model"  # English: the first covers it
    assert models.for_request(req(text="我的快递三天了还没到", model="auto")).name == "second-model"
    assert models.for_request(req(text="Где моя посылка сейчас", model="auto")).name == "first-model"  # none: default

    async def scenario():
        return await models.classify(call([req(text="我的快递三天了还没到", model="auto"), req(model="auto")]))

    answers = asyncio.run(scenario())
    assert [a.model for a in answers.results] == ["second-model:v2", "first-model:v1"]
    assert models.resolve(req(text="我的快递三天了还没到", model="auto")).request.model == "second-model"


def test_with_several_models_a_full_model_sheds_only_its_own_calls(two):
    """Each model has its own learned limit: the first one full (its one slot held), a call to it is
    refused (429 with Retry-After, naming it), a call to the other is answered, a mixed call is refused and
    gives back the slot it took of the other, a job's items are not limited, and the held slot given back
    lets the first model answer again."""
    models = two.models
    limits = models.admission.limits
    limits["first-model"] = first = AdaptiveLimit(target_s=0.5, max_limit=1)
    second = limits["second-model"]
    assert second.target_s == 0.5  # built with the replica's target
    held = first.try_acquire()

    async def scenario():
        with pytest.raises(AtCapacity) as refused:
            await models.classify(call([req()]))
        other = await models.classify(call([req(model="second-model")]))
        with pytest.raises(AtCapacity):
            await models.classify(call([req(model="second-model"), req()]))
        job = await models.classify(call([req(), req(model="second-model")], job=True))
        first.abandon(held)
        again = await models.classify(call([req()]))
        return refused.value, other, job, again

    refused, other, job, again = asyncio.run(scenario())
    assert status_of(refused) == 429 and refused.error_type == "overloaded" and refused.retry_after_s >= 1
    assert str(refused).startswith("model 'first-model' holds 1 requests, as many as it answers within 500 ms")
    response = error_response(refused)
    assert response.status_code == 429 and response.headers["retry-after"] == str(refused.retry_after_s)
    assert other.results[0].model == "second-model:v2" and second.in_flight == 0
    assert [a.model for a in job.results] == ["first-model:v1", "second-model:v2"]
    assert again.results[0].model == "first-model:v1" and first.in_flight == 0


def test_with_one_model_the_slot_the_edge_took_is_not_taken_again(two):
    """One model served: the edge takes its slot before the body is parsed (``enter``); the registry's call
    holds no second one, and the slot is given back when the edge is done (``leave``). A model removed is
    a limit dropped; the replica-wide gauge follows the one model's limit."""
    models = two.models
    admission = models.admission
    models.remove("second-model")
    assert set(admission.limits) == {"first-model"}
    limit = admission.limits["first-model"]

    async def scenario():
        ticket = admission.enter()
        answers = await models.classify(call([req()]))
        during = limit.in_flight
        admission.leave(ticket)
        admission.leave(ticket)  # once per ticket
        return answers, during

    answers, during = asyncio.run(scenario())
    assert answers.results[0].model == "first-model:v1" and during == 1 and limit.in_flight == 0
    assert admission.edge_limit() == limit.current
    assert REGISTRY.get_sample_value("zsc_in_flight_limit", {"model": "*"}) is not None
