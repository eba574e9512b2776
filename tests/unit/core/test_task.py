"""The scoring of a task with several phrasings per label and several windows per text, against an
independent computation written out here (loops, no shared helpers), and the plain case against the
one-text functions that are pinned to transformers' pipeline."""

from __future__ import annotations

import numpy as np
import pytest

from service.core.model_spec import ModelSpec
from service.core.scoring import embedding_scores, nli_scores
from service.core.task import Task, score, sequences_for
from tests.support.reference import expected_embedding, expected_nli, sigmoid

NLI = ModelSpec(kind="nli", default_template="{}", max_length=128, source="t", revision="r",
                entailment_index=2, contradiction_index=0)  # fmt: skip
EMB = ModelSpec(kind="embedding", default_template="{}", max_length=128, source="t", revision="r",
                logit_scale=20.0, multi_label_bias=0.3, text_prefix="query: ", label_prefix="passage: ")  # fmt: skip


def unit_rows(rng, n, dim=8):
    x = rng.normal(size=(n, dim))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("multi_label", [False, True])
@pytest.mark.parametrize("how", ["max", "mean"])
@pytest.mark.parametrize("windows, sizes", [(1, (1, 1, 1)), (1, (3, 1, 2)), (3, (1, 1)), (2, (2, 3, 1, 1)), (4, (2,))])
def test_nli_phrasings_and_windows(windows, sizes, how, multi_label):
    rng = np.random.default_rng(sum(sizes) * 10 + windows)
    task = Task(tuple(f"w{i}" for i in range(windows)), tuple(tuple(f"h{j}" for j in range(n)) for n in sizes),
                multi_label, how)  # fmt: skip
    assert len(sequences_for(NLI, task)) == windows * sum(sizes)
    rows = rng.normal(scale=3, size=(windows * sum(sizes), 3))
    got = score(NLI, task, rows)
    want = expected_nli(rows.tolist(), windows, sizes, multi_label or len(sizes) == 1, how)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    if not (multi_label or len(sizes) == 1):
        assert sum(got) == pytest.approx(1.0)


@pytest.mark.parametrize("multi_label", [False, True])
@pytest.mark.parametrize("how", ["max", "mean"])
@pytest.mark.parametrize("windows, sizes", [(1, (1, 1, 1)), (1, (3, 1, 2)), (3, (1, 1)), (2, (2, 3, 1, 1))])
def test_embedding_prompt_ensemble_and_windows(windows, sizes, how, multi_label):
    rng = np.random.default_rng(sum(sizes) * 7 + windows)
    task = Task(tuple(f"w{i}" for i in range(windows)), tuple(tuple(f"h{j}" for j in range(n)) for n in sizes),
                multi_label, how)  # fmt: skip
    seqs = sequences_for(EMB, task)
    assert [s for s, _ in seqs[:windows]] == [f"query: w{i}" for i in range(windows)]
    assert all(s.startswith("passage: h") for s, _ in seqs[windows:]) and len(seqs) == windows + sum(sizes)
    rows = unit_rows(rng, windows + sum(sizes))
    got = score(EMB, task, rows)
    want = expected_embedding(rows.tolist(), windows, sizes, 20.0, 0.3, multi_label or len(sizes) == 1, how)
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_the_plain_case_is_what_the_pipelines_compute():
    rng = np.random.default_rng(3)
    task = Task.of("text", ["a", "b", "c"], "This is about {}.")
    assert task.hypotheses == (("This is about a.",), ("This is about b.",), ("This is about c.",))
    logits = rng.normal(size=(3, 3))
    for multi in (False, True):
        t = Task(task.texts, task.hypotheses, multi)
        np.testing.assert_allclose(score(NLI, t, logits), nli_scores(logits, 2, 0, multi))
    rows = unit_rows(rng, 4)
    np.testing.assert_allclose(score(EMB, task, rows), embedding_scores(rows[0], rows[1:], 20.0, 0.3, False))


def test_a_single_label_is_scored_on_its_own():
    rows = np.array([[0.0, 0.0, 2.0], [1.0, 0.0, 0.5]])
    got = score(NLI, Task(("t",), (("h1", "h2"),)), rows)
    assert got == pytest.approx([sigmoid(2.0 - 0.0)])  # the phrasing with the larger entailment logit


