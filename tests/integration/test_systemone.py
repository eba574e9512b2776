"""The System One API on a real `bentoml serve` (the session's default server: multilingual-e5-small, with the
aliases gpt-6-luna and jev-latest), driven by the real clients: typesafe-sdk (sync and async, base URL changed,
nothing else) and pydecide's System One backend. noul, choice and score in one request, answers under their
names and types, a JSON state, the models list both SDKs read, each error as the SDK's exception class (the
edge's 429: test_edge.py), and accuracy next to /classify on real data (THUCNews; CIC's upset and pleased
buyers for a noul; messages of rising urgency for a score)."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor

import httpx
import openai
import pytest
import typesafe_sdk as ts

from loadtest.workload import SHARED, cic_moods
from service.core.decisions import roc_auc
from tests.conftest import ALIAS, JEV
from tests.support.server import KEYS

TEXT = "I was charged twice for one order and I want my money back today"
QUESTIONS = {
    "billing": ts.Noul(instructions="The message is about a payment."),
    "team": ts.Choice(
        instructions="Which team should handle this message?",
        criteria={"billing": "payments, refunds and invoices", "shipping": "delivery and parcels", "praise": None},
    ),
    "urgency": ts.Score(instructions="How urgent?", criteria=["Can wait", "Needs attention this week", "Urgent"]),
}


@pytest.fixture(scope="module")
def client(default_server):
    with ts.TypeSafeClient(base_url=default_server, api_key="unused", retry=ts.RetryPolicy(max_retries=0)) as c:
        yield c


def test_noul_choice_and_score_in_one_request_by_name_and_type(client):
    out = client.system_one(state=TEXT, questions=QUESTIONS)  # the SDK's default model: jev-latest, an alias
    assert out.model.startswith("multilingual-e5-small:")
    assert set(out.answers) == set(QUESTIONS)
    billing, team, urgency = out.nouls["billing"], out.choices["team"], out.scores["urgency"]
    assert 0.5 < billing.noul <= 1
    assert team.choice == "billing" and list(team.probabilities) == ["billing", "shipping", "praise"]
    assert urgency.legend == {0: "Can wait", 1: "Needs attention this week", 2: "Urgent"}
    for probabilities in (team.probabilities.values(), urgency.probabilities.values()):
        assert all(0 <= p <= 1 for p in probabilities) and sum(probabilities) == pytest.approx(1.0)
    assert urgency.score == pytest.approx(sum(k * p for k, p in urgency.probabilities.items()))
    assert 0 <= team.confidence <= 1 and 0 <= urgency.confidence <= 1
    assert out.usage.input_tokens > 0 and out.usage.output_tokens == 0


def test_the_async_client_and_a_json_state(default_server, client):
    state = {"subject": "Duplicate charge", "message": TEXT}

    async def ask():
        async with ts.AsyncTypeSafeClient(base_url=default_server, api_key="unused") as aclient:
            return await aclient.system_one(state=state, questions=QUESTIONS, model="multilingual-e5-small")

    got, sync = asyncio.run(ask()), client.system_one(state=state, questions=QUESTIONS, model=ALIAS)
    assert got.choices["team"].choice == sync.choices["team"].choice == "billing"
    assert got.nouls["billing"].noul == pytest.approx(sync.nouls["billing"].noul)


def test_a_noul_reads_its_described_or_named_outcomes(client):
    questions = {
        "described": ts.Noul(criteria={"true": "The customer complains", "false": "The customer says thanks"}),
        "yes_only": ts.Noul(criteria={"true": "The customer was charged twice."}),
        "no_only": ts.Noul(criteria={"false": "The customer was charged twice."}),
    }
    out = client.system_one(state=TEXT, questions=questions, model="multilingual-e5-small").nouls
    assert out["described"].noul > 0.5 and out["yes_only"].noul > 0.5
    assert out["no_only"].noul == pytest.approx(1 - out["yes_only"].noul)


def test_models_are_listed_for_both_sdks(default_server, client):
    names = [m.name for m in client.models.list().models]
    assert names == ["multilingual-e5-small", ALIAS, JEV]
    assert all(len(m.release_date) == 10 and m.description for m in client.models.list().models)
    openai_client = openai.OpenAI(base_url=f"{default_server}/v1", api_key="unused")
    assert [m.id for m in openai_client.models.list()] == names


@pytest.mark.parametrize(
    "body, status, says",
    [
        ({"model": "jev-9"}, 404, "unknown model 'jev-9'"),
        ({"questions": {}}, 400, "1 to 400"),
        ({"questions": {"dog": {"type": "box", "instructions": "The dog"}}}, 400, "question 'dog' is a box question"),
        ({"questions": {"t": {"type": "choice", "criteria": {}}}}, 400, "questions.t.criteria: 0 options"),
        ({"questions": {"t": {"type": "score", "criteria": [" "]}}}, 400, "level 0 is empty"),
        ({"assets": {"a": {"type": "image", "data_base64": "AA", "format": "png"}}}, 400, "reads text only"),
        ({"state": "数，" * 4950}, 400, "state is too long"),
        ({"stream": True}, 400, "Extra inputs are not permitted"),
    ],
    ids=["unknown model", "no questions", "box", "no options", "empty level", "assets", "long state", "unknown field"],
)
def test_each_mistake_is_the_sdks_exception(client, body, status, says):
    valid = {"q": ts.Noul(instructions="The customer is upset.")}
    with pytest.raises(ts.TypeSafeAPIError) as info:  # extra_body replaces what the SDK would refuse itself
        client.system_one(state=TEXT, questions=valid, model=ALIAS, extra_body=body)
    expected = ts.TypeSafeNotFoundError if status == 404 else ts.TypeSafeBadRequestError
    assert type(info.value) is expected and info.value.status == status, info.value
    assert says in str(info.value) and info.value.request_id, str(info.value)


def test_a_wrong_key_is_the_sdks_authentication_error(keyed_server):
    url, _ = keyed_server
    question = {"q": ts.Noul(instructions="The customer is upset.")}
    with ts.TypeSafeClient(base_url=url, api_key="wrong", retry=ts.RetryPolicy(max_retries=0)) as client:
        with pytest.raises(ts.TypeSafeAuthenticationError):
            client.system_one(state=TEXT, questions=question, model=ALIAS)
    with ts.TypeSafeClient(base_url=url, api_key=KEYS[0]) as client:
        assert 0 <= client.system_one(state=TEXT, questions=question, model=ALIAS).nouls["q"].noul <= 1


def test_pydecide_s_system_one_backend(default_server):
    import decide
    from decide.backends.typesafe import TypeSafeBackend

    backend = TypeSafeBackend(api_key="unused", base_url=default_server)
    with_labels = decide.Noul("What is the sentiment?", labels={"true": "positive", "false": "negative"})
    request = decide.Request(
        state=TEXT,
        questions={
            "team": decide.Choice("Which team should handle this?", ["billing", "shipping"]),
            "anger": decide.Score("How upset is the customer?", ["calm", "annoyed", "angry"]),
            "double": decide.Noul("The customer was charged twice."),
            "sentiment": with_labels,
        },
    )
    out = decide.Client(backends=[backend]).decide(request.state, request.questions)
    assert out.choices["team"].choice == "billing" and out.nouls["double"].noul > 0.5
    assert out.nouls["sentiment"].noul < 0.5 and len(out.scores["anger"].probabilities) == 3
    assert out.meta.model.startswith("multilingual-e5-small:")


# -- accuracy on real data --------------------------------------------------------------------------------
needs_datasets = pytest.mark.skipif(not (SHARED / "thucnews_test.tsv").is_file(), reason="../shared/datasets missing")


def _thucnews(per_class: int) -> tuple[list[tuple[str, str]], list[str]]:
    names = (SHARED / "thucnews_classes.txt").read_text(encoding="utf-8").split()
    rows = [line.rsplit("\t", 1) for line in (SHARED / "thucnews_test.tsv").read_text(encoding="utf-8").splitlines()]
    by_class: dict[str, list[tuple[str, str]]] = {}
    for title, i in rows:
        by_class.setdefault(names[int(i)], []).append((title, names[int(i)]))
    rng = random.Random(7)
    return [row for c in names for row in rng.sample(by_class[c], per_class)], names


def _answers(client, texts, questions) -> list:
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda t: client.system_one(state=t, questions=questions, model=ALIAS), texts))


@needs_datasets
def test_a_choice_over_thucnews_is_as_accurate_as_classify(default_server, client):
    rows, names = _thucnews(per_class=20)
    texts, truth = [t for t, _ in rows], [c for _, c in rows]
    items = [{"text": t, "labels": names} for t in texts]
    classified = httpx.post(f"{default_server}/classify_batch", json={"items": items}, timeout=120).json()["results"]
    baseline = sum(r["labels"][0] == c for r, c in zip(classified, truth)) / len(rows)
    for instructions in (None, "这条新闻属于哪个类别？"):
        question = {"topic": ts.Choice(instructions=instructions, criteria=dict.fromkeys(names))}
        picked = [a.choices["topic"].choice for a in _answers(client, texts, question)]
        accuracy = sum(p == c for p, c in zip(picked, truth)) / len(rows)
        assert accuracy >= baseline - 0.01, (instructions, accuracy, baseline)


@needs_datasets
def test_a_noul_separates_pleased_from_upset_buyers(client):
    texts, truth = cic_moods()
    question = {"pleased": ts.Noul(instructions="买家很满意。")}
    nouls = [a.nouls["pleased"].noul for a in _answers(client, texts, question)]
    assert roc_auc(nouls, truth) >= 0.6


def test_a_score_rises_with_urgency(client):
    texts = [
        "No rush at all: whenever you have a moment next month, could you update my mailing address?",
        "Could you look into my refund sometime this week? It has been a few days.",
        "URGENT: my account was hacked and money is leaving it right now, block it immediately!",
    ]
    question = {"urgency": ts.Score(instructions="How urgent?", criteria=["Can wait", "This week", "Right now"])}
    scores = [a.scores["urgency"].score for a in _answers(client, texts, question)]
    assert scores == sorted(scores) and scores[-1] - scores[0] > 0.3, scores
