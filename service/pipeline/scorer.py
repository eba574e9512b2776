"""Tasks in, scores out: every model row a task needs is looked up in the cache tiers first (in-process,
then Redis), only the missing sequences go to the batcher, and what it computes is remembered in both.

A row comes from the batcher with its sequence's token count as its last value (``engine.batcher
.with_tokens``: what the engine measured), and is kept so in the tiers: each task's answer says how many
tokens each of its sequences is, and which of them this call computed, without counting them again.

**Close calls** (a model served below fp32, with its fp32 copy beside: ``submit_reference``): label rows
come from the fp32 copy (computed once, read by every answer), and a task whose two best labels end within
``close_call_margin`` of each other is scored again with its text rows from the fp32 copy. Those exact rows
are kept under keys of their own (the model's kind + ``-fp32``), beside the fast ones, in both tiers: a clear
answer reads the fast rows and a close one the exact rows on every replica, whatever each computed before,
and a repeated close call is not computed again.

No BentoML here: the batcher is given as ``submit`` (an async callable: sequences -> rows).
"""

from __future__ import annotations

import heapq
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from service.core.model_spec import ModelSpec
from service.core.task import (
    Correction,
    LabelSide,
    Seq,
    Task,
    label_side,
    label_signature,
    score,
    score_texts,
    sequences_for,
    text_sequences,
)
from service.obs import metrics
from service.obs.request_context import count_pairs
from service.obs.tracing import tracer
from service.pipeline.cache import LocalTier, RedisTier, RedisUnavailable, cache_key


@dataclass(frozen=True)
class RememberedSide:
    side: LabelSide
    tokens: dict[Seq, int]  # the label sequences' token counts (a call's usage reads them)


class LabelSides:
    """The label sides of recent label signatures (an embedding model's): a label set, or labels a client
    sends again and again, then costs one matrix product per text instead of a cache lookup per phrasing
    and example and their means. LRU, bounded by bytes; one model revision per scorer, so never stale."""

    def __init__(self, max_bytes: int = 64 * 2**20) -> None:
        self.max_bytes = max_bytes
        self._data: OrderedDict[tuple, RememberedSide] = OrderedDict()
        self._bytes = 0

    def get(self, signature: tuple) -> RememberedSide | None:
        found = self._data.get(signature)
        if found is not None:
            self._data.move_to_end(signature)
        return found

    def put(self, signature: tuple, remembered: RememberedSide) -> None:
        if remembered.side.nbytes > self.max_bytes or signature in self._data:
            return
        self._data[signature] = remembered
        self._bytes += remembered.side.nbytes
        while self._bytes > self.max_bytes:
            _, old = self._data.popitem(last=False)
            self._bytes -= old.side.nbytes


@dataclass
class Scored:
    scores: list[float]  # in the task's label order
    cache: str  # hit | partial | miss
    fresh: frozenset[Seq] = frozenset()  # the task's sequences this call computed (the rest came from the cache)
    tokens: dict[Seq, int] = field(default_factory=dict)  # each of the task's sequences' tokens, as measured


