"""What one classification asks for, and the model sequences it needs. Pure: no model, no framework.

A sequence is one model input: an NLI pair ``(text, hypothesis)`` or an embedding input ``(string, None)``.
``sequences_for`` expands a task into sequences; ``score`` turns the model's rows for them back into label
scores. The engine computes rows, the cache stores rows, the classifier joins the two.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model_spec import ModelSpec
from .scoring import embedding_scores, nli_scores

Seq = tuple[str, str | None]


@dataclass(frozen=True)
class Task:
    """One classification: a text, its candidate labels (unique), a template with ``{}``."""

    text: str
    labels: tuple[str, ...]
    template: str
    multi_label: bool = False


def sequences_for(spec: ModelSpec, task: Task) -> list[Seq]:
    """The model inputs one task needs, in the order ``score`` expects them. An embedding model's inputs
    carry its prefixes (e5: "query: " before the text, "passage: " before each label hypothesis)."""
    if spec.kind == "nli":
        return [(task.text, task.template.format(label)) for label in task.labels]
    hypotheses = [(spec.label_prefix + task.template.format(label), None) for label in task.labels]
    return [(spec.text_prefix + task.text, None), *hypotheses]


def score(spec: ModelSpec, task: Task, rows: np.ndarray) -> list[float]:
    """Scores in label order from the rows of ``sequences_for(spec, task)``."""
    if spec.kind == "nli":
        return nli_scores(rows, spec.entailment_index, spec.contradiction_index, task.multi_label).tolist()
    return embedding_scores(rows[0], rows[1:], spec.logit_scale, spec.multi_label_bias, task.multi_label).tolist()
