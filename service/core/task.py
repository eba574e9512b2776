"""What one classification asks for, and the model sequences it needs. Pure: no model, no framework.

A sequence is one model input: an NLI pair ``(text, hypothesis)`` or an embedding input ``(string, None)``.
``sequences_for`` expands a task into sequences; ``score`` turns the model's rows for them back into label
scores. The engine computes rows, the cache stores rows, the pipeline's scorer joins the two.

A task may have several texts (the windows of one long text) and several hypotheses per label (its
phrasings); ``score`` combines them as the README states: per window, each label's phrasings combine (NLI:
the phrasing with the strongest entailment; embeddings: the mean of the phrasings' normalised embeddings),
then each label's evidence is aggregated over the windows (``max`` or ``mean``), then turned into scores.

Calibration (``core.calibration``) sits between the two: ``score`` and ``score_texts`` take an optional
``correction``, given each text's raw *wording* evidence per label (logit units, aggregated over the windows:
``scale * cos`` for an embedding model, the entailment logit or entailment minus contradiction for NLI) and
the space it is in (``EMBEDDING_SPACE``, ...); what it returns (per-label offsets, or None) is subtracted before the
scores are made. Only the wording is corrected: a label's examples are blended in after it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from service.core.calibration import blend_shares, leave_own_out_offsets, wording_agrees
from service.core.model_spec import ModelSpec
from service.core.scoring import (
    aggregate,
    embedding_finish,
    example_evidence,
    nli_finish,
    nli_label_evidence,
    prompt_ensemble,
)

Seq = tuple[str, str | None]

# the spaces raw evidence is recorded and corrected in: one for embedding models (single- and multi-label
# evidence differ by a constant per text, which centred offsets ignore); two for NLI models (the entailment
# logit, single-label; entailment minus contradiction, pairwise)
EMBEDDING_SPACE, NLI_SPACE, NLI_PAIRWISE_SPACE = "emb", "nli-e", "nli-ec"
# (raw wording evidence [labels], its space) -> offsets to subtract [labels], or None (no correction)
Correction = Callable[[np.ndarray, str], "np.ndarray | None"]


@dataclass(frozen=True)
class Task:
    """One classification: the text (or its windows) and, per candidate label, its hypotheses."""

    texts: tuple[str, ...]
    hypotheses: tuple[tuple[str, ...], ...]
    multi_label: bool = False
    aggregation: str = "max"  # over windows: max | mean
    # per label, its example texts (embedding models; empty: the wording alone), and how they join it
    examples: tuple[tuple[str, ...], ...] = ()
    example_rule: str = "blend"
    example_weight: float = 0.2
    # the blend the service uses (``pipeline.prepare`` sets it with rule blend): the wording's per-label
    # offsets estimated from the other labels' examples (calibration.leave_own_out_offsets), and each label's
    # share from its own example count (calibration.blend_shares: ``example_weight`` is the share at 3
    # examples), none where 5+ examples show its wording points at another label (calibration.wording_agrees:
    # the examples alone). False: the fixed share ``example_weight`` for every label
    example_adaptive: bool = False

    @classmethod
    def of(cls, text: str, labels: Iterable[str], template: str, multi_label: bool = False) -> Task:
        """The plain case: one text, one hypothesis per label (the template with the label)."""
        return cls((text,), tuple((template.format(label),) for label in labels), multi_label)

    @property
    def text_pairs(self) -> int:
        """(text window, phrasing) pairs: what a call's pair limit and the pairs metric count."""
        return len(self.texts) * sum(len(h) for h in self.hypotheses)

    @property
    def pairwise(self) -> bool:
        """Each label scored on its own: multi-label, or a single candidate label (as the pipelines do)."""
        return self.multi_label or len(self.hypotheses) == 1


def sequences_for(spec: ModelSpec, task: Task) -> list[Seq]:
    """The model inputs one task needs, in the order ``score`` expects them. An embedding model's inputs
    carry its prefixes (e5: "query: " before the text, "passage: " before each label hypothesis); a label's
    examples are texts, so they get the text's prefix, and come last."""
    if spec.kind == "nli":
        if any(task.examples):
            raise ValueError("examples need an embedding model")
        return [(text, h) for text in task.texts for hyps in task.hypotheses for h in hyps]
    return [*text_sequences(spec, task), *label_sequences(spec, task)]


def _groups(rows: np.ndarray, sizes: Sequence[int]) -> list[np.ndarray]:
    return np.split(rows, np.cumsum(sizes)[:-1])


def space_of(spec: ModelSpec, task: Task) -> str:
    """The space a task's raw evidence is in."""
    if spec.kind != "nli":
        return EMBEDDING_SPACE
    return NLI_PAIRWISE_SPACE if task.pairwise else NLI_SPACE


def score(spec: ModelSpec, task: Task, rows: np.ndarray, correction: Correction | None = None) -> list[float]:
    """Scores in label order from the rows of ``sequences_for(spec, task)``; ``correction``: see the module."""
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
        raw = aggregate(evidence, task.aggregation)
        shift = _shift(correction, raw, space_of(spec, task), len(sizes))
        return nli_finish(raw if shift is None else raw - shift, task.pairwise).tolist()
    rows = np.asarray(rows)
    return score_texts(spec, task, rows[:windows], label_side(task, rows[windows:]), correction)