class CachedScorer:
    def __init__(
        self,
        spec: ModelSpec,
        submit: Callable[[list[Seq]], Awaitable[Sequence]],
        local: LocalTier,
        labels: LocalTier,
        redis: RedisTier | None = None,
        prefix: str = "zsc",
        row_width: int | None = None,
        submit_reference: Callable[[list[Seq]], Awaitable[Sequence]] | None = None,
        close_call_margin: float = 0.0,
    ) -> None:
        self.spec = spec
        self._submit = submit
        self._submit_reference = submit_reference
        self.close_call_margin = close_call_margin if submit_reference is not None else 0.0
        self.local = local
        self.labels = labels  # label embeddings (embedding models): kept apart so text churn cannot evict them
        self.redis = redis
        self.prefix = prefix
        self.row_width = row_width
        self.sides = LabelSides()

    @property
    def stored_width(self) -> int | None:
        """A stored row's length: the model's row and its token count."""
        return None if self.row_width is None else self.row_width + 1

    def _key(self, seq: Seq) -> str:
        return cache_key(self.prefix, self.spec.revision, self.spec.kind, seq)

    def _exact_key(self, seq: Seq) -> str:
        """Where the fp32 copy's row of a close call's sequence is kept, beside the fast one."""
        return cache_key(self.prefix, self.spec.revision, f"{self.spec.kind}-fp32", seq)

    async def scores(self, tasks: Sequence[Task], corrections: Sequence[Correction | None] = ()) -> list[Scored]:
        """Each task's scores; ``corrections``: per task, its calibration (``core.task``), or None."""
        plans: list[tuple[list[str], RememberedSide | None]] = []
        seq_of: dict[str, Seq] = {}
        label_keys: set[str] = set()
        embedding = self.spec.kind == "embedding"
        for task in tasks:
            side = self.sides.get(label_signature(task)) if embedding else None
            seqs = text_sequences(self.spec, task) if side is not None else sequences_for(self.spec, task)
            keys = [self._key(s) for s in seqs]
            plans.append((keys, side))
            seq_of.update(zip(keys, seqs))
            if embedding and side is None:
                label_keys.update(keys[len(task.texts) :])  # after the text (or its windows)
        keys = list(seq_of)
        count_pairs(sum(t.text_pairs for t in tasks))

        with tracer().start_as_current_span("cache.local") as span:
            rows = self.labels.get_many(k for k in keys if k in label_keys)
            rows.update(self.local.get_many(k for k in keys if k not in label_keys))
            span.set_attributes({"zsc.lookups": len(keys), "zsc.hits": len(rows)})
        metrics.cache_lookup("local", hits=len(rows), misses=len(keys) - len(rows))
        missing = [k for k in keys if k not in rows]
        if missing and self.redis is not None:
            with tracer().start_as_current_span("cache.redis", attributes={"zsc.lookups": len(missing)}):
                await self._from_redis(missing, rows, label_keys)

        computed = [k for k in keys if k not in rows]
        await self._compute(computed, seq_of, rows, label_keys)
        computed_set = set(computed)
        out = []
        corrections = list(corrections) or [None] * len(tasks)
        for task, (plan, remembered), correction in zip(tasks, plans, corrections):
            fresh_keys = [k for k in plan if k in computed_set]
            fresh = frozenset(seq_of[k] for k in fresh_keys)
            everything = len(fresh_keys) == len(plan) and remembered is None  # a remembered side was cached
            status = "hit" if not fresh_keys else "miss" if everything else "partial"
            metrics.cache_response(status)
            scores, tokens = self._score(task, plan, remembered, correction, rows, seq_of)
            out.append(Scored(scores, status, fresh, tokens))
        if self.close_call_margin > 0:
            await self._recheck_close_calls(tasks, plans, corrections, out, rows, seq_of, label_keys)
        return out

    async def _compute(self, keys: list[str], seq_of: dict[str, Seq], rows: dict, label_keys: set[str]) -> None:
        """The rows no tier had, through the batcher (label rows from the fp32 copy when there is one), into
        ``rows`` and both tiers."""
        groups = [(keys, self._submit)]
        if self._submit_reference is not None:
            texts, labels = [k for k in keys if k not in label_keys], [k for k in keys if k in label_keys]
            groups = [(texts, self._submit), (labels, self._submit_reference)]
        for group, submit in groups:
            if group:
                self._store(group, await submit([seq_of[k] for k in group]), rows, label_keys)

    def _store(self, keys: list[str], new: Sequence, rows: dict, label_keys: set[str]) -> None:
        fresh = [(k, np.asarray(r, dtype=np.float32)) for k, r in zip(keys, new)]
        rows.update(fresh)
        self._remember(fresh, label_keys)
        if self.redis is not None:
            self.redis.put_many_later(fresh, on_error=lambda exc: metrics.cache_error("redis", "write"))

    def _score(
        self,
        task: Task,
        plan: list[str],
        remembered: RememberedSide | None,
        correction: Correction | None,
        rows: dict,
        seq_of: dict[str, Seq],
    ) -> tuple[list[float], dict[Seq, int]]:
        """A task's scores from its rows, and each of its sequences' token count."""
        stored = np.stack([rows[k] for k in plan])
        block = np.ascontiguousarray(stored[:, :-1])  # the model's rows; their token counts apart
        tokens = {seq_of[k]: int(n) for k, n in zip(plan, stored[:, -1])}
        if self.spec.kind != "embedding":
            return score(self.spec, task, block, correction), tokens
        windows = len(task.texts)
        if remembered is None:
            labels = {seq_of[k]: tokens[seq_of[k]] for k in plan[windows:]}
            remembered = RememberedSide(label_side(task, block[windows:]), labels)
            self.sides.put(label_signature(task), remembered)
        tokens.update(remembered.tokens)
        return score_texts(self.spec, task, block[:windows], remembered.side, correction), tokens

    async def _recheck_close_calls(
        self,
        tasks: Sequence[Task],
        plans: list[tuple[list[str], RememberedSide | None]],
        corrections: Sequence[Correction | None],
        out: list[Scored],
        rows: dict,
        seq_of: dict[str, Seq],
        label_keys: set[str],
    ) -> None:
        """Close calls scored again with their text rows from the fp32 copy (an NLI model's every pair: a
        pair is the text and a label), read from the tiers under their own keys or computed there."""
        close = [i for i, scored in enumerate(out) if close_call(scored.scores, self.close_call_margin)]
        if not close:
            return
        texts = list(dict.fromkeys(k for i in close for k in plans[i][0] if k not in label_keys))
        exact_key = {k: self._exact_key(seq_of[k]) for k in texts}
        exact = self.local.get_many(exact_key.values())
        missing = [exact_key[k] for k in texts if exact_key[k] not in exact]
        if missing and self.redis is not None:
            await self._from_redis(missing, exact, set())
        computed = [k for k in texts if exact_key[k] not in exact]
        if computed:
            keys = [exact_key[k] for k in computed]
            self._store(keys, await self._submit_reference([seq_of[k] for k in computed]), exact, set())
        exact_rows = {**rows, **{k: exact[exact_key[k]] for k in texts}}
        for i in close:
            plan, remembered = plans[i]
            out[i].scores, _ = self._score(tasks[i], plan, remembered, corrections[i], exact_rows, seq_of)

    async def _from_redis(self, missing: list[str], rows: dict, label_keys: set[str]) -> None:
        t0 = time.perf_counter()
        try:
            result = await self.redis.get_many(missing, self.stored_width)
        except RedisUnavailable:
            metrics.cache_error("redis", "read")
            result = None
        finally:
            metrics.breaker_state("redis", self.redis.breaker.state)
        if result is None:  # failed, or skipped while the breaker is open
            return
        metrics.cache_latency("redis", time.perf_counter() - t0)
        found, garbage = result
        if garbage:
            metrics.cache_error("redis", "garbage", garbage)
        metrics.cache_lookup("redis", hits=len(found), misses=len(missing) - len(found))
        rows.update(found)
        self._remember(list(found.items()), label_keys)

    def _remember(self, items: list[tuple[str, np.ndarray]], label_keys: set[str]) -> None:
        self.labels.put_many((k, r) for k, r in items if k in label_keys)
        self.local.put_many((k, r) for k, r in items if k not in label_keys)


def close_call(scores: Sequence[float], margin: float) -> bool:
    """Whether the two best labels are within ``margin`` of each other."""
    if len(scores) < 2:
        return False
    first, second = heapq.nlargest(2, scores)
    return first - second < margin
