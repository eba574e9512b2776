import numpy as np
import pytest

from service.core.scoring import contradiction_index_for, embedding_scores, entailment_index_for, nli_scores


def test_single_label_is_softmax_over_entailment_logits():
    logits = np.array([[0.1, 0.2, 3.0], [0.0, 0.0, 1.0], [5.0, 0.0, -1.0]])
    scores = nli_scores(logits, entailment=2, contradiction=0, multi_label=False)
    e = np.exp([3.0, 1.0, -1.0])
    np.testing.assert_allclose(scores, e / e.sum())
    assert scores.sum() == pytest.approx(1.0)


def test_multi_label_is_entailment_vs_contradiction_per_label():
    logits = np.array([[0.5, 9.0, 2.0], [-1.0, 3.0, 1.0]])
    scores = nli_scores(logits, entailment=2, contradiction=0, multi_label=True)
    np.testing.assert_allclose(scores, 1 / (1 + np.exp(-(logits[:, 2] - logits[:, 0]))))


def test_one_label_uses_the_multi_label_formula():
    logits = np.array([[1.0, 0.0, 2.0]])
    assert nli_scores(logits, 2, 0, multi_label=False)[0] == pytest.approx(1 / (1 + np.exp(-1.0)))


def test_inputs_are_not_mutated():
    logits = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    copy = logits.copy()
    nli_scores(logits, 2, 0, False)
    np.testing.assert_array_equal(logits, copy)


def test_embedding_single_and_multi_label():
    text = np.array([1.0, 0.0])
    labels = np.array([[1.0, 0.0], [0.0, 1.0]])
    single = embedding_scores(text, labels, scale=20, bias=0.3, multi_label=False)
    np.testing.assert_allclose(single, np.exp([20, 0]) / np.exp([20, 0]).sum())
    multi = embedding_scores(text, labels, scale=20, bias=0.3, multi_label=True)
    np.testing.assert_allclose(multi, 1 / (1 + np.exp(-20 * (np.array([1.0, 0.0]) - 0.3))))


def test_label_indices_follow_transformers_rules():
    assert entailment_index_for({"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2}) == 2
    assert entailment_index_for({"LABEL_0": 0, "LABEL_1": 1}) is None
    assert contradiction_index_for(2, 3, {"contradiction": 0, "neutral": 1, "entailment": 2}) == 0
    assert contradiction_index_for(0, 3, {}) == 2  # transformers: last class when entailment is 0
    assert contradiction_index_for(1, 3, {}) == 0
