"""The one seam between the HTTP layer and the model: validated requests in, answers out.

``/classify``, ``/classify_batch``, the Hugging Face route and the job worker all call ``classify``:

    resolve label sets -> prepare (windows, limits, warnings) -> cached scorer (cache tiers, adaptive
    batcher, engine; each text's calibration between its raw evidence and its scores) -> answer (ranking,
    decision, the calibration applied)

A call is one unit (``job=False``): its requests are resolved and checked here (``prepare.check_call``),
any request that breaks a rule fails the call, and the pair limit is counted over all of it. A slice of a
job's items (``job=True``) is not: its items were resolved and checked when the job was submitted and are
not checked again; what needs the tokenizer is checked per item, and one the service rejects gets its
error in its place while the others are answered; job calls also do not count as interactive traffic,
which the job worker yields to (``interactive_busy``). A failure of the model (``BackendFailure``) or of
the batcher (``Overloaded``) fails the whole call either way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import anyio

from service.api.classify import ClassifyResponse
from service.api.limits import RequestLimits
from service.core.classification import Classification
from service.core.model_spec import ModelSpec
from service.core.task import Task, space_of
from service.engine.tokenization import Tokenizer
from service.errors import ServiceError
from service.obs import metrics
from service.pipeline import calibration
from service.pipeline.answer import answer
from service.pipeline.calibration import JobCalibration, TrafficCalibration
from service.pipeline.call import Call, Sender
from service.pipeline.label_sets import LabelSet, Resolved, resolve
from service.pipeline.prepare import Plan, PreparedRequest, check_call, plan, prepare_call
from service.pipeline.scorer import CachedScorer
from service.pipeline.usage import TokenUsage

INTERACTIVE_GRACE_S = 0.5  # jobs keep yielding this long after the last interactive request ends


@dataclass(frozen=True)
class Answers:
    """What one call gets back, in request order: an answer, or (job items only) the error in its place."""

    results: list[ClassifyResponse | ServiceError]
    cache: str  # hit | partial | miss: whether the call's model rows all came from the cache, some, or none
    warnings: list[str]  # the codes of the answers' warnings, sorted
    usage: TokenUsage | None = None  # the tokens the model read for the call, when asked for (``usage=True``)


def merged_cache(statuses) -> str:
    """One call's cache status from its parts' (requests, or a call's models): hit or miss when all agree,
    partial otherwise, miss for none."""
    seen = set(statuses)
    return seen.pop() if len(seen) == 1 else "partial" if seen else "miss"


@dataclass(eq=False, repr=False)  # a pipeline is itself: compared and shown by identity
class Pipeline:
    model_tag: str
    spec: ModelSpec
    tokenizer: Tokenizer
    scorer: CachedScorer
    label_sets: dict[str, LabelSet]
    limits: RequestLimits
    traffic: TrafficCalibration  # this model's traffic calibration records
    _interactive: int = field(default=0, init=False)  # interactive calls in flight
    _interactive_seen: float = field(default=0.0, init=False)  # when the last one ended (time.monotonic)
    in_flight: int = field(
        default=0, init=False
    )  # every call in flight, jobs' too: a replaced model is retired once it is 0

    def resolve(self, request: Classification, pin: str | None = None) -> Resolved:
        """The request with its label set's fields filled in (``LabelSetNotFound`` for a set not held);
        ``pin``: the model name written into it."""
        return resolve(request, self.label_sets, self.model_tag, self.spec.revision, pin)

    def checked(self, request: Classification, pin: str | None = None) -> Resolved:
        """Resolved and checked as a call of its own (``UnprocessableRequest``): a job item at submission."""
        resolved = self.resolve(request, pin)
        check_call([resolved], self.limits)
        return resolved

    async def classify(self, call: Call) -> Answers:
        """Answers for a call's classifications, in its order (``Answers.usage`` when it asks for usage)."""
        self.in_flight += 1
        if not call.job:
            self._interactive += 1
        try:
            return await self._classify(call.items, call.job, call.job_calibration, call.usage, call.sender)
        finally:
            self.in_flight -= 1
            if not call.job:
                self._interactive -= 1
                self._interactive_seen = time.monotonic()

    async def label_set_calibration(self, name: str, key: str | None = None) -> dict:
        """A label set's calibration as GET /label_sets shows it to a caller (``key``: the id of its API key): a
        traffic one with the texts its own wording has seen on this model in the scope the caller's requests
        use (every replica's, with Redis), and this process's records of it in the scopes the caller may see."""
        found = self.label_sets[name]
        summary = found.calibration_summary(self.model_tag, self.spec.revision)
        if summary["mode"] != "traffic":
            return summary
        planned = plan(self.resolve(Classification("-", label_set=name)), self.spec, self.tokenizer)
        examples = tuple(label.examples for label in planned.resolved.labels)
        task = Task(("-",), planned.hypotheses, bool(found.multi_label), examples=examples if any(examples) else ())
        want = calibration.traffic_record_for(
            planned.resolved.calibration, task, space_of(self.spec, task), self.traffic, key
        )
        if want is not None:
            summary["texts"], summary["calibrated"] = await self.traffic.status(want[0], want[1])
        summary["scopes"] = self.traffic.scopes(name, calibration.visible_scopes(key))
        return summary

    def calibration_scopes(self, key: str | None = None) -> list[dict]:
        """This process's traffic records on this model, every wording (ad hoc ones too), per scope the caller
        (``key``: the id of its API key) may see: GET /label_sets."""
        return self.traffic.scopes(visible=calibration.visible_scopes(key))

    def close(self) -> None:
        """Let go of the model (its scorer, batcher, engine and tokenizer): a retired pipeline answers
        nothing, and what it held can be collected."""
        self.scorer = None  # type: ignore[assignment]
        self.tokenizer = None  # type: ignore[assignment]

    def interactive_busy(self) -> bool:
        """Whether interactive calls are in flight, or ended a moment ago (the job worker yields then)."""
        return self._interactive > 0 or time.monotonic() - self._interactive_seen < INTERACTIVE_GRACE_S

    async def _classify(
        self,
        requests: Sequence[Classification | Resolved],
        job: bool,
        job_calibration: JobCalibration | None,
        usage: bool,
        sender: Sender = Sender(),
    ) -> Answers:
        if job:  # each item on its own, as it was resolved and checked at submission: its own error
            plans: list[Plan | ServiceError] = [self._plan_alone(r) for r in requests]
            ok = [p for p in plans if isinstance(p, Plan)]

            def work() -> list[PreparedRequest | ServiceError]:
                return [p if isinstance(p, ServiceError) else self._prepare_alone(p) for p in plans]
        else:
            resolved = [r if isinstance(r, Resolved) else self.resolve(r) for r in requests]
            check_call(resolved, self.limits)
            ok = [plan(r, self.spec, self.tokenizer) for r in resolved]

            def work() -> list[PreparedRequest | ServiceError]:
                return list(prepare_call(ok, self.spec, self.tokenizer, self.limits))

        if any(p.long for p in ok):
            prepared = await anyio.to_thread.run_sync(work)  # long texts are measured: off the event loop
        else:
            prepared = work()
        ready = [p for p in prepared if isinstance(p, PreparedRequest)]
        texts = await self._calibrations(ready, job_calibration, sender)
        all_scored = await self.scorer.scores([p.task for p in ready], texts)
        scored = iter(zip(all_scored, texts))
        for text in texts:  # answered with what the records knew when the call came; now recorded
            if text is not None:
                text.settle()
        results: list[ClassifyResponse | ServiceError] = []
        statuses: set[str] = set()
        for p in prepared:
            if isinstance(p, ServiceError):
                results.append(p)
                continue
            s, text = next(scored)
            statuses.add(s.cache)
            applied = calibration.answer_calibration(text)
            metrics.calibration_answer(applied.mode, applied.calibrated)
            results.append(answer(p, s.scores, self.model_tag, self.spec.revision, applied))
        warnings = sorted({w.code for p in ready for w in p.warnings})
        tokens = TokenUsage.of((s.tokens, s.fresh) for s in all_scored) if usage else None
        return Answers(results, merged_cache(statuses), warnings, tokens)

    async def _calibrations(
        self, ready: list[PreparedRequest], job: JobCalibration | None, sender: Sender
    ) -> list[calibration.TextCalibration | None]:
        """Each request's text calibration, its traffic records read first (new ones, from Redis): the
        sender's key's scope (or the shared one), the sender its source."""
        spaces = [space_of(self.spec, p.task) for p in ready]
        key = sender.key
        wanted = [
            calibration.traffic_record_for(p.calibration, p.task, sp, self.traffic, key) for p, sp in zip(ready, spaces)
        ]
        await self.traffic.load([w for w in wanted if w is not None])
        source = (key, key or sender.address or "-")
        return [
            calibration.for_request(p.calibration, p.task, p.names, sp, self.traffic, job, source)
            for p, sp in zip(ready, spaces)
        ]

    def _plan_alone(self, item: Classification | Resolved) -> Plan | ServiceError:
        try:
            return plan(item if isinstance(item, Resolved) else self.resolve(item), self.spec, self.tokenizer)
        except ServiceError as exc:
            return exc

    def _prepare_alone(self, planned: Plan) -> PreparedRequest | ServiceError:
        try:
            [prepared] = prepare_call([planned], self.spec, self.tokenizer, self.limits)
        except ServiceError as exc:
            return exc
        return prepared
