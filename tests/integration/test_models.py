"""Several models in one replica (ZSC_MODELS): the English encoder as the default and the multilingual one
beside it, against replicas of each alone. A request's ``model`` picks one, a label set runs on the model
it was tuned on, a mixed batch and a job are answered in order by the right models, /models says what is
served, /metrics shows each model's own batches, a flood on one model sheds only its own requests."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import httpx
import pytest

from harness.metrics import histogram_count
from tests.support.jobs import results_jsonl, submit, wait

E5 = "multilingual-e5-small"
BODIES = [
    {"text": "The striker scored twice in the final", "labels": ["sports", "business", "technology"]},
    {"text": "My card was charged twice for one order", "labels": "billing, shipping, praise", "multi_label": True},
]


@pytest.fixture(scope="module")
def multi(multi_server):
    return multi_server


def post(url: str, body: dict, path: str = "classify") -> httpx.Response:
    return httpx.post(f"{url}/{path}", json=body, timeout=60)


def same_answer(got: dict, want: dict) -> None:
    assert got["labels"] == want["labels"] and got["model"] == want["model"] and got["revision"] == want["revision"]
    assert got["scores"] == pytest.approx(want["scores"], abs=1e-6)


def test_models_lists_what_is_served_the_default_first(multi, english_model):
    models = httpx.get(f"{multi}/models", timeout=30).json()["models"]
    assert [m["name"] for m in models] == [english_model, E5] and [m["default"] for m in models] == [True, False]
    english, e5 = models
    assert english["kind"] == e5["kind"] == "embedding" and english["languages"] == ["en"] and "zh" in e5["languages"]
    assert english["tag"].startswith(f"{english_model}:") and e5["max_length"] == 512 and e5["state"] == "ready"
    assert e5["memory_mb"] > english["memory_mb"] > 0  # the multilingual model's vocabulary is 8x larger


def test_each_model_answers_as_a_replica_of_it_alone(multi, english_server, default_server, english_model):
    for body in BODIES:
        same_answer(post(multi, body).json(), post(english_server, body).json())  # the default
        same_answer(post(multi, {**body, "model": english_model}).json(), post(english_server, body).json())
        same_answer(post(multi, {**body, "model": E5}).json(), post(default_server, body).json())
    tag = post(default_server, BODIES[0]).json()["model"]
    same_answer(post(multi, {**BODIES[0], "model": tag}).json(), post(default_server, BODIES[0]).json())  # a full tag


def test_a_mixed_batch_is_answered_in_order_and_each_model_batches_alone(multi, english_model):
    batches = {m: histogram_count(multi, "zsc_batch_requests", model=m) for m in (english_model, E5)}
    fresh = [f"{b['text']} (batch {i})" for i, b in enumerate(BODIES * 2)]  # texts the cache has not seen
    items = [{**BODIES[0], "text": fresh[0], "model": E5}, {**BODIES[1], "text": fresh[1]}]
    items.append({**BODIES[1], "text": fresh[3], "model": E5})
    results = post(multi, {"items": items}, "classify_batch").json()["results"]
    assert [r["model"].split(":")[0] for r in results] == [E5, english_model, E5]
    for m in (english_model, E5):
        assert histogram_count(multi, "zsc_batch_requests", model=m) > batches[m], m  # its own batcher
    hf = {"inputs": "The team won the cup", "parameters": {"candidate_labels": "sports, politics", "model": E5}}
    assert post(multi, hf, "hf/zero-shot-classification").json()["labels"][0] == "sports"


def test_a_label_set_runs_on_the_model_it_was_tuned_on(multi):
    answer = post(multi, {"text": "我的快递三天了还没到，什么时候发货？", "label_set": "support-intents"}).json()
    assert answer["model"].split(":")[0] == E5 and answer["warnings"] == []  # not the English default


def test_an_unknown_model_is_a_404_naming_the_served_ones(multi, english_model):
    r = post(multi, {**BODIES[0], "model": "no-such-model"})
    assert r.status_code == 404 and r.json()["error_type"] == "model_not_found"
    assert english_model in r.json()["error"] and E5 in r.json()["error"]
    r = httpx.post(f"{multi}/jobs", json={"texts": ["a"], "labels": ["x", "y"], "model": "no-such-model"}, timeout=30)
    assert r.status_code == 404 and r.json()["error_type"] == "model_not_found"


def test_a_job_runs_each_item_on_its_model(multi, english_model):
    items = [{"text": "The striker scored twice", "model": E5}, {"text": "Shares fell after the call"}]
    job = submit(multi, {"items": items, "labels": ["sports", "business"]})
    wait(multi, job["id"])
    got = results_jsonl(multi, job["id"])
    assert [g["model"].split(":")[0] for g in got] == [E5, english_model]
    assert [g["labels"][0] for g in got] == ["sports", "business"]


def test_auto_sends_each_text_of_a_batch_to_the_first_model_covering_its_script(multi, english_model):
    items = [
        {"text": "我的快递三天了还没到，什么时候发货？", "labels": ["物流", "退款"], "model": "auto"},
        {"text": "Where is my parcel? It has not arrived.", "labels": ["shipping", "refund"], "model": "auto"},
    ]
    results = post(multi, {"items": items}, "classify_batch").json()["results"]
    assert [r["model"].split(":")[0] for r in results] == [E5, english_model]  # Chinese: not MiniLM's
    assert [r["warnings"] for r in results] == [[], []] and results[0]["labels"][0] == "物流"


def test_a_flood_on_one_model_sheds_only_its_own_requests(multi, english_model):
    """Each model learns its own in-flight limit: 96 clients flooding the English model with heavy batches
    for a few seconds get 429s naming it (with Retry-After), while one client's requests to the other model
    in the same replica are all answered. (One limit for the replica would refuse those too: it sits at its
    limit under the flood.) Last in the module: the English model's limit is left low."""
    labels = [f"topic number {i}" for i in range(12)]
    seen = {"n": 0}

    def fresh(prefix: str) -> str:
        seen["n"] += 1
        return f"{prefix} {seen['n']} {time.time_ns()}"  # never cached

    async def scenario():
        statuses, refusals, other = Counter(), [], []
        start = time.monotonic()

        def flooding() -> bool:  # 5 s, and on a slow machine until the flood was shed and the other model
            elapsed = time.monotonic() - start  # answered 3 times (a limit learned over fewer windows), <= 30 s
            return elapsed < 5 or ((len(other) < 3 or not refusals) and elapsed < 30)

        limits = httpx.Limits(max_connections=128, max_keepalive_connections=128)
        async with httpx.AsyncClient(base_url=multi, timeout=60, limits=limits) as client:

            async def flood():
                while flooding():
                    items = [{"text": fresh("flood"), "labels": labels, "model": english_model} for _ in range(8)]
                    r = await client.post("/classify_batch", json={"items": items})
                    statuses[r.status_code] += 1
                    if r.status_code == 429:
                        refusals.append(r)

            async def steady():
                while flooding():
                    r = await client.post("/classify", json={**BODIES[0], "text": fresh("steady"), "model": E5})
                    other.append(r.status_code)
                    await asyncio.sleep(0.05)

            await asyncio.gather(*(flood() for _ in range(96)), steady())
        return statuses, refusals, other

    statuses, refusals, other = asyncio.run(scenario())
    assert set(statuses) <= {200, 429} and statuses[429] > 0 and statuses[200] > 0, statuses
    body = refusals[0].json()
    assert body["error_type"] == "overloaded" and body["error"].startswith(f"model '{english_model}' holds ")
    assert int(refusals[0].headers["retry-after"]) >= 1
    assert len(other) >= 3 and set(other) == {200}, Counter(other)