def _shift(correction: Correction | None, raw: np.ndarray, space: str, labels: int) -> np.ndarray | None:
    """The correction's offsets for this text (a single label has nothing to be corrected against)."""
    return correction(raw, space) if correction is not None and labels >= 2 else None


@dataclass(frozen=True)
class LabelSide:
    """What an embedding task's labels contribute, computed once from their rows: it depends on the
    labels' wording, examples and rule only, never on the text, so a label set reuses it (the scorer keeps
    it per label signature)."""

    wording: np.ndarray  # [labels, dim]: each label's phrasings' normalised mean
    have: tuple[int, ...] = ()  # the labels with examples
    vectors: tuple[np.ndarray, ...] = ()  # per label in ``have``: [1, dim] prototype, or [k, dim] (nearest)
    counts: tuple[int, ...] = ()  # per label in ``have``: its number of examples
    # ``Task.example_adaptive`` only: per label, its wording's background level over the other labels'
    # examples (cosine units, mean 0); per label in ``have``, whether its wording joins its blend (1.0 or 0.0)
    wording_offsets: np.ndarray | None = None
    agrees: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        extra = sum(a.nbytes for a in (self.wording_offsets, self.agrees) if a is not None)
        return self.wording.nbytes + sum(v.nbytes for v in self.vectors) + extra


def label_sequences(spec: ModelSpec, task: Task) -> list[Seq]:
    """An embedding task's label inputs, in ``label_side``'s order: every phrasing, then every example."""
    hypotheses = [(spec.label_prefix + h, None) for hyps in task.hypotheses for h in hyps]
    return [*hypotheses, *((spec.text_prefix + e, None) for label in task.examples for e in label)]


def text_sequences(spec: ModelSpec, task: Task) -> list[Seq]:
    return [(spec.text_prefix + text, None) for text in task.texts]


def wording_of(task: Task) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """Per label, what its wording is for calibration: its hypotheses (the template is in them) and its
    examples. Two requests whose labels have the same wordings, in any order, share a record."""
    examples = task.examples or ((),) * len(task.hypotheses)
    return tuple(zip(task.hypotheses, examples))


def label_signature(task: Task) -> tuple:
    """What ``label_side`` depends on (a label set's strings are the same objects every time: cheap)."""
    return task.hypotheses, task.examples, task.example_rule, task.example_adaptive


def label_side(task: Task, rows: np.ndarray) -> LabelSide:
    sizes = [len(h) for h in task.hypotheses]
    rows = np.asarray(rows, dtype=np.float64)
    wording = np.stack([prompt_ensemble(g) for g in _groups(rows[: sum(sizes)], sizes)])
    if not any(task.examples):
        return LabelSide(wording)
    counts = [len(e) for e in task.examples]
    have = tuple(i for i, n in enumerate(counts) if n)
    groups = _groups(rows[sum(sizes) :], counts)
    prototypes = [prompt_ensemble(groups[i])[None, :] for i in have]
    vectors = tuple(groups[i] for i in have) if task.example_rule == "nearest" else tuple(prototypes)
    offsets = agrees = None
    if task.example_adaptive:
        if len(have) >= 2:
            owner = np.repeat(np.arange(len(counts)), counts)
            offsets = leave_own_out_offsets(rows[sum(sizes) :] @ wording.T, owner)
        agrees = wording_agrees(np.concatenate(prototypes), wording, have, [counts[i] for i in have], offsets)
    return LabelSide(wording, have, vectors, tuple(counts[i] for i in have), offsets, agrees)


def score_texts(
    spec: ModelSpec, task: Task, text_rows: np.ndarray, side: LabelSide, correction: Correction | None = None
) -> list[float]:
    """An embedding task's scores in label order from its text rows (one per window) and its label side;
    ``correction``: see the module (the wording's cosines are corrected before examples are blended in)."""
    text = np.asarray(text_rows, dtype=np.float64)
    cos = text @ side.wording.T  # [windows, labels]
    if task.example_adaptive and side.wording_offsets is not None:
        cos = cos - side.wording_offsets
    raw = spec.logit_scale * aggregate(cos, task.aggregation) if correction is not None else None
    shift = _shift(correction, raw, EMBEDDING_SPACE, cos.shape[1]) if raw is not None else None
    if shift is not None:  # offsets are in logit units: scale * cos
        cos = cos - shift / spec.logit_scale
    if side.have:
        have = list(side.have)
        if task.example_rule == "nearest":
            similarity = np.stack([(text @ v.T).max(axis=1) for v in side.vectors], axis=1)
        else:
            similarity = text @ np.concatenate(side.vectors).T  # one prototype per label
        weight = task.example_weight
        if task.example_adaptive and task.example_rule == "blend":  # per label, broadcast over the windows
            weight = blend_shares(weight, side.counts) * side.agrees
        cos[:, have] = example_evidence(similarity, cos[:, have], task.example_rule, weight, spec.example_shift)
    scores = embedding_finish(aggregate(cos, task.aggregation), spec.logit_scale, spec.multi_label_bias, task.pairwise)
    return scores.tolist()
