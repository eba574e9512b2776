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
