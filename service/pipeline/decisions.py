"""OpenAI's Decisions API below HTTP: a decision request's questions as classifications, every one of them in
one ``ModelRegistry.classify`` call, and their scores as OpenAI's typed answers.

One call, so everything ``/classify`` has applies unchanged: the input is encoded once for all its questions
(the scorer computes each distinct sequence once), the cache tiers, adaptive batching, the model's
admission slot, the metrics. Each answered question is one classification of the text the model reads
(``api.decisions.input_text``) against its options worded as ``api.decisions.wordings`` says, single-label;
a predicate (or a true/false choice) has one statement, scored on its own (the pairwise score); when the
model has a t-norm predicate calibration, one more multi-label classification scores the input against the
calibration's cohort statements, shared by every predicate of the request. The labels are named by their
position (choice values may be booleans, or equal as text). Windows: ``chunk`` (the model reads the whole
input, a window at a time, each label's strongest window counting), so a long conversation is read to its
end. The scores become answers with ``core.decisions`` (the maths, the calibration, the sharpening).

A question the service cannot answer (``api.decisions.refusal_reason``: its instructions show an image, a
predicate without a statement) gets a ``refusal`` answer and costs nothing; the others are answered. The
replica's limits (``ZSC_MAX_PAIRS_PER_REQUEST``, ``ZSC_MAX_TEXT_CHARS``) are checked before anything runs
(``InvalidRequest`` naming the field); the windows, known only to the tokenizer, by the pipeline.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.api.classify import ClassifyRequest, ClassifyResponse, LabelObject
from service.api.decisions import (
    Answer,
    ChoiceAnswer,
    ChoiceProbability,
    ChoiceQuestion,
    Decision,
    DecisionCreateRequest,
    DecisionLimits,
    ModelList,
    ModelObject,
    PredicateAnswer,
    PredicateQuestion,
    Question,
    RefusalAnswer,
    ScoreAnswer,
    ScoreProbability,
    Usage,
    Wording,
    input_text,
    is_yes_no,
    pairs_problem,
    refusal_reason,
    text_problem,
    worded_as_answers,
    wordings,
)
from service.core.decisions import (
    PredicateCalibration,
    calibration_for,
    choice_answer,
    choice_sharpening_for,
    predicate_probability,
    score_answer,
)
from service.core.model_spec import ModelSpec
from service.errors import InvalidRequest, ModelNotFound, UnprocessableRequest
from service.pipeline.registry import ModelRegistry, ServedModel

log = logging.getLogger("zsc.decisions")
OWNER = "zero-shot-classifier"  # GET /v1/models' owned_by


@dataclass(frozen=True)
class Asked:
    """A decision request as classifications: what each question reads, and where its answer comes from."""

    requests: list[ClassifyRequest]
    at: list[int | None]  # per question, the request answering it (None: refused)
    cohort_at: int | None  # the request scoring the cohort statements (t-norm predicates), if any

    @property
    def pairs(self) -> int:
        """(input, phrasing) pairs before the input is split into windows (``api.decisions.pairs``)."""
        return sum(len(label.hypothesis or label.description) for r in self.requests for label in r.labels)


class Decisions:
    """Decision requests answered by the models a replica serves (or their aliases, ``ZSC_MODEL_ALIASES``)."""

    def __init__(
        self,
        models: ModelRegistry,
        aliases: Mapping[str, str],
        limits: DecisionLimits,
        calibrations: Mapping[str, Mapping],
    ) -> None:
        self.models = models
        self.aliases = dict(aliases)
        self.limits = limits
        self.calibrations = calibrations  # core.decisions.load_calibrations(): by model revision

    def model(self, wanted: str) -> ServedModel:
        """The served model a request's ``model`` names: an alias, a name or a full tag (404 otherwise)."""
        try:
            return self.models.find(self.aliases.get(wanted, wanted))
        except ModelNotFound:
            raise ModelNotFound(wanted, [name for name, _ in self.listed()], "GET /v1/models") from None

    def listed(self) -> list[tuple[str, ServedModel]]:
        """(id, model) of every name a request may use: the served models (the default first), then the
        aliases of those served now."""
        served = [(m.name, m) for m in self.models.served]
        by_name = dict(served)
        for alias, target in self.aliases.items():
            model = by_name.get(target) or next((m for m in self.models.served if m.tag == target), None)
            if model is not None:
                served.append((alias, model))
        return served

    def model_list(self) -> ModelList:
        return ModelList(data=[ModelObject(id=i, created=m.created, owned_by=OWNER) for i, m in self.listed()])

    def model_object(self, wanted: str) -> ModelObject:
        return ModelObject(id=wanted, created=self.model(wanted).created, owned_by=OWNER)

    async def decide(self, request: DecisionCreateRequest) -> tuple[Decision, str]:
        """The answers in question order, and the call's cache status (hit | partial | miss)."""
        served = self.model(request.model)
        spec = served.spec
        calibration = calibration_for(spec, self.calibrations)
        cohort = calibration.cohort if calibration is not None and calibration.on == "t-norm" else ()
        problem = text_problem(request, self.limits)  # first: the wording below reads every text
        if problem is None:
            asked = ask(request, served.name, spec.kind, cohort)
            problem = pairs_problem(asked.pairs, self.limits)
        if problem is not None:
            param, message = problem
            raise InvalidRequest(message, param=param)
        if not asked.requests:  # every question refused: nothing to read
            refused = answers_of(request, asked, [], served)
            return Decision(answers=refused, model=served.tag, usage=Usage.of(0, 0, 0)), "miss"
        try:
            answered = await self.models.classify(asked.requests, usage=True)
        except UnprocessableRequest:  # the input's windows, known only once tokenized, break a limit
            raise InvalidRequest(_too_long(spec, self.limits), param="input") from None
        results = [r for r in answered.results if isinstance(r, ClassifyResponse)]
        sharpen = choice_sharpening_for(spec, self.calibrations)
        answers = answers_of(request, asked, results, served, calibration, sharpen)
        tokens = answered.usage
        read, cached = (tokens.read, tokens.cached) if tokens is not None else (0, 0)
        return Decision(answers=answers, model=served.tag, usage=Usage.of(read, cached, read - cached)), answered.cache


