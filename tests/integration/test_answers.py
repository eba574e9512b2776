"""Answers people can act on, over HTTP: label objects (descriptions, hypotheses, several phrasings) pinned
to an independent computation with the models themselves, long texts (cut, refused, chunked), decisions,
the language warning, Hugging Face's client, and the limits with chunking."""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest
import torch

from harness.metrics import counter
from tests.support.reference import expected_embedding, expected_nli
from tests.support.server import bento_server, run_cli

LABELS = [
    "shipping",
    {"name": "billing", "description": "payments, refunds and invoices"},
    {"name": "praise", "description": ["a compliment", "a happy customer", "thanks"]},
    {"name": "question", "hypothesis": "The customer asks something."},
    {"name": "money", "hypothesis": ["It is about money.", "It is about a charge on a card."]},
]
TEXT = "my card was charged twice for one order, please refund me"
TEMPLATE = "The message is about {}."


def hypotheses(labels=LABELS, template=TEMPLATE):
    out = []
    for label in labels:
        if isinstance(label, str):
            out.append([template.format(label)])
        elif "hypothesis" in label:
            h = label["hypothesis"]
            out.append([h] if isinstance(h, str) else h)
        else:
            d = label["description"]
            out.append([template.format(x) for x in ([d] if isinstance(d, str) else d)])
    return out


def names(labels=LABELS):
    return [x if isinstance(x, str) else x["name"] for x in labels]


def post(url, body, endpoint="classify"):
    r = httpx.post(f"{url}/{endpoint}", json=body, timeout=120)
    assert r.status_code == 200, r.text
    return r


def by_name(answer):
    return dict(zip(answer["labels"], answer["scores"]))


# -- label objects, pinned to the models -----------------------------------------------------------------
@pytest.mark.parametrize("multi_label", [False, True])
def test_label_objects_on_the_tiny_nli_model(nli_servers, tiny_checkpoints, multi_label):
    """transformers' model and tokenizer, called directly on every (text, hypothesis) pair, then the maths
    written out in tests/support/reference.py: the service must give the same scores."""
    path, model = tiny_checkpoints["hf"]
    tok = tiny_checkpoints["tokenizer"]
    hyps = hypotheses()
    pairs = [(TEXT, h) for group in hyps for h in group]
    with torch.inference_mode():
        enc = tok(
            [p for p, _ in pairs], [h for _, h in pairs], truncation="only_first", padding=True, return_tensors="pt"
        )
        rows = model(**enc).logits.numpy().tolist()
    want = expected_nli(rows, 1, [len(g) for g in hyps], multi_label, "max")
    body = {"text": TEXT, "labels": LABELS, "hypothesis_template": TEMPLATE, "multi_label": multi_label}
    got = by_name(post(nli_servers["hf"], body).json())
    np.testing.assert_allclose([got[n] for n in names()], want, atol=1e-5)


def stored_path(store_env, prefix):
    models = [json.loads(line) for line in run_cli(["list-models", "--json"], store_env).stdout.splitlines()]
    return next(m for m in models if m["tag"].startswith(prefix))


def e5_embed(path, texts):
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path, dtype=torch.float32).eval()
    with torch.inference_mode():
        enc = tok(texts, padding=True, truncation=True, max_length=512, return_tensors="pt")
        hidden = model(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).float()
        pooled = (hidden * mask).sum(1) / mask.sum(1)
        return torch.nn.functional.normalize(pooled, dim=1).numpy()


@pytest.fixture(scope="module")
def fp32_server(store_env, tmp_path_factory):
    """The default model on ONNX Runtime fp32: the maths by hand is fp32's, and ``auto`` may choose a reduced
    precision on this CPU (bf16 answers agree with fp32 to the gate's bar, ~0.01 here, not to 2e-3)."""
    log = tmp_path_factory.mktemp("fp32") / "fp32.log"
    with bento_server({**store_env, "ZSC_RUNTIME": "onnx", "ZSC_PRECISION": "fp32"}, log) as url:
        yield url


