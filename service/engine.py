"""The zero-shot engine: one merged batch of requests in, one outcome per request out.

Pure Python + numpy: it knows the model kind, a tokenizer and a backend, and nothing of HTTP or BentoML.

For one merged batch it expands (text, label) work, de-duplicates identical sequences, tokenizes them in
one call, sorts by length, cuts micro-batches by a token budget, pads each micro-batch, runs the backend
and scatters rows back to the requests in their original order. A failure anywhere fails every request of
the batch with that error; no request is left without an outcome.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .backends.base import Backend
from .batching import pad, plan_micro_batches
from .model_spec import ModelSpec
from .scoring import embedding_scores, nli_scores
from .tokenization import Tokenizer


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
    pairs: int = 0  # (text, label) pairs asked for
    sequences: int = 0  # unique sequences actually sent through the model
    micro_batches: int = 0
    real_tokens: int = 0
    padded_tokens: int = 0
    tokenize_s: float = 0.0
    forward_s: float = 0.0
    budget_overflows: int = 0  # single sequences longer than the whole budget
    batch_shapes: list[tuple[int, int]] = field(default_factory=list)


class LabelVectorCache:
    """Bounded LRU of label-hypothesis embeddings, keyed by (template, label)."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._data: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> np.ndarray | None:
        with self._lock:
            vec = self._data.get(key)
            if vec is not None:
                self._data.move_to_end(key)
            return vec

    def put(self, key: tuple[str, str], vec: np.ndarray) -> None:
        if self._capacity <= 0:
            return
        with self._lock:
            self._data[key] = vec
            self._data.move_to_end(key)
            while len(self._data) > self._capacity:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


class Engine:
    def __init__(
        self,
        spec: ModelSpec,
        tokenizer: Tokenizer,
        backend: Backend,
        token_budget: int,
        max_rows: int | None = None,
        label_cache_size: int = 65536,
        batch_overhead_tokens: int = 64,
    ) -> None:
        self.spec = spec
        self.tokenizer = tokenizer
        self.backend = backend
        self.token_budget = token_budget
        self.max_rows = max_rows
        self.batch_overhead_tokens = batch_overhead_tokens
        self.label_cache = LabelVectorCache(label_cache_size)

    # -- public -------------------------------------------------------------------------------------
    def run(self, tasks: Sequence[Task]) -> tuple[list[Outcome], BatchStats]:
        stats = BatchStats(tasks=len(tasks), pairs=sum(len(t.labels) for t in tasks))
        if not tasks:
            return [], stats
        try:
            if self.spec.kind == "nli":
                scores = self._run_nli(tasks, stats)
            else:
                scores = self._run_embedding(tasks, stats)
        except Exception as exc:  # every request of the batch learns what happened
            return [Outcome(error=exc) for _ in tasks], stats
        return [Outcome(scores=s) for s in scores], stats

    def warmup(self) -> None:
        """Run the whole path once before the service reports ready. On a GPU, also one pass at the
        full token budget so the first real batch pays no allocation; on a CPU that would only cost
        seconds of start-up for nothing."""
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

    # -- model kinds --------------------------------------------------------------------------------
    def _run_nli(self, tasks: Sequence[Task], stats: BatchStats) -> list[list[float]]:
        index: dict[tuple[str, str], int] = {}
        task_rows: list[list[int]] = []
        for t in tasks:
            rows = []
            for label in t.labels:
                key = (t.text, t.template.format(label))
                rows.append(index.setdefault(key, len(index)))
            task_rows.append(rows)
        unique = list(index)
        t0 = time.perf_counter()
        enc = self.tokenizer.encode_pairs([p for p, _ in unique], [h for _, h in unique])
        stats.tokenize_s = time.perf_counter() - t0
        logits = self._forward_all(enc.ids, enc.type_ids, stats)
        spec = self.spec
        return [
            nli_scores(logits[rows], spec.entailment_index, spec.contradiction_index, t.multi_label).tolist()
            for t, rows in zip(tasks, task_rows)
        ]

    def _run_embedding(self, tasks: Sequence[Task], stats: BatchStats) -> list[list[float]]:
        # strings to encode: every distinct text + every label hypothesis not cached yet
        index: dict[str, int] = {}
        for t in tasks:
            index.setdefault(t.text, len(index))
        label_keys: dict[tuple[str, str], np.ndarray | int] = {}
        for t in tasks:
            for label in t.labels:
                key = (t.template, label)
                if key in label_keys:
                    continue
                cached = self.label_cache.get(key)
                if cached is not None:
                    label_keys[key] = cached
                else:
                    label_keys[key] = index.setdefault(t.template.format(label), len(index))
        strings = list(index)
        t0 = time.perf_counter()
        enc = self.tokenizer.encode_texts(strings)
        stats.tokenize_s = time.perf_counter() - t0
        vectors = self._forward_all(enc.ids, enc.type_ids, stats)
        for key, ref in label_keys.items():
            if isinstance(ref, int):
                vec = vectors[ref].copy()
                self.label_cache.put(key, vec)
                label_keys[key] = vec
        out = []
        for t in tasks:
            label_vecs = np.stack([label_keys[(t.template, lab)] for lab in t.labels])
            out.append(
                embedding_scores(
                    vectors[index[t.text]],
                    label_vecs,
                    self.spec.logit_scale,
                    self.spec.multi_label_bias,
                    t.multi_label,
                ).tolist()
            )
        return out

    # -- shared forward path ------------------------------------------------------------------------
    def _forward_all(self, ids: list[list[int]], type_ids: list[list[int]] | None, stats: BatchStats) -> np.ndarray:
        """Length-sort, plan by token budget, pad per micro-batch, run, and restore input order."""
        stats.sequences = len(ids)
        lengths = np.fromiter((len(s) for s in ids), dtype=np.int64, count=len(ids))
        order = np.argsort(lengths, kind="stable")
        sorted_lengths = lengths[order].tolist()
        out: np.ndarray | None = None
        t0 = time.perf_counter()
        for chunk in plan_micro_batches(sorted_lengths, self.token_budget, self.max_rows, self.batch_overhead_tokens):
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