# -- label examples (embedding models) --------------------------------------------------------------------
def _by_hand_examples(text, labels, examples, rule, weight, shift, multi_label, how, scale=20.0, bias=0.3):
    """Per window and label: the wording's cosine, or, for a label with examples, the rule's cosine shifted by
    the mean excess of such labels over their wording (one such label: ``shift``) and blended, written out
    with loops; then aggregated over windows and turned into scores."""
    cos = np.zeros((len(text), len(labels)))
    have = [i for i in range(len(labels)) if len(examples[i])]
    for w, t in enumerate(text):
        wording = [float(t @ label) for label in labels]
        sim = {}
        for i in have:
            if rule == "nearest":
                sim[i] = max(float(t @ e) for e in examples[i])
            else:
                mean = np.sum(examples[i], axis=0) / len(examples[i])
                sim[i] = float(t @ (mean / np.sqrt(np.sum(mean**2))))
        excess = sum(sim[i] - wording[i] for i in have) / len(have) if len(have) >= 2 else shift
        for i in range(len(labels)):
            if i not in sim:
                cos[w, i] = wording[i]
            elif rule == "blend":
                cos[w, i] = (1 - weight) * (sim[i] - excess) + weight * wording[i]
            else:
                cos[w, i] = sim[i] - excess
    ev = cos.max(axis=0) if how == "max" else cos.mean(axis=0)
    if multi_label or len(labels) == 1:
        return [1 / (1 + np.exp(-scale * (c - bias))) for c in ev]
    e = np.exp(scale * ev - np.max(scale * ev))
    return list(e / e.sum())


@pytest.mark.parametrize("rule, weight", [("prototype", 0.0), ("nearest", 0.0), ("blend", 0.0), ("blend", 0.3),
                                          ("blend", 1.0)])  # fmt: skip
@pytest.mark.parametrize("multi_label", [False, True])
@pytest.mark.parametrize("windows, counts", [(1, (2, 0, 3)), (2, (1, 1)), (1, (0, 0, 4)), (3, (5,)), (1, (1, 2, 0, 3))])
def test_examples_join_the_wording_by_the_rule(rule, weight, multi_label, windows, counts):
    spec = ModelSpec(**{**EMB.__dict__, "example_shift": 0.05})
    rng = np.random.default_rng(len(counts) * 100 + windows * 10 + sum(counts))
    how = "mean" if windows == 2 else "max"
    examples = tuple(tuple(f"e{i}.{j}" for j in range(n)) for i, n in enumerate(counts))
    task = Task(tuple(f"w{i}" for i in range(windows)), tuple((f"l{i}",) for i in range(len(counts))), multi_label,
                how, examples, rule, weight)  # fmt: skip
    seqs = sequences_for(spec, task)
    assert len(seqs) == windows + len(counts) + sum(counts)
    assert seqs[-1] == (f"query: e{len(counts) - 1}.{counts[-1] - 1}", None) or counts[-1] == 0  # a text's prefix
    rows = unit_rows(rng, len(seqs))
    got = score(spec, task, rows)
    text, labels = rows[:windows], rows[windows : windows + len(counts)]
    ex = np.split(rows[windows + len(counts) :], np.cumsum(counts)[:-1])
    want = _by_hand_examples(text, labels, ex, rule, weight, 0.05, multi_label, how)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert all(0.0 <= s <= 1.0 for s in got)
    if not (multi_label or len(counts) == 1):
        assert sum(got) == pytest.approx(1.0)


def test_a_blend_of_weight_one_is_the_wording_and_no_examples_is_the_plain_case():
    rng = np.random.default_rng(3)
    rows = unit_rows(rng, 1 + 3 + 4)
    plain = Task(("t",), (("a",), ("b",), ("c",)))
    full = Task(("t",), (("a",), ("b",), ("c",)), examples=(("x", "y"), (), ("z", "v")), example_rule="blend",
                example_weight=1.0)  # fmt: skip
    np.testing.assert_allclose(score(EMB, full, rows), score(EMB, plain, rows[:4]), rtol=1e-12)
    with pytest.raises(ValueError, match="embedding model"):
        sequences_for(NLI, Task(("t",), (("a",),), examples=(("x",),)))
