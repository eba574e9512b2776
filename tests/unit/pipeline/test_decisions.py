"""OpenAI's Decisions API below HTTP (``pipeline.decisions``) through built components: every question of a
request in one ``Pipeline.classify`` call, typed answers in question order, refusals in their place, the
tokens the model read (and those the cache answered), the replica's limits, models by alias."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import numpy as np
import pytest

from service.api.decisions.adapters import ask
from service.api.decisions.protocol import DecisionCreateRequest
from service.api.limits import RequestLimits
from service.build import build
from service.config import Settings
from service.core.decisions import PredicateProbabilityMap, predicate_probability
from service.engine.batch_queue import batch_queue
from service.errors import InvalidRequest, ModelNotFound
from service.http.errors import body_of, status_of
from service.pipeline.decisions import Decisions
from service.pipeline.pipeline import Pipeline
from tests.support.calls import call
from tests.unit.conftest import MINILM

TEXT = "My card was charged twice for one order and I want my money back"
QUESTIONS = [
    {
        "type": "choice",
        "name": "team",
        "instructions": "Which team should handle this message?",
        "choices": [{"value": "billing", "description": "payments and refunds"}, {"value": "shipping"}],
    },
    {"type": "predicate", "instructions": "The customer was charged twice."},
    {
        "type": "choice",
        "name": "urgent",
        "instructions": "Is it urgent?",
        "choices": [{"value": True}, {"value": False}],
    },
    {"type": "score", "name": "anger", "instructions": "How upset?", "levels": [{"label": "calm"}, {"label": "angry"}]},
    {"type": "predicate", "name": "photo", "instructions": [{"type": "input_image", "image_url": "https://x/y.png"}]},
]
COHORT = ("The weather is nice today.", "This is about cooking.", "The match ended in a draw.")


def limits(max_pairs: int, max_text_chars: int) -> RequestLimits:
    most = RequestLimits.from_settings(Settings())
    return replace(most, max_pairs_per_request=max_pairs, max_text_chars=max_text_chars)


def request(**fields) -> DecisionCreateRequest:
    body = {"model": "minilm", "input": TEXT, "questions": QUESTIONS, **fields}
    return DecisionCreateRequest.model_validate_json(json.dumps(body))


@pytest.fixture
def components(settings_for):
    return build(settings_for(ZSC_MODEL="minilm", ZSC_MODEL_ALIASES="gpt-6-luna=minilm"), [MINILM], batch_queue)


def test_every_question_is_answered_in_order_through_one_call(components, monkeypatch):
    calls = []
    classify = Pipeline.classify

    async def spy(self, call):
        calls.append(len(call.items))
        return await classify(self, call)

    monkeypatch.setattr(Pipeline, "classify", spy)
    decision, cache = asyncio.run(components.decisions.decide(request()))
    assert calls == [4], "four answered questions, one call (no calibration for this model: no cohort)"
    answers = decision.answers
    assert [a.type for a in answers] == ["choice", "predicate", "choice", "score", "refusal"]
    assert [a.name for a in answers] == ["team", None, "urgent", "anger", "photo"]
    team, charged, urgent, anger, _ = answers
    assert team.choice == "billing" and [p.value for p in team.probabilities] == ["billing", "shipping"]
    assert sum(p.probability for p in team.probabilities) == pytest.approx(1.0)
    assert 0 <= team.confidence <= 1 and 0 <= charged.probability <= 1
    assert [p.value for p in urgent.probabilities] == [True, False] and isinstance(urgent.choice, bool)
    assert urgent.probabilities[0].probability + urgent.probabilities[1].probability == pytest.approx(1.0)
    assert 0 <= anger.score <= 1 and [p.label for p in anger.probabilities] == ["calm", "angry"]
    assert decision.model == "minilm:test" and cache == "miss"
    wire = json.loads(decision.model_dump_json())
    assert wire["answers"][1]["name"] is None and wire["answers"][4] == {"type": "refusal", "name": "photo"}


def test_usage_is_the_tokens_the_model_read_and_a_repeat_comes_from_the_cache(components):
    decisions = components.decisions

    async def twice():
        return await decisions.decide(request()), await decisions.decide(request())

    (first, _), (again, cache) = asyncio.run(twice())
    served = components.models.default
    spec = served.spec
    plan = ask(request(), served.name, spec.kind)
    hypotheses = {h for c in plan.classifications for label in c.labels for h in label.hypotheses}
    strings = [spec.text_prefix + TEXT, *(spec.label_prefix + h for h in hypotheses)]  # each once
    want = sum(len(ids) for ids in served.pipeline.tokenizer.encode_texts(strings).ids)  # with special tokens
    assert first.usage.input_tokens == want == first.usage.total_tokens
    assert first.usage.input_tokens_details.cached_tokens == 0 and first.usage.output_tokens == 0
    assert first.usage.input_tokens_details.cache_write_tokens == want
    assert again.usage.input_tokens == want and again.usage.input_tokens_details.cached_tokens == want
    assert cache == "hit"


def test_a_t_norm_calibration_scores_the_cohort_once_per_request(components):
    served = components.models.default
    slope, intercept = 1.5, -2.0
    table = {served.spec.revision: {"slope": slope, "intercept": intercept, "on": "t-norm", "cohort": list(COHORT)}}
    decisions = Decisions(components.models, {}, limits(4096, 10000), table)
    plan = ask(request(), served.name, served.spec.kind, COHORT)
    cohort_classification = plan.classifications[4]
    assert plan.cohort_by == 4 and cohort_classification.multi_label and len(cohort_classification.labels) == 3

    async def both():
        return await decisions.decide(request()), await components.models.classify(call(plan.classifications))

    (decision, _), answers = asyncio.run(both())
    scores = [dict(zip(r.labels, r.scores)) for r in answers.results]
    cohort = [scores[4][str(i)] for i in range(3)]
    calibration = PredicateProbabilityMap(slope, intercept, "t-norm", COHORT)
    want = predicate_probability(served.spec, scores[1]["0"], calibration, cohort)
    assert decision.answers[1].probability == pytest.approx(want, abs=1e-6)
    assert decision.answers[1].probability != pytest.approx(scores[1]["0"], abs=1e-3)  # calibrated, not raw


def test_more_choices_than_classify_takes_but_no_more_work_than_the_replica_allows(components):
    many = [
        {"type": "choice", "instructions": "Which intent?", "choices": [{"value": f"intent {i}"} for i in range(118)]}
    ]
    small = Decisions(components.models, {}, limits(100, 10000), {})
    long = Decisions(components.models, {}, limits(4096, 20), {})

    async def scenario():
        decision, _ = await components.decisions.decide(request(questions=many))  # ZSC_MAX_LABELS is 64
        errors = []
        for decisions, body in ((small, request(questions=many)), (long, request())):
            try:
                await decisions.decide(body)
            except InvalidRequest as exc:
                errors.append(exc)
        return decision, errors

    decision, [error, too_long] = asyncio.run(scenario())
    assert len(decision.answers[0].probabilities) == 118
    assert error.param == "questions" and "ZSC_MAX_PAIRS_PER_REQUEST" in str(error)
    body = body_of(error, "/v1/decisions")["error"]
    assert status_of(error, "/v1/decisions") == 400 and body["param"] == "questions"
    assert body["type"] == "invalid_request_error" and body["code"] == "invalid_request"
    assert too_long.param == "input" and "ZSC_MAX_TEXT_CHARS" in str(too_long)


def test_a_long_input_is_read_to_its_end_in_windows(components):
    long = " ".join(["The parcel never arrived."] * 60) + " Also, I was charged twice."

    async def both():
        decide = components.decisions.decide
        first = await decide(request(input=long, questions=QUESTIONS[:1]))
        return first, await decide(request(input="The parcel never arrived.", questions=QUESTIONS[:1]))

    (decision, _), (short, _) = asyncio.run(both())
    assert decision.usage.input_tokens > 128  # more than one window of MiniLM's 128 tokens was read
    assert decision.answers[0].probabilities[0].probability > short.answers[0].probabilities[0].probability


def test_models_by_name_tag_or_alias(components):
    decisions = components.decisions
    assert decisions.model("gpt-6-luna") is decisions.model("minilm") is decisions.model("minilm:test")
    with pytest.raises(ModelNotFound, match=r"'gpt-5'.*minilm, gpt-6-luna \(GET /v1/models\)") as info:
        decisions.model("gpt-5")
    assert status_of(info.value, "/v1/decisions") == 404 and info.value.param == "model"
    listed = decisions.model_list().model_dump()
    assert listed["object"] == "list" and [m["id"] for m in listed["data"]] == ["minilm", "gpt-6-luna"]
    assert {m["object"] for m in listed["data"]} == {"model"} and all(
        isinstance(m["created"], int) for m in listed["data"]
    )
    assert decisions.model_object("gpt-6-luna").id == "gpt-6-luna"
    decision, _ = asyncio.run(decisions.decide(request(model="gpt-6-luna", questions=QUESTIONS[:1])))
    assert decision.model == "minilm:test"


def test_every_question_refused_reads_nothing(components):
    refused = [QUESTIONS[4], {"type": "predicate", "instructions": " "}]
    decision, _ = asyncio.run(components.decisions.decide(request(questions=refused)))
    assert [a.type for a in decision.answers] == ["refusal", "refusal"] and decision.usage.input_tokens == 0
    assert np.isfinite(decision.usage.total_tokens)


def test_an_input_over_the_windows_limit_is_told_so_in_the_apis_words(settings_for):
    """Only the windows' limit (known once tokenized) becomes "input is too long"; it names the input."""
    few = build(settings_for(ZSC_MODEL="minilm", ZSC_MAX_WINDOWS="2"), [MINILM], batch_queue)
    long = " ".join(["The parcel never arrived and nobody answers my emails."] * 80)
    with pytest.raises(InvalidRequest, match="input is too long for this request") as info:
        asyncio.run(few.decisions.decide(request(input=long, questions=QUESTIONS[:1])))
    assert info.value.param == "input" and "ZSC_MAX_WINDOWS" in str(info.value)
