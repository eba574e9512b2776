"""The zero-shot engine: model sequences in, model rows out; requests in, scores out.

Pure Python + numpy: it knows the model kind, a tokenizer and a backend, and nothing of HTTP, BentoML or
caching. ``encode`` is the hot path: it de-duplicates identical sequences, tokenizes them in one call,
sorts by length, cuts micro-batches by a token budget, pads each micro-batch, runs the backend and
scatters rows back in input order. ``run`` expands whole requests into sequences and scores them.
A failure anywhere fails every request of the batch with that error; no request is left without an outcome.

Sequences: an NLI pair is ``(text, hypothesis)``; an embedding input is ``(string, None)``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .backends.base import Backend
from .batching import pad, plan_micro_batches
from .model_spec import ModelSpec
from .scoring import embedding_scores, nli_scores
from .tokenization import Tokenizer

Seq = tuple[str, str | None]


@dataclass(frozen=True)
class Task:
    """One classification: a text, its candidate labels (unique), a template with ``{}``."""

    text: str
    labels: tuple[str, ...]
    template: str
    multi_label: bool = False


@dataclass
class Outcome:
    """Scores in the task's label order, or the error that prevented them."""

    scores: list[float] | None = None
    error: BaseException | None = None


@dataclass
class BatchStats:
    tasks: int = 0
    sequences_in: int = 0  # sequences asked for, duplicates included
    sequences: int = 0  # unique sequences actually sent through the model
    micro_batches: int = 0
    real_tokens: int = 0
    padded_tokens: int = 0
    tokenize_s: float = 0.0
    forward_s: float = 0.0
    budget_overflows: int = 0  # single sequences longer than the whole budget
    batch_shapes: list[tuple[int, int]] = field(default_factory=list)


def sequences_for(spec: ModelSpec, task: Task) -> list[Seq]:
    """The model inputs one task needs, in the order ``score`` expects them."""
    if spec.kind == "nli":
        return [(task.text, task.template.format(label)) for label in task.labels]
    return [(task.text, None)] + [(task.template.format(label), None) for label in task.labels]


def score(spec: ModelSpec, task: Task, rows: np.ndarray) -> list[float]:
    """Scores in label order from the rows of ``sequences_for(spec, task)``."""
    if spec.kind == "nli":
        return nli_scores(rows, spec.entailment_index, spec.contradiction_index, task.multi_label).tolist()
    return embedding_scores(rows[0], rows[1:], spec.logit_scale, spec.multi_label_bias, task.multi_label).tolist()