def _too_long(spec: ModelSpec, limits: DecisionLimits) -> str:
    """The 400 for an input that needs more windows (or, windowed, more pairs) than the replica reads: in
    the API's words (``/classify``'s message names its own fields, ``truncation`` and batch items)."""
    return (
        f"input is too long for this request: the model reads it in windows of {spec.max_length} tokens, and "
        f"the windows, each read with every option of every question, come to more than this service takes "
        f"(ZSC_MAX_WINDOWS windows, {limits.max_pairs} (input, phrasing) pairs: ZSC_MAX_PAIRS_PER_REQUEST): send "
        "a shorter input, or fewer questions, choices or levels"
    )


def ask(request: DecisionCreateRequest, model: str, kind: str, cohort: Sequence[str] = ()) -> Asked:
    """The classifications that answer a request's questions on ``model`` (a served model's name)."""
    text = input_text(request.input)
    requests: list[ClassifyRequest] = []
    at: list[int | None] = []
    predicates = False
    for i, question in enumerate(request.questions):
        reason = refusal_reason(question)
        if reason is not None:
            log.info("question %d (%s) refused: %s", i, question.name or "unnamed", reason)
            at.append(None)
            continue
        at.append(len(requests))
        requests.append(classification(text, wordings(question, kind), model))
        predicates |= _is_predicate(question)
    cohort_at = None
    if predicates and cohort:
        cohort_at = len(requests)
        statements = [Wording((s,), whole=True) for s in cohort]
        requests.append(classification(text, statements, model, multi_label=True))
    return Asked(requests, at, cohort_at)


def classification(text: str, options: Sequence[Wording], model: str, multi_label: bool = False) -> ClassifyRequest:
    """A /classify request built from parts already validated (the decision request's): OpenAI's bounds on
    choices and instructions are not /classify's (255 choices; a question's instructions in every phrasing),
    so it is constructed, not validated against ``ZSC_MAX_LABELS`` and the phrasing limits; the work it
    costs is bounded by ``ZSC_MAX_PAIRS_PER_REQUEST`` (``pairs_problem``, then the pipeline's own check)."""
    labels = [
        LabelObject.model_construct(
            name=str(i),
            hypothesis=list(w.phrasings) if w.whole else None,
            description=None if w.whole else list(w.phrasings),
            examples=None,
        )
        for i, w in enumerate(options)
    ]
    return ClassifyRequest.model_construct(
        text=text, labels=labels, model=model, multi_label=multi_label, truncation="chunk", chunk_aggregation="max"
    )


def answers_of(
    request: DecisionCreateRequest,
    asked: Asked,
    results: Sequence[ClassifyResponse],
    served: ServedModel,
    calibration: PredicateCalibration | None = None,
    sharpen: float = 1.0,
) -> list[Answer]:
    """Each question's answer from its classification's scores (``results`` in ``asked.requests`` order).
    Built without validation (``model_construct``): every number comes from ``core.decisions``, in [0, 1]
    by construction, and the values are the request's own, validated already."""
    cohort = _in_order(results[asked.cohort_at]) if asked.cohort_at is not None else None
    out: list[Answer] = []
    for question, at in zip(request.questions, asked.at):
        if at is None:
            out.append(RefusalAnswer(name=question.name))
            continue
        scores = _in_order(results[at])
        if _is_predicate(question):
            p = predicate_probability(served.spec, scores[0], calibration, cohort)
            out.append(_predicate_answer(question, p))
        elif isinstance(question, ChoiceQuestion):
            factor = sharpen if worded_as_answers(question, served.spec.kind) else 1.0
            out.append(_choice_answer(question, scores, factor))
        else:
            result = score_answer(scores)
            levels = [
                ScoreProbability.model_construct(value=i, label=level.label, probability=p)
                for i, (level, p) in enumerate(zip(question.levels, result.probabilities))
            ]
            score = ScoreAnswer.model_construct(
                name=question.name, score=result.score, confidence=result.confidence, probabilities=levels
            )
            out.append(score)
    return out


def _is_predicate(question: Question) -> bool:
    return isinstance(question, PredicateQuestion) or (isinstance(question, ChoiceQuestion) and is_yes_no(question))


def _predicate_answer(question: Question, p: float) -> Answer:
    if isinstance(question, PredicateQuestion):
        return PredicateAnswer.model_construct(name=question.name, probability=p)
    # a true/false choice judged as the predicate "the instructions hold"
    return _choice_answer(question, [p if c.value else 1.0 - p for c in question.choices], 1.0)


def _choice_answer(question: ChoiceQuestion, scores: Sequence[float], sharpen: float) -> ChoiceAnswer:
    values = [c.value for c in question.choices]
    result = choice_answer(values, scores, sharpen)
    probabilities = [
        ChoiceProbability.model_construct(value=v, probability=p) for v, p in zip(values, result.probabilities)
    ]
    return ChoiceAnswer.model_construct(
        name=question.name, choice=result.choice, confidence=result.confidence, probabilities=probabilities
    )


def _in_order(result: ClassifyResponse) -> list[float]:
    """A classification's scores in its labels' order (the answer ranks them; the labels are positions)."""
    by_name = dict(zip(result.labels, result.scores))
    return [by_name[str(i)] for i in range(len(by_name))]
