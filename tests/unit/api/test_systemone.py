"""The System One API's request and answer models against typesafe-sdk 0.7.5 (the bodies below are what its
own request builder puts on the wire; the answers are parsed by its own response types), what the model
reads of each question, and the answers built back from scores."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from pydantic import ValidationError
from typesafe_sdk import Choice, Noul, Score
from typesafe_sdk._core.config import Config
from typesafe_sdk._core.endpoints import prepare_system_one
from typesafe_sdk._core.response_types import ListModelsResponse
from typesafe_sdk._core.response_types import SystemOneResponse as SdkResponse

from service.api.classify import ClassifyResponse
from service.api.decisions.protocol import ModelObject
from service.api.limits import RequestLimits
from service.api.questions import Asked
from service.api.systemone.adapters import answers_of, ask, asked, content_text, negated, text_problem
from service.api.systemone.protocol import (
    ModelDirectory,
    ModelMetadata,
    SystemOneRequest,
    SystemOneResponse,
    SystemOneUsage,
)
from service.config import Settings
from service.core.decisions import Reading
from service.core.model_spec import ModelSpec
from service.http.decisions_errors import param_path

STATE = {"subject": "Duplicate charge", "message": "I was charged twice. 请退款"}
QUESTIONS = {
    "billing": Noul(instructions="Is this about billing?"),
    "spam": Noul(criteria={"true": "Unsolicited advertising", "false": "A real conversation"}),
    "tone": Choice(instructions="What is the tone?", criteria={"calm": None, "angry": {"means": "upset"}}),
    "urgency": Score(instructions="How urgent?", criteria=["Can wait", "Today"]),
}


DEEP: list = [1]
for _ in range(33):
    DEEP = [DEEP]


def sdk_body(state=STATE, questions=QUESTIONS) -> bytes:
    """The body typesafe-sdk sends for ``client.system_one(state=..., questions=...)``."""
    config = Config.resolve("key", "http://x", None, None, None, False)
    request, _ = prepare_system_one(config, state, questions, None, None, None, None, SdkResponse)
    return request.content


def test_what_the_sdk_sends_is_accepted_and_read_in_order():
    request = SystemOneRequest.model_validate_json(sdk_body())
    assert request.model == "jev-latest" and list(request.questions) == list(QUESTIONS)
    assert content_text(request.state) == '{"subject": "Duplicate charge", "message": "I was charged twice. 请退款"}'
    read = [asked(q) for q in request.questions.values()]
    assert read == [
        Asked("predicate", "Is this about billing?"),
        Asked("choice", "", (("Unsolicited advertising",), ("A real conversation",))),
        Asked("choice", "What is the tone?", (("calm",), ("angry", '{"means": "upset"}'))),
        Asked("score", "How urgent?", (("Can wait",), ("Today",))),
    ]


def test_a_noul_reads_what_it_describes():
    one = {"yes": Noul(criteria={"true": "It is spam"}), "no": Noul(criteria={"false": "It is spam"})}
    request = SystemOneRequest.model_validate_json(sdk_body(questions=one))
    assert [asked(q) for q in request.questions.values()] == [Asked("predicate", "It is spam")] * 2
    assert [negated(q) for q in request.questions.values()] == [False, True]
    named = {"type": "noul", "instructions": "Sentiment?", "labels": {"true": "positive", "false": "negative"}}
    pydecide = SystemOneRequest.model_validate({"model": "m", "state": "x", "questions": {"s": named}})
    assert asked(pydecide.questions["s"]) == Asked("choice", "Sentiment?", (("positive",), ("negative",)))


@pytest.mark.parametrize(
    "change, says",
    [
        ({"questions": {"d": {"type": "box", "instructions": "dog"}}}, "question 'd' is a box question"),
        ({"assets": {"a": {"type": "image"}}}, "reads text only"),
        ({"questions": {}}, "0 questions"),
        ({"questions": {"s": {"type": "score", "criteria": [" "]}}}, "level 0 is empty"),
        ({"state": " "}, "state is empty"),
        ({"model": ""}, "model is empty"),
        ({"state": {"a": DEEP}}, "levels deep"),
    ],
)
def test_what_cannot_be_read_is_refused_in_the_apis_words(change, says):
    body = {**json.loads(sdk_body()), **change}
    with pytest.raises(ValidationError, match=says):
        SystemOneRequest.model_validate(body)


def test_a_question_with_nothing_to_read_is_left_out():
    questions = {
        "empty": {"type": "noul", "instructions": " "},
        "unnamed": {"type": "choice", "criteria": {"": None, "b": None}},
        "": {"type": "noul", "instructions": "A name may be empty."},
    }
    request = SystemOneRequest.model_validate({"model": "m", "state": "x", "questions": questions})
    assert [asked(q).refusal is not None for q in request.questions.values()] == [True, True, False]
    plan = ask(request, "m", "embedding")
    assert plan.answered_by == [None, None, 0]
    spec = ModelSpec(kind="embedding", default_template="{}", max_length=512, source="test", revision="r")
    answers = answers_of(request, plan, [ClassifyResponse.model_construct(labels=["0"], scores=[0.9])], spec)
    assert list(answers) == [""]


def test_error_paths_name_the_question():
    assert param_path(["questions", "tone", "choice", "criteria"]) == "questions.tone.criteria"
    assert param_path(["questions", "choice", "noul", "instructions"]) == "questions.choice.instructions"
    assert param_path(["questions", 0, "choice", "choices"]) == "questions[0].choices"


def test_the_replicas_limits_name_the_field():
    request = SystemOneRequest.model_validate_json(sdk_body(state="x" * 20))
    limits = replace(RequestLimits.from_settings(Settings()), max_text_chars=10)
    assert text_problem(request, limits)[0] == "state"
    request = SystemOneRequest.model_validate_json(sdk_body(state="short"))
    assert text_problem(request, limits) == ("questions.billing.instructions", text_problem(request, limits)[1])


def test_the_answers_are_what_the_sdk_parses():
    request = SystemOneRequest.model_validate_json(sdk_body(state="I was charged twice"))
    plan = ask(request, "m", "embedding")
    assert plan.answered_by == [0, 1, 2, 3] and plan.cohort_by is None
    spec = ModelSpec(kind="embedding", default_template="{}", max_length=512, source="test", revision="r")

    def result(scores):
        return ClassifyResponse.model_construct(labels=[str(i) for i in range(len(scores))], scores=scores)

    results = [result([0.8]), result([0.3, 0.7]), result([0.6, 0.4]), result([0.25, 0.75])]
    answers = answers_of(request, plan, results, spec, Reading())
    body = SystemOneResponse(model="m:1", answers=answers, usage=SystemOneUsage(input_tokens=12)).model_dump_json()
    parsed = SdkResponse.model_validate_json(body)
    assert parsed.nouls["billing"].noul == pytest.approx(0.8) and parsed.nouls["spam"].noul == pytest.approx(0.3)
    assert parsed.choices["tone"].choice == "calm" and list(parsed.choices["tone"].probabilities) == ["calm", "angry"]
    assert parsed.scores["urgency"].legend == {0: "Can wait", 1: "Today"}
    assert parsed.scores["urgency"].score == pytest.approx(0.75) and parsed.usage.input_tokens == 12


def test_the_models_list_is_read_by_both_sdks():
    from openai.pagination import SyncPage
    from openai.types import Model

    listed = ModelDirectory(
        data=[ModelObject(id="e5", created=1_760_000_000, owned_by="zero-shot-classifier")],
        models=[ModelMetadata(name="e5", description="e5:abc", release_date="2025-10-09")],
    ).model_dump_json()
    assert [m.name for m in ListModelsResponse.model_validate_json(listed).models] == ["e5"]
    page = SyncPage[Model].model_validate_json(listed)
    assert [m.id for m in page.data] == ["e5"]
