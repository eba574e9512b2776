"""OpenAI's Decisions API on a real `bentoml serve` (the session's default server: multilingual-e5-small, with
the alias gpt-6-luna), driven by the real clients: the openai SDK (sync, async, ``with_raw_response`` for
headers) and langchain-openai's ``OpenAIDecisions``. All three question types in one request, typed answers
in question order, named and unnamed questions, boolean and string choice values, a refusal, the tokens the
model read (the tokenizer's count) and those the cache answered, models by name and alias, and each error
as the SDK's exception class (the edge's 401 and 429: test_edge.py; 5xx: test_error_path.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import httpx
import openai
import pytest

from tests.conftest import ALIAS, JEV

TEXT = "My card was charged twice for one order and I want my money back today"
QUESTIONS = [
    {
        "type": "choice",
        "name": "team",
        "instructions": "Which team should handle this message?",
        "choices": [
            {"value": "billing", "description": "payments, refunds and invoices"},
            {"value": "shipping", "description": "delivery and parcels"},
            {"value": "praise"},
        ],
    },
    {"type": "predicate", "instructions": "The customer was charged twice."},
    {
        "type": "choice",
        "name": "urgent",
        "instructions": "The customer needs an answer today.",
        "choices": [{"value": True}, {"value": False}],
    },  # fmt: skip
    {"type": "choice", "name": "typed", "instructions": "Which one?", "choices": [{"value": "true"}, {"value": True}]},
    {
        "type": "score",
        "name": "anger",
        "instructions": "How upset is the customer?",
        "levels": [{"label": "calm"}, {"label": "annoyed"}, {"label": "angry"}],
    },  # fmt: skip
    {
        "type": "predicate",
        "name": "photo",
        "instructions": [{"type": "input_image", "image_url": "https://x.test/a.png"}],
    },
]


@pytest.fixture(scope="module")
def client(default_server):
    return openai.OpenAI(base_url=f"{default_server}/v1", api_key="unused", max_retries=0)


def test_all_three_question_types_in_one_request_in_question_order(client):
    decision = client.decisions.create(model=ALIAS, input=TEXT, questions=QUESTIONS)
    assert decision.model.startswith("multilingual-e5-small:")
    answers = decision.answers
    assert [a.type for a in answers] == ["choice", "predicate", "choice", "choice", "score", "refusal"]
    assert [a.name for a in answers] == ["team", None, "urgent", "typed", "anger", "photo"]
    team, charged, urgent, typed, anger, _ = answers
    assert team.choice == "billing" and [p.value for p in team.probabilities] == ["billing", "shipping", "praise"]
    assert sum(p.probability for p in team.probabilities) == pytest.approx(1.0) and 0 <= team.confidence <= 1
    assert charged.probability > 0.9  # calibrated: the statement holds
    assert urgent.choice is True or urgent.choice is False
    assert [p.value for p in urgent.probabilities] == [True, False]
    values = [p.value for p in typed.probabilities]
    assert values == ["true", True] and isinstance(values[0], str) and isinstance(values[1], bool)
    assert [(p.value, p.label) for p in anger.probabilities] == [(0, "calm"), (1, "annoyed"), (2, "angry")]
    assert anger.score == pytest.approx(sum(p.value * p.probability for p in anger.probabilities))
    assert 0 <= anger.confidence <= 1
    usage = decision.usage
    assert usage.input_tokens > 0 and usage.output_tokens == 0 and usage.total_tokens == usage.input_tokens
    assert all(type(v) is int for v in (usage.input_tokens, usage.input_tokens_details.cached_tokens))


def test_every_answer_carries_its_name_even_null(default_server):
    body = {"model": "multilingual-e5-small", "input": TEXT, "questions": QUESTIONS[1:2] + QUESTIONS[-1:]}
    raw = httpx.post(f"{default_server}/v1/decisions", json=body, timeout=60).json()
    assert [set(a) for a in raw["answers"]] == [{"type", "name", "probability"}, {"type", "name"}]
    assert raw["answers"][0]["name"] is None


def test_the_async_client_gets_the_same_answers(default_server, client):
    async def ask():
        async with openai.AsyncOpenAI(base_url=f"{default_server}/v1", api_key="unused") as aclient:
            return await aclient.decisions.create(model="multilingual-e5-small", input=TEXT, questions=QUESTIONS[:2])

    sync = client.decisions.create(model="multilingual-e5-small", input=TEXT, questions=QUESTIONS[:2])
    got = asyncio.run(ask())
    assert got.answers[0].choice == sync.answers[0].choice == "billing"
    assert got.answers[0].probabilities[0].probability == pytest.approx(sync.answers[0].probabilities[0].probability)
    assert got.answers[1].probability == pytest.approx(sync.answers[1].probability)


def stored_e5(store_env: dict[str, str]) -> tuple[str, dict]:
    """(path, metadata) of the served model in the session's store."""
    code = (
        "import json, bentoml; m = bentoml.models.get('multilingual-e5-small'); "
        "print(json.dumps([m.path, m.info.metadata]))"
    )
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **store_env}, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    path, metadata = json.loads(out.stdout.strip().splitlines()[-1])
    return path, metadata


