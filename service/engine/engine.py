"""The zero-shot engine: model sequences in, model rows out.

Pure Python + numpy: it knows the model kind, a tokenizer and a backend, and nothing of HTTP, BentoML or
caching. ``encode`` is the hot path: it de-duplicates identical sequences, tokenizes them in one call,
sorts by length, cuts micro-batches by a token budget, pads each micro-batch, runs the backend and
scatters rows back in input order. An exception raised here fails the whole merged batch it was called
for (the batcher hands it to every request in it). ``scores`` is the one synchronous shortcut from tasks
to scores (no cache, no batcher): warm-up, import checks and benchmarks.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from service.backends.base import Backend, start_forward
from service.core.microbatch import pad, plan_micro_batches
from service.core.model_spec import ModelSpec
from service.core.task import Seq, Task, score, sequences_for
from service.engine.tokenization import Tokenizer


@dataclass
class BatchStats:
    sequences_in: int = 0  # sequences asked for, duplicates included
    sequences: int = 0  # unique sequences actually sent through the model
    micro_batches: int = 0
    real_tokens: int = 0
    padded_tokens: int = 0
    tokenize_s: float = 0.0
    forward_s: float = 0.0
    budget_overflows: int = 0  # single sequences longer than the whole budget
    batch_shapes: list[tuple[int, int]] = field(default_factory=list)
    # tokens of each input sequence, in input order, as the model read them (special tokens included, cut
    # to the window): what a call reports as its usage, measured by the one tokenization
    tokens: np.ndarray | None = None


@dataclass(eq=False, repr=False)  # an engine is itself: compared and shown by identity
class Engine:
    spec: ModelSpec
    tokenizer: Tokenizer
    backend: Backend
    token_budget: int
    max_rows: int | None = None
    batch_overhead_tokens: int = 64
    # the same model in fp32 beside a backend that computes below it: close calls are computed again there
    reference: Backend | None = None
    pad_multiple: int = field(init=False)

    def __post_init__(self) -> None:
        # fp16 tensor-core kernels want dimensions in multiples of 8; a CPU gains nothing from the padding
        self.pad_multiple = 8 if getattr(self.backend, "device", "cpu") == "cuda" else 1

    # -- tasks --------------------------------------------------------------------------------------
    def scores(self, tasks: Sequence[Task]) -> list[list[float]]:
        """Scores of whole tasks, each in its label order, in one synchronous call (no cache, no batcher)."""
        if not tasks:
            return []
        per_task = [sequences_for(self.spec, t) for t in tasks]
        rows, _ = self.encode([s for seqs in per_task for s in seqs])
        out, start = [], 0
        for task, seqs in zip(tasks, per_task):
            out.append(score(self.spec, task, rows[start : start + len(seqs)]))
            start += len(seqs)
        return out

    def warmup(self) -> int:
        """Run the whole path once before the service reports ready (the fp32 copy too); returns the row
        width. On a GPU, also one pass at the full token budget so the first real batch pays no allocation;
        on a CPU that would only cost seconds of start-up for nothing."""
        tasks = [Task.of(f"warm-up text {i}", ("a", "b"), self.spec.default_template) for i in range(4)]
        if self.backend.device != "cpu":
            length = min(self.tokenizer.max_length, 128)
            rows = max(1, min(self.max_rows or 256, self.token_budget // length))
            words = " ".join(["warm"] * length)
            tasks += [Task.of(f"{words} {i}", ("x",), self.spec.default_template) for i in range(rows)]
        self.scores(tasks)
        first = self.prepare(sequences_for(self.spec, tasks[0])[:1])
        if self.reference is not None:  # its first pass pays its lazy set-up, not a close call's answer
            self.run(first, reference=True)
        rows, _ = self.run(first)
        return int(rows.shape[1])

    def measure_overhead(self, length: int = 16, repeats: int = 3) -> int:
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
        return self.run(self.prepare(sequences))

    def prepare(self, sequences: Sequence[Seq]) -> PlannedBatch:
        """The CPU half: de-duplicate, tokenize in one call, sort by length, plan the micro-batches."""
        stats = BatchStats(sequences_in=len(sequences))
        index: dict[Seq, int] = {}
        slots = [index.setdefault(s, len(index)) for s in sequences]
        unique = list(index)
        t0 = time.perf_counter()
        if self.spec.kind == "nli":
            enc = self.tokenizer.encode_pairs([a for a, _ in unique], [b or "" for _, b in unique])
        else:
            enc = self.tokenizer.encode_texts([a for a, _ in unique])
        lengths = np.fromiter((len(s) for s in enc.ids), dtype=np.int64, count=len(enc.ids))
        order = np.argsort(lengths, kind="stable")
        sorted_lengths = lengths[order].tolist()
        m = self.pad_multiple
        padded = [-(-n // m) * m for n in sorted_lengths] if m > 1 else sorted_lengths
        plan = plan_micro_batches(padded, self.token_budget, self.max_rows, self.batch_overhead_tokens)
        stats.tokenize_s = time.perf_counter() - t0
        stats.sequences = len(enc.ids)
        stats.tokens = lengths[slots]
        return PlannedBatch(slots, enc.ids, enc.type_ids, order, sorted_lengths, plan, stats)

    def run(self, prepared: PlannedBatch, reference: bool = False) -> tuple[np.ndarray, BatchStats]:
        """The device half: pad each micro-batch, run it, and restore input order. The next micro-batch is
        padded while the device computes the current one (an asynchronous backend, see backends.base).
        ``reference``: on the fp32 backend (``self.reference``) instead."""
        p, stats = prepared, prepared.stats
        backend = self.reference if reference else self.backend
        if backend is None:
            raise RuntimeError("no fp32 reference backend is loaded")
        out: np.ndarray | None = None
        in_flight: deque = deque()

        def collect() -> None:
            nonlocal out
            rows, batch, pending = in_flight.popleft()
            result = np.asarray(pending.result())
            if result.shape[0] != batch.rows:
                raise RuntimeError(f"backend {backend.name} returned {result.shape[0]} rows for {batch.rows}")
            if out is None:
                out = np.empty((len(p.ids), *result.shape[1:]), dtype=np.float32)
            out[rows] = result

        t0 = time.perf_counter()
        for chunk in p.plan:
            rows = p.order[chunk.start : chunk.stop]
            types = [p.type_ids[i] for i in rows] if p.type_ids is not None else None
            batch = pad([p.ids[i] for i in rows], types, self.tokenizer.pad_id, self.pad_multiple)
            in_flight.append((rows, batch, start_forward(backend, batch)))
            if len(in_flight) > 1:
                collect()
            stats.micro_batches += 1
            stats.padded_tokens += batch.padded_tokens
            stats.real_tokens += int(sum(p.sorted_lengths[chunk.start : chunk.stop]))
            stats.budget_overflows += int(batch.padded_tokens > self.token_budget)
            stats.batch_shapes.append((batch.rows, batch.input_ids.shape[1]))
        while in_flight:
            collect()
        stats.forward_s = time.perf_counter() - t0
        assert out is not None
        return out[p.slots], stats


@dataclass
class PlannedBatch:
    """A merged batch tokenized and planned, ready for the device."""

    slots: list[int]  # input position -> unique sequence
    ids: list[list[int]]
    type_ids: list[list[int]] | None
    order: np.ndarray  # unique sequences by length
    sorted_lengths: list[int]
    plan: list[range]  # micro-batches over ``order``
    stats: BatchStats
