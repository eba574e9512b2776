"""Label examples through built components on the bundled English encoder (a real model): the answer's
scores against the same maths written out by hand on the engine's own embeddings; a label set with examples
answers exactly like the explicit request; NLI and limits refuse before any model work."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import numpy as np
import pytest

from service.api.classify import ClassifyRequest
from service.build import build
from service.core import calibration as cal
from service.engine.batch_queue import batch_queue
from service.errors import UnprocessableRequest
from tests.support.calls import call
from tests.unit.conftest import MINILM

MODEL = replace(MINILM, metadata={**MINILM.metadata, "logit_scale": 20.0})
TEXT = "I was charged twice for the same order"
LABELS = [
    {"name": "billing", "examples": ["my card was charged two times", "the invoice shows a wrong amount"]},
    {"name": "shipping", "description": "delivery of a parcel", "examples": ["where is my package?"]},
    "praise",  # no examples: its wording alone
]
SET = """\
name: with-examples
labels:
  - name: billing
    examples: [my card was charged two times, the invoice shows a wrong amount]
  - name: shipping
    description: delivery of a parcel
    examples: ["where is my package?"]
  - praise
example_rule: blend
example_weight: 0.25
"""


def classify(c, *bodies: dict):
    """Each body's answer, all in one event loop (the batcher's dispatcher belongs to one)."""

    async def run():
        return [(await c.pipeline.classify(call([ClassifyRequest.model_validate(b)]))).results[0] for b in bodies]

    answers = asyncio.run(run())
    return answers[0] if len(bodies) == 1 else answers


def by_hand(c, rule: str, weight: float, multi_label: bool) -> dict[str, float]:
    """The answer's maths written out. A blend (the service's, since calibration: issue 33) first centres each
    wording on the other labels' examples (``leave_own_out_offsets``: each example is background for the
    labels it does not belong to), then gives each label with examples the wording share n0 / (n0 + k),
    n0 = 3 w / (1 - w) (w at 3 examples), where its wording is among the 3 closest to its examples (with 3
    labels, always)."""
    spec, engine = c.pipeline.spec, c.models.default.components.engine
    rows, _ = engine.encode([(spec.text_prefix + TEXT, None)])
    text = rows[0].astype(np.float64)
    vectors, examples = [], []
    for label in LABELS:
        name = label if isinstance(label, str) else label["name"]
        phrase = label.get("description", name) if isinstance(label, dict) else name
        [w], _ = engine.encode([(spec.label_prefix + spec.default_template.format(phrase), None)])
        vectors.append(w.astype(np.float64))
        found = label.get("examples", []) if isinstance(label, dict) else []
        examples.append(
            engine.encode([(spec.text_prefix + x, None) for x in found])[0].astype(np.float64) if found else None
        )
    wording = np.array([float(text @ w) for w in vectors])
    if rule == "blend":
        have = [i for i, e in enumerate(examples) if e is not None]
        stacked = np.concatenate([examples[i] for i in have])
        owner = np.repeat(have, [len(examples[i]) for i in have])
        wording = wording - cal.leave_own_out_offsets(stacked @ np.stack(vectors).T, owner)
        n0 = 3 * weight / (1 - weight)
    similarity = {}
    for i, e in enumerate(examples):
        if e is not None:
            mean = e.mean(axis=0)
            similarity[i] = float(max(e @ text)) if rule == "nearest" else float(text @ (mean / np.linalg.norm(mean)))
    # two labels have examples: their cosines move onto the wording's scale by their mean excess over it
    excess = sum(similarity[i] - wording[i] for i in similarity) / len(similarity)
    cos = []
    for i in range(len(LABELS)):
        if i not in similarity:
            cos.append(wording[i])
        elif rule == "blend":
            share = n0 / (n0 + len(examples[i]))
            cos.append((1 - share) * (similarity[i] - excess) + share * wording[i])
        else:
            cos.append(similarity[i] - excess)
    cos = np.array(cos)
    if multi_label:
        scores = 1 / (1 + np.exp(-20.0 * (cos - spec.multi_label_bias)))
    else:
        z = np.exp(20.0 * (cos - cos.max()))
        scores = z / z.sum()
    names = ["billing", "shipping", "praise"]
    return dict(zip(names, scores.tolist()))


@pytest.mark.parametrize("rule, weight", [("prototype", 0.0), ("nearest", 0.0), ("blend", 0.4)])
@pytest.mark.parametrize("multi_label", [False, True])
def test_the_answer_is_the_maths_by_hand(settings_for, rule, weight, multi_label):
    c = build(settings_for(), [MODEL], batch_queue)
    body = {"text": TEXT, "labels": LABELS, "multi_label": multi_label, "example_rule": rule, "example_weight": weight}
    answer = classify(c, body)
    got = dict(zip(answer.labels, answer.scores))
    want = by_hand(c, rule, weight, multi_label)
    assert got == pytest.approx(want, abs=1e-5)
    if not multi_label:
        assert sum(got.values()) == pytest.approx(1.0)


def test_the_models_defaults_apply_and_examples_move_the_answer(settings_for):
    c = build(settings_for(), [MODEL], batch_queue)
    bare_labels = [x if isinstance(x, str) else x["name"] for x in LABELS]
    default, bare = classify(c, {"text": TEXT, "labels": LABELS}, {"text": TEXT, "labels": bare_labels})
    spec = c.pipeline.spec
    want = by_hand(c, spec.example_rule, spec.example_weight, False)
    assert dict(zip(default.labels, default.scores)) == pytest.approx(want, abs=1e-5)
    assert dict(zip(default.labels, default.scores)) != pytest.approx(dict(zip(bare.labels, bare.scores)), abs=1e-3)


def test_a_label_set_with_examples_answers_like_the_explicit_request(settings_for, tmp_path):
    sets = tmp_path / "mine"
    sets.mkdir()
    (sets / "with-examples.yaml").write_text(SET)
    c = build(settings_for(ZSC_LABEL_SETS=str(sets)), [MODEL], batch_queue)
    by_set, explicit, overridden = classify(
        c,
        {"text": TEXT, "label_set": "with-examples"},
        {"text": TEXT, "labels": LABELS, "example_rule": "blend", "example_weight": 0.25},
        {"text": TEXT, "label_set": "with-examples", "example_rule": "nearest"},
    )
    assert by_set.model_dump() == explicit.model_dump()
    assert overridden.scores != by_set.scores  # the request's own field wins over the set's
    [summary] = [s for s in c.label_sets.values()]
    assert summary.summary("minilm", "r1")["examples"] == 3


def test_example_limits_refuse_before_model_work(settings_for):
    c = build(settings_for(ZSC_MAX_EXAMPLES_PER_REQUEST="3", ZSC_MAX_PAIRS_PER_REQUEST="6"), [MODEL], batch_queue)
    four = [{"name": "a", "examples": ["x", "y"]}, {"name": "b", "examples": ["z", "w"]}]
    with pytest.raises(
        UnprocessableRequest, match=r"4 example texts in total; the limit is 3 \(ZSC_MAX_EXAMPLES_PER_REQUEST\)"
    ):
        classify(c, {"text": TEXT, "labels": four})
    many = [{"name": "a", "examples": ["x", "y", "z"]}, "b", "c", "d"]  # 4 wordings + 3 examples = 7 pairs
    with pytest.raises(
        UnprocessableRequest, match=r"7 \(text, phrasing\) pairs and example texts in total; the limit is 6"
    ):
        classify(c, {"text": TEXT, "labels": many})
    shared = [{"name": "a", "examples": ["x", "y"]}, "b"]  # 2 items x 2 wordings + 2 distinct examples = 6
    ok = asyncio.run(
        c.pipeline.classify(call([ClassifyRequest.model_validate({"text": t, "labels": shared}) for t in "pq"]))
    )
    assert len(ok.results) == 2
