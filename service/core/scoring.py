"""Turns model outputs into label scores. Pure numpy; never mutates its inputs.

``task.score`` uses the general functions (several phrasings per label, several windows per text);
``nli_scores`` / ``embedding_scores`` are the one-text, one-hypothesis case the pipelines compute.

NLI maths follows transformers' ``ZeroShotClassificationPipeline.postprocess`` exactly (and ModelScope's
pipeline, which is the same with fixed indices):

- single-label (more than one label): softmax over labels of the entailment logit;
- multi-label, or a single candidate label: for each label, softmax([contradiction, entailment])[1],
  i.e. sigmoid(entailment - contradiction); the neutral logit is ignored.

Embedding maths (bi-encoder): cos_i = <text, label_i> on L2-normalised vectors, then

- single-label: softmax over labels of ``scale * cos_i``;
- multi-label, or a single label: sigmoid(scale * (cos_i - bias)), each label on its own.

A label with example texts (embedding models) replaces its cosine by ``example_evidence``: the text's
cosine to the examples' prototype (their normalised mean) or to the nearest example, shifted onto the
wording's scale (text-to-text cosines sit higher than text-to-label ones: unshifted, a label with examples
beats every label without), blended with its wording's cosine by ``weight``. The same softmax / sigmoid
follows, so single-label scores still sum to 1 and every score stays in [0, 1].
"""

from __future__ import annotations

import numpy as np


def softmax(x: np.ndarray) -> np.ndarray:
    """Over the last axis, shifted by its maximum (exp never overflows)."""
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Elementwise; for x below about -709 exp(-x) is inf and the answer 0, as it should be."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


# -- the general case (task.score): phrasings per label, windows per text -----------------------------
def nli_label_evidence(phrasings: list[np.ndarray], entailment: int, contradiction: int, pairwise: bool) -> np.ndarray:
    """One window's evidence per label from each label's ``[n_phrasings, n_classes]`` logits: the phrasing
    with the largest entailment logit stands for the label; its entailment logit (single-label: a softmax
    over labels follows), or entailment minus contradiction (pairwise: softmax([c, e])[1] = sigmoid(e - c))."""
    out = np.empty(len(phrasings))
    for i, rows in enumerate(phrasings):
        best = np.asarray(rows, dtype=np.float64)[int(np.argmax(np.asarray(rows)[:, entailment]))]
        out[i] = best[entailment] - best[contradiction] if pairwise else best[entailment]
    return out


def prompt_ensemble(phrasings: np.ndarray) -> np.ndarray:
    """A label's embedding from its phrasings' (normalised) embeddings: their mean, normalised again; one
    phrasing is used as it is."""
    phrasings = np.asarray(phrasings, dtype=np.float64)
    if len(phrasings) == 1:
        return phrasings[0]
    mean = phrasings.mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-12)


def example_evidence(
    similarity: np.ndarray, wording: np.ndarray, rule: str, weight: float, fallback_shift: float
) -> np.ndarray:
    """``[windows, labels]`` cosines of the labels that have examples: ``similarity`` to their examples,
    ``wording`` to their wording. Text-to-text cosines sit higher than text-to-label ones by an amount that
    depends on the model and the data (docs/evaluation.md, "Examples"), so per window they are
    shifted by their mean excess over the same labels' wording (with one such label: ``fallback_shift``,
    the model's), which puts them on the wording's scale; blend then mixes in the wording by ``weight``."""
    similarity = np.asarray(similarity, dtype=np.float64)
    wording = np.asarray(wording, dtype=np.float64)
    if similarity.shape[1] >= 2:
        shift = (similarity - wording).mean(axis=1, keepdims=True)
    else:
        shift = fallback_shift
    evidence = similarity - shift
    return (1.0 - weight) * evidence + weight * wording if rule == "blend" else evidence


def aggregate(evidence: np.ndarray, how: str) -> np.ndarray:
    """``[windows, labels]`` evidence -> per label: the strongest window (max) or the average (mean)."""
    if how == "max":
        return evidence.max(axis=0)
    if how == "mean":
        return evidence.mean(axis=0)
    raise ValueError(f"unknown aggregation {how!r}")


def nli_finish(evidence: np.ndarray, pairwise: bool) -> np.ndarray:
    return sigmoid(evidence) if pairwise else softmax(evidence)


def embedding_finish(cos: np.ndarray, scale: float, bias: float, pairwise: bool) -> np.ndarray:
    return sigmoid(scale * (cos - bias)) if pairwise else softmax(scale * cos)


# -- one text, one hypothesis per label (what the pipelines compute) ---------------------------------
def nli_scores(logits: np.ndarray, entailment: int, contradiction: int, multi_label: bool) -> np.ndarray:
    """Scores for one text from its ``[n_labels, n_classes]`` pair logits, in label order."""
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim != 2 or logits.shape[0] == 0:
        raise ValueError(f"expected [n_labels, n_classes] logits, got shape {logits.shape}")
    pairwise = multi_label or logits.shape[0] == 1
    return nli_finish(nli_label_evidence(list(logits[:, None, :]), entailment, contradiction, pairwise), pairwise)


def embedding_scores(
    text_vec: np.ndarray, label_vecs: np.ndarray, scale: float, bias: float, multi_label: bool
) -> np.ndarray:
    """Scores for one text from its normalised embedding and its labels' embeddings."""
    cos = np.asarray(label_vecs, dtype=np.float64) @ np.asarray(text_vec, dtype=np.float64)
    return embedding_finish(cos, scale, bias, multi_label or cos.shape[0] == 1)


def contradiction_index_for(entailment: int, num_labels: int, label2id: dict[str, int]) -> int:
    """The contradiction class: named in label2id when it is, else transformers' rule
    (last class when entailment is 0, otherwise class 0)."""
    for name, idx in label2id.items():
        if name.lower().startswith("contradict"):
            return int(idx)
    return num_labels - 1 if entailment == 0 else 0


def entailment_index_for(label2id: dict[str, int]) -> int | None:
    """transformers' rule: the first label whose name starts with 'entail' (case-insensitive)."""
    for name, idx in label2id.items():
        if name.lower().startswith("entail"):
            return int(idx)
    return None