@pytest.mark.parametrize("multi_label", [False, True])
def test_label_objects_on_the_default_embedding_model(fp32_server, store_env, multi_label):
    """The e5 checkpoint in transformers, its prefixes, mean pooling, the prompt ensemble written out."""
    meta = stored_path(store_env, "multilingual-e5-small:")
    hyps = hypotheses()
    texts = [meta["text_prefix"] + TEXT] + [meta["label_prefix"] + h for g in hyps for h in g]
    rows = e5_embed(meta["path"], texts).tolist()
    want = expected_embedding(
        rows, 1, [len(g) for g in hyps], meta["logit_scale"], meta["multi_label_bias"], multi_label, "max"
    )
    body = {"text": TEXT, "labels": LABELS, "hypothesis_template": TEMPLATE, "multi_label": multi_label}
    got = by_name(post(fp32_server, body).json())
    # the service runs the ONNX graph (fp16-stored embedding table): cosines agree to ~1e-6, x scale 125
    np.testing.assert_allclose([got[n] for n in names()], want, atol=2e-3)


def test_a_phrasing_shared_by_two_requests_is_computed_once(default_server):
    from harness.metrics import counter

    label = {"name": "delivery", "description": ["late parcels", "a tracking number that does not move"]}
    post(default_server, {"text": "where is my parcel 4711", "labels": [label, "refund"]})
    before = counter(default_server, "zsc_sequences_total")
    other = {"name": "logistics", "description": ["late parcels", "couriers"]}
    post(default_server, {"text": "where is my parcel 4711", "labels": [other]})
    assert counter(default_server, "zsc_sequences_total") - before == 1, "only 'couriers' is new"


# -- decisions ---------------------------------------------------------------------------------------------
def test_decisions_and_top_k(default_server):
    body = {"text": "The striker scored twice in the cup final", "labels": ["sports", "business", "technology"]}
    plain = post(default_server, body).json()
    assert plain["predicted"] == "sports" == plain["labels"][0] and plain["windows"] == 1 and not plain["truncated"]
    assert post(default_server, {**body, "threshold": 0.999999}).json()["predicted"] is None
    top = post(default_server, {**body, "top_k": 2}).json()
    assert top["labels"] == plain["labels"][:2] and top["scores"] == pytest.approx(plain["scores"][:2])
    multi = post(default_server, {**body, "multi_label": True, "threshold": 0.0}).json()
    assert sorted(multi["predicted"]) == ["business", "sports", "technology"]


# -- long texts ---------------------------------------------------------------------------------------------
FILLER = (
    "This page uses cookies to remember your preferences and to measure how visitors use it. By continuing "
    "to browse you accept our use of cookies. You can change your settings at any time in your browser. "
    "Our newsletter is sent every week; you can unsubscribe with the link at the bottom of each message. "
)
TOPIC = "The striker scored twice in extra time and the home team won the cup final in front of a full stadium."


def long_text():
    return FILLER * 14 + TOPIC  # the topic sentence lies past the first 512 tokens


def test_a_topic_past_the_window_is_found_by_chunking_not_by_cutting(default_server):
    body = {"text": long_text(), "labels": ["sports", "technology", "business", "cooking"]}
    end = post(default_server, body).json()
    assert end["truncated"] and end["windows"] == 1
    assert end["labels"][0] != "sports", end
    chunk = post(default_server, {**body, "truncation": "chunk"}).json()
    assert not chunk["truncated"] and chunk["windows"] > 1
    assert chunk["labels"][0] == "sports" and chunk["predicted"] == "sports", chunk
    start = post(default_server, {**body, "truncation": "start"}).json()
    assert start["truncated"] and start["labels"][0] == "sports", start  # the end is what it keeps


def test_truncation_error_names_the_count_and_the_limit(default_server):
    r = httpx.post(
        f"{default_server}/classify", json={"text": long_text(), "labels": ["a", "b"], "truncation": "error"}
    )
    assert r.status_code == 422
    body = r.json()
    assert body["error_type"] == "unprocessable_request"
    assert "tokens; this model sees at most" in body["error"] and 'truncation "end"' in body["error"], body