class Engine:
    def __init__(
        self,
        spec: ModelSpec,
        tokenizer: Tokenizer,
        backend: Backend,
        token_budget: int,
        max_rows: int | None = None,
        batch_overhead_tokens: int = 64,
    ) -> None:
        self.spec = spec
        self.tokenizer = tokenizer
        self.backend = backend
        self.token_budget = token_budget
        self.max_rows = max_rows
        self.batch_overhead_tokens = batch_overhead_tokens

    # -- requests -----------------------------------------------------------------------------------
    def run(self, tasks: Sequence[Task]) -> tuple[list[Outcome], BatchStats]:
        """Score whole tasks (no caching): expand, encode once, score each."""
        if not tasks:
            return [], BatchStats()
        per_task = [sequences_for(self.spec, t) for t in tasks]
        flat = [s for seqs in per_task for s in seqs]
        try:
            rows, stats = self.encode(flat)
            out, start = [], 0
            for task, seqs in zip(tasks, per_task):
                out.append(Outcome(scores=score(self.spec, task, rows[start : start + len(seqs)])))
                start += len(seqs)
        except Exception as exc:  # every request of the batch learns what happened
            return [Outcome(error=exc) for _ in tasks], BatchStats(tasks=len(tasks), sequences_in=len(flat))
        stats.tasks = len(tasks)
        return out, stats

    def warmup(self) -> int:
        """Run the whole path once before the service reports ready; returns the row width. On a GPU,
        also one pass at the full token budget so the first real batch pays no allocation; on a CPU
        that would only cost seconds of start-up for nothing."""
        tasks = [Task(f"warm-up text {i}", ("a", "b"), self.spec.default_template) for i in range(4)]
        if self.backend.device != "cpu":
            length = min(self.tokenizer.max_length, 128)
            rows = max(1, min(self.max_rows or 256, self.token_budget // length))
            words = " ".join(["warm"] * length)
            tasks += [Task(f"{words} {i}", ("x",), self.spec.default_template) for i in range(rows)]
        outcomes, _ = self.run(tasks)
        for o in outcomes:
            if o.error is not None:
                raise o.error
        rows, _ = self.encode(sequences_for(self.spec, tasks[0])[:1])
        return int(rows.shape[1])

    def calibrate(self, length: int = 16, repeats: int = 3) -> int:
        """Measure the fixed cost of one forward pass in token equivalents (time = a + b * tokens) and use
        it to plan micro-batches: large on a GPU or with per-call framework overhead, small for a
        runtime that stays efficient at small batches."""
        import statistics

        ids = [[self.tokenizer.pad_id + 1] * length]
        points = []
        for rows in (1, 2, 8):
            batch = pad(ids * rows, [[0] * length] * rows if self.tokenizer.has_types else None, self.tokenizer.pad_id)
            self.backend.forward(batch)
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                self.backend.forward(batch)
                times.append(time.perf_counter() - t0)
            points.append((rows * length, statistics.median(times)))
        tokens = np.array([p[0] for p in points], dtype=np.float64)
        seconds = np.array([p[1] for p in points])
        b, a = np.polyfit(tokens, seconds, 1)
        overhead = int(np.clip(a / b if b > 0 else self.token_budget, 0, self.token_budget // 2))
        self.batch_overhead_tokens = overhead
        return overhead

    # -- sequences ----------------------------------------------------------------------------------
    def encode(self, sequences: Sequence[Seq]) -> tuple[np.ndarray, BatchStats]:
        """One row per input sequence (logits or embedding), identical sequences computed once."""
        stats = BatchStats(sequences_in=len(sequences))
        index: dict[Seq, int] = {}
        slots = [index.setdefault(s, len(index)) for s in sequences]
        unique = list(index)
        t0 = time.perf_counter()
        if self.spec.kind == "nli":
            enc = self.tokenizer.encode_pairs([a for a, _ in unique], [b or "" for _, b in unique])
        else:
            enc = self.tokenizer.encode_texts([a for a, _ in unique])
        stats.tokenize_s = time.perf_counter() - t0
        rows = self._forward_all(enc.ids, enc.type_ids, stats)
        return rows[slots], stats

    def _forward_all(self, ids: list[list[int]], type_ids: list[list[int]] | None, stats: BatchStats) -> np.ndarray:
        """Length-sort, plan by token budget, pad per micro-batch, run, and restore input order."""
        stats.sequences = len(ids)
        lengths = np.fromiter((len(s) for s in ids), dtype=np.int64, count=len(ids))
        order = np.argsort(lengths, kind="stable")
        sorted_lengths = lengths[order].tolist()
        out: np.ndarray | None = None
        t0 = time.perf_counter()
        plan = plan_micro_batches(sorted_lengths, self.token_budget, self.max_rows, self.batch_overhead_tokens)
        for chunk in plan:
            rows = order[chunk.start : chunk.stop]
            batch = pad(
                [ids[i] for i in rows],
                [type_ids[i] for i in rows] if type_ids is not None else None,
                self.tokenizer.pad_id,
            )
            result = np.asarray(self.backend.forward(batch))
            if result.shape[0] != batch.rows:
                raise RuntimeError(f"backend {self.backend.name} returned {result.shape[0]} rows for {batch.rows}")
            if out is None:
                out = np.empty((len(ids), *result.shape[1:]), dtype=np.float32)
            out[rows] = result
            stats.micro_batches += 1
            stats.padded_tokens += batch.padded_tokens
            stats.real_tokens += int(sum(sorted_lengths[chunk.start : chunk.stop]))
            stats.budget_overflows += int(batch.padded_tokens > self.token_budget)
            stats.batch_shapes.append((batch.rows, batch.input_ids.shape[1]))
        stats.forward_s = time.perf_counter() - t0
        assert out is not None
        return out
