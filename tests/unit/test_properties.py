"""Hypothesis property tests: for any valid input, the scoring gives scores in [0, 1] in label order
(single-label ones summing to 1), the answer ranks them best first, and the OpenAPI document's rules
(service/api/classify.py patterns) accept exactly what the validators accept. The engine's own property test,
with a real tiny model, is in test_engine.py."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from service.api.classify import ClassifyRequest
from service.api.schema_rules import NOT_BLANK, TEMPLATE, _label_string, template_rules
from service.config import settings as service_settings
from service.core.model_spec import ModelSpec
from service.core.task import Task, score, sequences_for
from service.pipeline.answer import answer
from service.pipeline.prepare import PreparedRequest

NLI = ModelSpec(kind="nli", default_template="{}", max_length=64, source="t", revision="r",
                entailment_index=2, contradiction_index=0)  # fmt: skip
EMB = ModelSpec(kind="embedding", default_template="{}", max_length=64, source="t", revision="r")
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tasks(draw) -> Task:
    """Any task: 1-3 windows, 1-8 labels of 1-3 phrasings, single- or multi-label, max or mean."""
    windows = tuple(f"w{i}" for i in range(draw(st.integers(1, 3))))
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=8))
    hypotheses = tuple(tuple(f"l{i}p{k}" for k in range(n)) for i, n in enumerate(sizes))
    return Task(windows, hypotheses, draw(st.booleans()), draw(st.sampled_from(["max", "mean"])))


# no subnormals: a library loaded earlier in the same process (a worker of the distributed run) may have
# set flush-to-zero, and Hypothesis refuses to draw them then
finite = st.floats(-60, 60, allow_nan=False, allow_infinity=False, allow_subnormal=False)


def check_scores(task: Task, scores: list[float]) -> None:
    assert len(scores) == len(task.hypotheses)
    assert all(0.0 <= s <= 1.0 for s in scores), scores
    if not task.pairwise:
        assert sum(scores) == pytest.approx(1.0, abs=1e-9)


@FAST
@given(task=tasks(), data=st.data())
def test_nli_scores_are_probabilities_in_label_order(task, data):
    n = len(sequences_for(NLI, task))
    rows = np.array(data.draw(st.lists(st.lists(finite, min_size=3, max_size=3), min_size=n, max_size=n)))
    scores = score(NLI, task, rows)
    check_scores(task, scores)
    # label order: reversing the labels (and their rows, window by window) reverses the scores
    flipped = Task(task.texts, task.hypotheses[::-1], task.multi_label, task.aggregation)
    per_window = rows.reshape(len(task.texts), -1, 3)
    sizes = [len(h) for h in task.hypotheses]
    groups = [np.split(w, np.cumsum(sizes)[:-1]) for w in per_window]
    flipped_rows = np.concatenate([np.concatenate(g[::-1]) for g in groups])
    np.testing.assert_allclose(score(NLI, flipped, flipped_rows), scores[::-1], rtol=1e-9, atol=1e-12)


@FAST
@given(task=tasks(), data=st.data())
def test_embedding_scores_are_probabilities_in_label_order(task, data):
    n = len(sequences_for(EMB, task))
    raw = np.array(data.draw(st.lists(st.lists(finite, min_size=4, max_size=4), min_size=n, max_size=n)))
    rows = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)  # the backend normalises
    check_scores(task, score(EMB, task, rows))


@FAST
@given(
    scores=st.lists(st.floats(0, 1, allow_subnormal=False), min_size=1, max_size=12),
    multi=st.booleans(),
    top_k=st.none() | st.integers(1, 15),
    threshold=st.none() | st.floats(0, 1, allow_subnormal=False),
)
def test_the_answer_ranks_best_first_and_decides_by_the_threshold(scores, multi, top_k, threshold):
    names = [f"label{i}" for i in range(len(scores))]
    body = {"text": "t", "labels": names, "multi_label": multi, "top_k": top_k, "threshold": threshold}
    request = ClassifyRequest.model_validate(body)
    prepared = PreparedRequest(request, Task(("t",), tuple((n,) for n in names), multi), names)
    out = answer(prepared, scores, "m", "r")
    assert out.scores == sorted(out.scores, reverse=True)
    assert len(out.labels) == min(len(names), top_k or len(names))
    assert dict(zip(out.labels, out.scores)).items() <= dict(zip(names, scores)).items()
    if multi:
        cut = 0.5 if threshold is None else threshold
        assert sorted(out.predicted) == sorted(n for n, s in zip(names, scores) if s >= cut)
    elif threshold is not None and max(scores) < threshold:
        assert out.predicted is None
    else:
        assert dict(zip(names, scores))[out.predicted] == max(scores)


# -- the document states what the validators check ---------------------------------------------------
SPACES = " \t\n\x0b\x1c\x1f\x85\xa0\u2003\u3000\ufeff"  # Python's white space, and U+FEFF (ECMA's, not Python's)
label_text = st.text(alphabet=st.sampled_from(list("ab,，") + list(SPACES)), max_size=12)


@FAST
@given(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(list(SPACES)), max_size=8))
def test_text_pattern_is_the_blank_check(text):
    accepted = _accepts({"text": text, "labels": ["a"]}) is not None
    assert accepted == (re.search(NOT_BLANK, text) is not None)


@FAST
@given(label_text)
def test_label_string_pattern_is_the_validator(labels):
    request = _accepts({"text": "t", "labels": labels})
    valid = (
        request is not None and request.classification().repeated_label() is None
    )  # the pattern also states uniqueness
    limits = service_settings()
    assert valid == (re.fullmatch(_label_string(limits.max_labels, limits.max_label_chars), labels) is not None)


@FAST
@given(st.text(alphabet=st.sampled_from(list("{}a x")), max_size=10))
def test_template_pattern_is_the_validator(template):
    accepted = _accepts({"text": "t", "labels": ["a"], "hypothesis_template": template}) is not None
    assert accepted == (re.fullmatch(TEMPLATE, template) is not None)
    assert accepted == (re.search(template_rules()["pattern"], template) is not None)
    if accepted:  # and what it accepts is a template with one place for the label
        assert template.format("LABEL").count("LABEL") == 1


def _accepts(body: dict) -> ClassifyRequest | None:
    try:
        return ClassifyRequest.model_validate(body)
    except ValidationError:
        return None
