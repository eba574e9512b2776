"""The one seam between the HTTP layer and the model: validated requests in, answers out.

``/classify``, ``/classify_batch``, the Hugging Face route and the job worker all call ``classify``:

    resolve label sets -> prepare (windows, limits, warnings) -> cached scorer (cache tiers, adaptive
    batcher, engine) -> answer (ranking, decision)

A call is one unit (``job=False``): any request that breaks a rule fails the call, and the pair limit is
counted over all of it. A slice of a job's items (``job=True``) is not: each item is checked on its own and
one the service rejects gets its error in its place while the others are answered; job calls also do not
count as interactive traffic, which the job worker yields to (``interactive_busy``). A failure of the
model (``BackendFailure``) or of the batcher (``Overloaded``) fails the whole call either way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import anyio

from service.api.classify import ClassifyRequest, ClassifyResponse
from service.core.model_spec import ModelSpec
from service.engine.tokenization import Tokenizer
from service.errors import ServiceError
from service.pipeline.answer import answer
from service.pipeline.label_sets import LabelSet, Resolved, resolve
from service.pipeline.prepare import PreparedRequest, needs_tokenizer, prepare_call
from service.pipeline.scorer import CachedScorer

INTERACTIVE_GRACE_S = 0.5  # jobs keep yielding this long after the last interactive request ends


@dataclass(frozen=True)
class Answers:
    """What one call gets back, in request order: an answer, or (job items only) the error in its place."""

    results: list[ClassifyResponse | ServiceError]
    cache: str  # hit | partial | miss: whether the call's model rows all came from the cache, some, or none
    warnings: list[str]  # the codes of the answers' warnings, sorted


def merged_cache(statuses) -> str:
    """One call's cache status from its parts' (requests, or a call's models): hit or miss when all agree,
    partial otherwise, miss for none."""
    seen = set(statuses)
    return seen.pop() if len(seen) == 1 else "partial" if seen else "miss"


@dataclass(frozen=True)
class Limits:
    max_windows: int  # ZSC_MAX_WINDOWS
    max_pairs: int  # ZSC_MAX_PAIRS_PER_REQUEST
    max_examples: int = 1024  # ZSC_MAX_EXAMPLES_PER_REQUEST


class Pipeline:
    def __init__(
        self,
        model_tag: str,
        spec: ModelSpec,
        tokenizer: Tokenizer,
        scorer: CachedScorer,
        label_sets: dict[str, LabelSet],
        limits: Limits,
    ) -> None:
        self.model_tag = model_tag
        self.spec = spec
        self.tokenizer = tokenizer
        self.scorer = scorer
        self.label_sets = label_sets
        self.limits = limits
        self._interactive = 0  # interactive calls in flight
        self._interactive_seen = 0.0  # when the last one ended (time.monotonic)
        self.in_flight = 0  # every call in flight, jobs' too: a replaced model is retired once it is 0

    def resolve(self, request: ClassifyRequest) -> Resolved:
        """The request with its label set's fields filled in (``LabelSetNotFound`` for a set not held)."""
        return resolve(request, self.label_sets, self.model_tag, self.spec.revision)

    async def classify(self, requests: Sequence[ClassifyRequest | Resolved], job: bool = False) -> Answers:
        """Answers for validated requests (or ones already resolved: a job's items are resolved at intake)."""
        self.in_flight += 1
        if not job:
            self._interactive += 1
        try:
            return await self._classify(requests, job)
        finally:
            self.in_flight -= 1
            if not job:
                self._interactive -= 1
                self._interactive_seen = time.monotonic()

    def close(self) -> None:
        """Let go of the model (its scorer, batcher, engine and tokenizer): a retired pipeline answers
        nothing, and what it held can be collected."""
        self.scorer = None  # type: ignore[assignment]
        self.tokenizer = None  # type: ignore[assignment]

    def interactive_busy(self) -> bool:
        """Whether interactive calls are in flight, or ended a moment ago (the job worker yields then)."""
        return self._interactive > 0 or time.monotonic() - self._interactive_seen < INTERACTIVE_GRACE_S

    async def _classify(self, requests: Sequence[ClassifyRequest | Resolved], job: bool) -> Answers:
        resolved = [self._resolved(r, job) for r in requests]
        ok = [r for r in resolved if isinstance(r, Resolved)]
        if job:  # each item on its own: its own limits, its own error

            def work() -> list[PreparedRequest | ServiceError]:
                return [r if isinstance(r, ServiceError) else self._prepare_alone(r) for r in resolved]
        else:

            def work() -> list[PreparedRequest | ServiceError]:
                return list(self._prepare_call(ok))

        if any(needs_tokenizer(r.request, self.spec, self.tokenizer) for r in ok):
            prepared = await anyio.to_thread.run_sync(work)  # long texts are measured: off the event loop
        else:
            prepared = work()
        ready = [p for p in prepared if isinstance(p, PreparedRequest)]
        scored = iter(await self.scorer.scores([p.task for p in ready]))
        results: list[ClassifyResponse | ServiceError] = []
        statuses: set[str] = set()
        for p in prepared:
            if isinstance(p, ServiceError):
                results.append(p)
                continue
            s = next(scored)
            statuses.add(s.cache)
            results.append(answer(p, s.scores, self.model_tag, self.spec.revision))
        warnings = sorted({w.code for p in ready for w in p.warnings})
        return Answers(results, merged_cache(statuses), warnings)

    def _prepare_call(self, resolved: Sequence[Resolved]) -> list[PreparedRequest]:
        limits = self.limits
        return prepare_call(
            resolved, self.spec, self.tokenizer, limits.max_windows, limits.max_pairs, limits.max_examples
        )

    def _resolved(self, request: ClassifyRequest | Resolved, job: bool) -> Resolved | ServiceError:
        if isinstance(request, Resolved):
            return request
        try:
            return self.resolve(request)
        except ServiceError as exc:
            if not job:
                raise
            return exc

    def _prepare_alone(self, resolved: Resolved) -> PreparedRequest | ServiceError:
        try:
            [prepared] = self._prepare_call([resolved])
        except ServiceError as exc:
            return exc
        return prepared