def test_a_maximal_hostile_request_is_refused_before_any_model_work(default_server):
    """The longest text, the most labels and phrasings, chunked: rejected with no forward pass at all.
    (How fast that is belongs to the benchmarks; what it must not do is reach the model.)"""
    text = ("x, " * 4000)[:10_000]  # the longest text, at the most tokens per character (6,667 here)
    labels = [{"name": f"l{i}", "description": [f"phrasing {k} of label {i}" for k in range(8)]} for i in range(64)]
    body = {"text": text, "labels": labels, "truncation": "chunk"}
    before = model_work(default_server)
    for _ in range(5):
        r = httpx.post(f"{default_server}/classify", json=body, timeout=30)
        assert r.status_code == 422, r.text
    assert r.json()["error_type"] == "unprocessable_request" and "ZSC_MAX_WINDOWS" in r.text, r.text
    batch = {"items": [{"text": text, "labels": ["a", "b"], "truncation": "chunk"}] * 256}
    r = httpx.post(f"{default_server}/classify_batch", json=batch, timeout=60)
    assert r.status_code == 422 and "item 0: " in r.text and "ZSC_MAX_WINDOWS" in r.text, r.text
    # within the window limit but over the pairs: 12 windows x 512 phrasings
    body["text"] = ("x, " * 2400)[:7_000]
    r = httpx.post(f"{default_server}/classify", json=body, timeout=30)
    assert r.status_code == 422 and "ZSC_MAX_PAIRS_PER_REQUEST" in r.text, r.text
    assert model_work(default_server) == before


def model_work(url: str) -> tuple[float, float]:
    """Forward passes and sequences through the model so far."""
    return counter(url, "zsc_micro_batches"), counter(url, "zsc_sequences")


# -- languages ----------------------------------------------------------------------------------------------
def test_chinese_text_on_the_english_model_carries_a_warning(english_server, default_server):
    zh = post(english_server, {"text": "我的快递三天了还没到，什么时候发货？", "labels": ["物流", "退款"]})
    assert zh.headers["x-zsc-warnings"] == "language_mismatch"
    [warning] = zh.json()["warnings"]
    assert warning["code"] == "language_mismatch" and "(en)" in warning["message"]
    en = post(english_server, {"text": "Where is my parcel? It has not arrived.", "labels": ["shipping", "refund"]})
    assert "x-zsc-warnings" not in en.headers and en.json()["warnings"] == []
    multilingual = post(default_server, {"text": "我的快递三天了还没到，什么时候发货？", "labels": ["物流", "退款"]})
    assert multilingual.json()["warnings"] == []


# -- Hugging Face's client -------------------------------------------------------------------------------
def test_hugging_face_inference_client_works_unchanged(default_server):
    from huggingface_hub import InferenceClient

    client = InferenceClient(model=f"{default_server}/hf/zero-shot-classification")
    text, labels = "The new phone has a faster chip and a better camera", ["technology", "sports", "politics"]
    for kwargs in ({}, {"multi_label": True}, {"hypothesis_template": "This review is about {}."}):
        got = client.zero_shot_classification(text, labels, **kwargs)
        body = {"text": text, "labels": labels, "multi_label": kwargs.get("multi_label", False)}
        if "hypothesis_template" in kwargs:
            body["hypothesis_template"] = kwargs["hypothesis_template"]
        want = post(default_server, body).json()
        assert [e.label for e in got] == want["labels"]
        assert [e.score for e in got] == pytest.approx(want["scores"], abs=1e-6)


def test_hugging_face_shape_for_a_list_of_inputs(default_server):
    texts = ["The striker scored twice", "Shares fell after the earnings call"]
    body = {"inputs": texts, "parameters": {"candidate_labels": "sports, business", "multi_label": False}}
    got = post(default_server, body, "hf/zero-shot-classification").json()
    assert [g["sequence"] for g in got] == texts and [g["labels"][0] for g in got] == ["sports", "business"]
    r = httpx.post(f"{default_server}/hf/zero-shot-classification", json={"inputs": "x", "parameters": {}})
    assert r.status_code == 400 and "candidate_labels" in r.text
