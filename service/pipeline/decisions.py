"""OpenAI's Decisions API below HTTP (what vLLM calls ``serving``): a decision request's questions as
classifications (``api.decisions.adapters``), every one of them in one ``ModelRegistry.classify`` call, and
their scores as OpenAI's typed answers.

One call, so everything ``/classify`` has applies unchanged: the input is encoded once for all its questions
(the scorer computes each distinct sequence once), the cache tiers, adaptive batching, the model's
admission slot, the metrics. Each answered question is one classification of the text the model reads
(``adapters.input_text``) against its options worded as ``adapters.wordings`` says, single-label;
a predicate (or a true/false choice) has one statement, scored on its own (the pairwise score); when the
model has a t-norm predicate calibration, one more multi-label classification scores the input against the
calibration's cohort statements, shared by every predicate of the request. The labels are named by their
position (choice values may be booleans, or equal as text). Windows: ``chunk`` (the model reads the whole
input, a window at a time, each label's strongest window counting), so a long conversation is read to its
end. The scores become answers with ``core.decisions`` (the maths, the calibration, the sharpening).

A question the service cannot answer (``adapters.refusal_reason``: its instructions show an image, a
predicate without a statement) gets a ``refusal`` answer and costs nothing; the others are answered. The
replica's limits (``ZSC_MAX_PAIRS_PER_REQUEST``, ``ZSC_MAX_TEXT_CHARS``) are checked before anything runs
(``InvalidRequest`` naming the field); the windows, known only to the tokenizer, by the pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from service.api.classify import ClassifyResponse
from service.api.decisions.adapters import answers_of, ask, text_problem
from service.api.decisions.protocol import Decision, DecisionCreateRequest, ModelObject, Usage
from service.api.limits import RequestLimits
from service.api.questions import QuestionPlan, pairs_problem
from service.api.systemone.protocol import ModelDirectory, ModelMetadata
from service.core.decisions import Reading, reading_for
from service.core.model_spec import ModelSpec
from service.errors import InvalidRequest, ModelNotFound, WindowsOverLimit
from service.pipeline.call import Call
from service.pipeline.registry import ModelRegistry, ServedModel

OWNER = "zero-shot-classifier"  # GET /v1/models' owned_by


@dataclass(frozen=True)
class Answered:
    """A plan's classifications answered: their results in plan order, the tokens read and those the cache
    answered, and the call's cache status (hit | partial | miss)."""

    results: list[ClassifyResponse]
    read: int
    cached: int
    cache: str


class Decisions:
    """Typed questions answered by the models a replica serves (or their aliases, ``ZSC_MODEL_ALIASES``):
    OpenAI's decision requests here, System One's through the same methods (``pipeline.systemone``)."""

    def __init__(
        self,
        models: ModelRegistry,
        aliases: Mapping[str, str],
        limits: RequestLimits,
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

    def model_list(self) -> ModelDirectory:
        """Every name, as OpenAI's SDK lists models (``data``) and as TypeSafe's does (``models``)."""
        listed = self.listed()
        return ModelDirectory(
            data=[ModelObject(id=i, created=m.created, owned_by=OWNER) for i, m in listed],
            models=[_metadata(i, m) for i, m in listed],
        )

    def model_object(self, wanted: str) -> ModelObject:
        return ModelObject(id=wanted, created=self.model(wanted).created, owned_by=OWNER)

    def reading(self, spec: ModelSpec) -> Reading:
        return reading_for(spec, self.calibrations)

    def check(self, plan: QuestionPlan, problem: tuple[str, str] | None) -> None:
        """A 400 naming the field for a text over ``ZSC_MAX_TEXT_CHARS`` (``problem``, checked first: the
        plan reads every text) or a plan over ``ZSC_MAX_PAIRS_PER_REQUEST``."""
        problem = problem or pairs_problem(plan.pairs, self.limits)
        if problem is not None:
            param, message = problem
            raise InvalidRequest(message, param=param)

    async def answer(self, plan: QuestionPlan, spec: ModelSpec, text: str = "input") -> Answered:
        """Every classification of ``plan`` in one ``ModelRegistry.classify`` call, the tokens counted
        (``text``: the field the text read came from, named by the 400 for one too long)."""
        if not plan.classifications:  # every question refused: nothing to read
            return Answered([], 0, 0, "miss")
        try:
            answered = await self.models.classify(Call(tuple(plan.classifications), usage=True))
        except WindowsOverLimit:  # the input's windows, known only once tokenized, break a limit
            raise InvalidRequest(_too_long(spec, self.limits, text), param=text) from None
        results = [r for r in answered.results if isinstance(r, ClassifyResponse)]
        tokens = answered.usage
        read, cached = (tokens.read, tokens.cached) if tokens is not None else (0, 0)
        return Answered(results, read, cached, answered.cache)

    async def decide(self, request: DecisionCreateRequest) -> tuple[Decision, str]:
        """The answers in question order, and the call's cache status (hit | partial | miss)."""
        served = self.model(request.model)
        spec, reading = served.spec, self.reading(served.spec)
        problem = text_problem(request, self.limits)  # first: the wording below reads every text
        plan = ask(request, served.name, spec.kind, reading.cohort) if problem is None else None
        self.check(plan, problem)
        done = await self.answer(plan, spec)
        answers = answers_of(request, plan, done.results, spec, reading)
        usage = Usage.of(done.read, done.cached, done.read - done.cached)
        return Decision(answers=answers, model=served.tag, usage=usage), done.cache


def _metadata(name: str, model: ServedModel) -> ModelMetadata:
    """A served model (or an alias of it) as TypeSafe's SDK lists it: the date it entered the model store."""
    released = datetime.fromtimestamp(model.created, tz=UTC).date().isoformat()
    what = f"{model.tag}: a zero-shot {model.spec.kind} classifier served by this replica"
    return ModelMetadata(
        name=name, description=what if name == model.name else f"alias of {what}", release_date=released
    )


def _too_long(spec: ModelSpec, limits: RequestLimits, text: str) -> str:
    """The 400 for an input that needs more windows (or, windowed, more pairs) than the replica reads: in
    the API's words (``/classify``'s message names its own fields, ``truncation`` and batch items)."""
    return (
        f"{text} is too long for this request: the model reads it in windows of {spec.max_length} tokens, and "
        f"the windows, each read with every option of every question, come to more than this service takes "
        f"(ZSC_MAX_WINDOWS windows, {limits.max_pairs_per_request} (input, phrasing) pairs: "
        f"ZSC_MAX_PAIRS_PER_REQUEST): send a shorter {text}, or fewer questions, choices or levels"
    )
