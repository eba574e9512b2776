"""Turns model outputs into label scores. Pure numpy; never mutates its inputs.

NLI maths follows transformers' ``ZeroShotClassificationPipeline.postprocess`` exactly (and ModelScope's
pipeline, which is the same with fixed indices):

- single-label (more than one label): softmax over labels of the entailment logit;
- multi-label, or a single candidate label: for each label, softmax([contradiction, entailment])[1],
  i.e. sigmoid(entailment - contradiction); the neutral logit is ignored.

Embedding maths (bi-encoder): cos_i = <text, label_i> on L2-normalised vectors, then

- single-label: softmax over labels of ``scale * cos_i``;
- multi-label, or a single label: sigmoid(scale * (cos_i - bias)), each label on its own.
"""

from __future__ import annotations

import numpy as np


def _softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def nli_scores(logits: np.ndarray, entailment: int, contradiction: int, multi_label: bool) -> np.ndarray:
    """Scores for one text from its ``[n_labels, n_classes]`` pair logits, in label order."""
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim != 2 or logits.shape[0] == 0:
        raise ValueError(f"expected [n_labels, n_classes] logits, got shape {logits.shape}")
    if multi_label or logits.shape[0] == 1:
        pair = logits[:, [contradiction, entailment]]
        return _softmax(pair)[:, 1]
    return _softmax(logits[:, entailment])


def embedding_scores(
    text_vec: np.ndarray, label_vecs: np.ndarray, scale: float, bias: float, multi_label: bool
) -> np.ndarray:
    """Scores for one text from its normalised embedding and its labels' embeddings."""
    cos = np.asarray(label_vecs, dtype=np.float64) @ np.asarray(text_vec, dtype=np.float64)
    if multi_label or cos.shape[0] == 1:
        return 1.0 / (1.0 + np.exp(-scale * (cos - bias)))
    return _softmax(scale * cos)


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
