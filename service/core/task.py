"""What one classification asks for, and the model sequences it needs. Pure: no model, no framework.

A sequence is one model input: an NLI pair ``(text, hypothesis)`` or an embedding input ``(string, None)``.
``sequences_for`` expands a task into sequences; ``score`` turns the model's rows for them back into label
scores. The engine computes rows, the cache stores rows, the pipeline's scorer joins the two.

A task may have several texts (the windows of one long text) and several hypotheses per label (its
phrasings); ``score`` combines them as the README states: per window, each label's phrasings combine (NLI:
the phrasing with the strongest entailment; embeddings: the mean of the phrasings' normalised embeddings),
then each label's evidence is aggregated over the windows (``max`` or ``mean``), then turned into scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from service.core.model_spec import ModelSpec
from service.core.scoring import aggregate, embedding_finish, nli_finish, nli_label_evidence, prompt_ensemble

Seq = tuple[str, str | None]


@dataclass(frozen=True)
class Task:
    """One classification: the text (or its windows) and, per candidate label, its hypotheses."""

    texts: tuple[str, ...]
    hypotheses: tuple[tuple[str, ...], ...]
    multi_label: bool = False
    aggregation: str = "max"  # over windows: max | mean

    @classmethod
    def of(cls, text: str, labels: Iterable[str], template: str, multi_label: bool = False) -> Task:
        """The plain case: one text, one hypothesis per label (the template with the label)."""
        return cls((text,), tuple((template.format(label),) for label in labels), multi_label)

    @property
    def pairwise(self) -> bool:
        """Each label scored on its own: multi-label, or a single candidate label (as the pipelines do)."""
        return self.multi_label or len(self.hypotheses) == 1


def sequences_for(spec: ModelSpec, task: Task) -> list[Seq]:
    """The model inputs one task needs, in the order ``score`` expects them. An embedding model's inputs
    carry its prefixes (e5: "query: " before the text, "passage: " before each label hypothesis)."""
    if spec.kind == "nli":
        return [(text, h) for text in task.texts for hyps in task.hypotheses for h in hyps]
    hypotheses = [(spec.label_prefix + h, None) for hyps in task.hypotheses for h in hyps]
    return [*((spec.text_prefix + text, None) for text in task.texts), *hypotheses]


def _groups(rows: np.ndarray, sizes: Sequence[int]) -> list[np.ndarray]:
    return np.split(rows, np.cumsum(sizes)[:-1])


def score(spec: ModelSpec, task: Task, rows: np.ndarray) -> list[float]:
    """Scores in label order from the rows of ``sequences_for(spec, task)``."""
    sizes = [len(h) for h in task.hypotheses]
    windows = len(task.texts)
    if spec.kind == "nli":
        per_window = np.asarray(rows).reshape(windows, sum(sizes), -1)
        evidence = np.stack(
            [
                nli_label_evidence(_groups(w, sizes), spec.entailment_index, spec.contradiction_index, task.pairwise)
                for w in per_window
            ]
        )
        return nli_finish(aggregate(evidence, task.aggregation), task.pairwise).tolist()
    labels = np.stack([prompt_ensemble(g) for g in _groups(np.asarray(rows[windows:]), sizes)])
    cos = np.asarray(rows[:windows], dtype=np.float64) @ labels.T  # [windows, labels]
    scores = embedding_finish(aggregate(cos, task.aggregation), spec.logit_scale, spec.multi_label_bias, task.pairwise)
    return scores.tolist()