def test_usage_is_the_tokenizers_count_and_a_repeat_is_cached(client, store_env):
    from transformers import AutoTokenizer

    text = "Where is the parcel I ordered three weeks ago? Tracking says nothing."
    levels = [{"label": "calm"}, {"label": "annoyed", "description": "unhappy but polite"}, {"label": "angry"}]
    question = {"type": "score", "instructions": "How upset?", "levels": levels}  # levels read without it
    raw = client.decisions.with_raw_response.create(model="multilingual-e5-small", input=text, questions=[question])
    first = raw.parse()
    assert raw.headers["x-request-id"] and raw.headers["x-cache"] in ("miss", "partial")
    path, metadata = stored_e5(store_env)
    tokenizer = AutoTokenizer.from_pretrained(path)
    query, passage = metadata["text_prefix"], metadata["label_prefix"]
    read = [query + text, *(passage + s for s in ("calm", "annoyed", "unhappy but polite", "angry"))]
    counted = sum(len(ids) for ids in tokenizer(read, truncation=True, max_length=512)["input_ids"])
    assert first.usage.input_tokens == counted
    again = client.decisions.with_raw_response.create(model="multilingual-e5-small", input=text, questions=[question])
    assert again.headers["x-cache"] == "hit"
    usage = again.parse().usage
    assert usage.input_tokens == counted and usage.input_tokens_details.cached_tokens == counted > 0


def test_models_are_listed_and_retrieved_as_openai_lists_them(client):
    ids = [m.id for m in client.models.list()]
    assert ids == ["multilingual-e5-small", ALIAS, JEV]
    model = client.models.retrieve(ALIAS)
    assert model.id == ALIAS and model.object == "model" and model.created > 1_700_000_000
    with pytest.raises(openai.NotFoundError) as info:
        client.models.retrieve("gpt-5")
    assert info.value.code == "model_not_found"


@pytest.mark.parametrize(
    "change, param, says",
    [
        ({"model": "gpt-5"}, "model", "unknown model 'gpt-5'"),
        ({"questions": []}, "questions", "1 to 400"),
        ({"questions": [{**QUESTIONS[0], "choices": [{"value": "only"}]}]}, "questions[0].choices", "2 to 255"),
        (
            {"questions": [{**QUESTIONS[0], "choices": [{"value": "a"}, {"value": "a", "description": "x"}]}]},
            "questions[0].choices",
            "appears twice",
        ),  # fmt: skip
        (
            {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "https://x.test/a.png"}]}]},
            "input",
            "reads text only",
        ),  # fmt: skip
        ({"input": [{"type": "function_call_output", "call_id": "c1", "output": "done"}]}, "input", "no earlier call"),
        ({"input": "数，" * 4950}, "input", "input is too long"),  # 9,900 characters, as many tokens: 20 windows
        (
            {
                "questions": [
                    {
                        "type": "choice",
                        "instructions": "Which?",
                        "choices": [{"value": f"intent {i}"} for i in range(255)],
                    }
                ]
                * 17
            },
            "questions",
            "ZSC_MAX_PAIRS_PER_REQUEST",
        ),  # fmt: skip
        ({"stream": True}, "stream", "Extra inputs are not permitted"),
    ],
    ids=[
        "unknown model",
        "no questions",
        "one choice",
        "twice",
        "image",
        "orphan output",
        "long input",
        "pairs",
        "unknown field",
    ],
)
def test_each_mistake_is_the_sdks_exception_with_the_field_named(client, change, param, says):
    body = {"model": ALIAS, "input": TEXT, "questions": QUESTIONS[:1], **change}
    extra = {"stream": body.pop("stream")} if "stream" in body else None
    with pytest.raises(openai.APIStatusError) as info:
        client.decisions.create(**body, extra_body=extra)
    error = info.value
    expected = openai.NotFoundError if param == "model" else openai.BadRequestError  # never a 422
    assert type(error) is expected, (type(error), error)
    assert error.param == param and says in error.message, error.message
    assert error.type == "invalid_request_error" and error.request_id


def test_langchain_openai_decisions(default_server):
    from langchain_core.messages import HumanMessage
    from langchain_openai.decisions import Choice, Level, OpenAIDecisions, Predicate, Score

    decisions = OpenAIDecisions(model=ALIAS, api_key="unused", base_url=f"{default_server}/v1")
    questions = {
        "team": Choice(instructions="Which team?", choices={"billing": "payments", "shipping": None}),
        "urgent": Choice(instructions="It is urgent.", choices={True: None, False: None}),
        "double": Predicate(instructions="The customer was charged twice."),
        "anger": Score(instructions="How upset?", levels=["calm", Level(label="angry", description="furious")]),
    }
    out = decisions.invoke({"input": [HumanMessage(TEXT)], "questions": questions})
    assert out.answers["team"].choice == "billing" and set(out.answers["urgent"].probabilities) == {True, False}
    assert out.answers["double"].probability > 0.9 and out.answers["anger"].legend == {0: "calm", 1: "angry"}
    assert out.usage.input_tokens > 0 and out.request_id
