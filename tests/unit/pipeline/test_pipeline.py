"""``Pipeline.classify``, the one seam, through built components: a call is one unit (a rule broken
anywhere fails it), a job slice is not (each item's error in its place, the rest answered); label sets
resolved once; the cache status and warnings of the whole call; interactive calls seen by the worker."""

from __future__ import annotations

import asyncio

import pytest

from service.api.classify import ClassifyRequest, ClassifyResponse
from service.build import build
from service.engine.batch_queue import batch_queue
from service.errors import LabelSetNotFound, UnprocessableRequest
from tests.support.calls import call
from tests.unit.conftest import MINILM

GOOD = {"text": "Where is my parcel?", "labels": ["billing", "shipping"]}
TWICE = {"text": "Where is my parcel?", "labels": ["a", " a"]}
UNKNOWN_SET = {"text": "Where is my parcel?", "label_set": "nope"}
LONG = {"text": "word " * 400, "labels": ["a", "b"], "truncation": "error"}


def req(body):
    return ClassifyRequest.model_validate(body)


def run(settings, scenario):
    components = build(settings, [MINILM], batch_queue)
    return asyncio.run(scenario(components.pipeline))


def test_a_call_is_one_unit(settings_for):
    async def scenario(pipeline):
        for bad, error in (
            (TWICE, UnprocessableRequest),
            (UNKNOWN_SET, LabelSetNotFound),
            (LONG, UnprocessableRequest),
        ):
            with pytest.raises(error):
                await pipeline.classify(call([req(GOOD), req(bad)]))
        return await pipeline.classify(call([req(GOOD), req(GOOD)]))

    answers = run(settings_for(), scenario)
    assert all(isinstance(r, ClassifyResponse) for r in answers.results) and answers.cache in ("miss", "partial")


def test_a_job_slice_answers_each_item_on_its_own(settings_for):
    async def scenario(pipeline):
        return await pipeline.classify(call([req(GOOD), req(TWICE), req(UNKNOWN_SET), req(LONG), req(GOOD)], job=True))

    answers = run(settings_for(), scenario)
    kinds = [r.error_type if isinstance(r, Exception) else "answer" for r in answers.results]
    # TWICE is answered: a job's rules are checked when it is submitted (jobs.intake), not when it runs;
    # what needs a label set or the tokenizer is each item's own error
    assert kinds == ["answer", "answer", "label_set_not_found", "unprocessable_request", "answer"]
    assert answers.results[0] == answers.results[4]


def test_pairs_are_counted_over_a_call_but_per_item_in_a_job(settings_for):
    body = {"text": "t", "labels": [f"l{i}" for i in range(6)]}

    async def scenario(pipeline):
        with pytest.raises(UnprocessableRequest, match="12 .*pairs in total; the limit is 10"):
            await pipeline.classify(call([req(body), req(body)]))
        return await pipeline.classify(call([req(body), req(body)], job=True))

    answers = run(settings_for(ZSC_MAX_PAIRS_PER_REQUEST="10"), scenario)
    assert all(isinstance(r, ClassifyResponse) for r in answers.results)


def test_cache_status_and_warnings_of_the_call(settings_for):
    async def scenario(pipeline):
        first = await pipeline.classify(call([req(GOOD)]))
        again = await pipeline.classify(call([req(GOOD)]))
        mixed = await pipeline.classify(call([req(GOOD), req({**GOOD, "text": "New text about a refund"})]))
        chinese = await pipeline.classify(call([req({"text": "我的快递三天了还没到", "label_set": "support"})]))
        return first, again, mixed, chinese

    first, again, mixed, chinese = run(settings_for(), scenario)
    assert (first.cache, again.cache, mixed.cache) == ("miss", "hit", "partial")
    assert chinese.warnings == ["label_set_model_mismatch", "language_mismatch"]
    [answer] = chinese.results
    assert answer.multi_label and set(answer.labels) == {"billing", "shipping"}  # the set's fields


def test_interactive_calls_are_what_the_worker_yields_to(settings_for):
    async def scenario(pipeline):
        assert not pipeline.interactive_busy()
        await pipeline.classify(call([req(GOOD)], job=True))
        during_job = pipeline.interactive_busy()
        await pipeline.classify(call([req(GOOD)]))
        return during_job, pipeline.interactive_busy()

    during_job, after_call = run(settings_for(), scenario)
    assert not during_job and after_call  # a moment after an interactive call, jobs still yield
