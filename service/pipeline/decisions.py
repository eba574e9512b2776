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

from service.api.classify import ClassifyResponse
from service.api.decisions.adapters import answers_of, ask, pairs_problem, text_problem
from service.api.decisions.protocol import Decision, DecisionCreateRequest, ModelList, ModelObject, Usage
from service.api.limits import RequestLimits
from service.core.decisions import choice_sharpening_for, probability_map_for
from service.core.model_spec import ModelSpec
from service.errors import InvalidRequest, ModelNotFound, WindowsOverLimit
from service.pipeline.call import Call
from service.pipeline.registry import ModelRegistry, ServedModel

OWNER = "zero-shot-classifier"  # GET /v1/models' owned_by


class Decisions:
    """Decision requests answered by the models a replica serves (or their aliases, ``ZSC_MODEL_ALIASES``)."""

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

    def model_list(self) -> ModelList:
        return ModelList(data=[ModelObject(id=i, created=m.created, owned_by=OWNER) for i, m in self.listed()])

    def model_object(self, wanted: str) -> ModelObject:
        return ModelObject(id=wanted, created=self.model(wanted).created, owned_by=OWNER)

    async def decide(self, request: DecisionCreateRequest) -> tuple[Decision, str]:
        """The answers in question order, and the call's cache status (hit | partial | miss)."""
        served = self.model(request.model)
        spec = served.spec
        calibration = probability_map_for(spec, self.calibrations)
        cohort = calibration.cohort if calibration is not None and calibration.on == "t-norm" else ()
        problem = text_problem(request, self.limits)  # first: the wording below reads every text
        if problem is None:
            plan = ask(request, served.name, spec.kind, cohort)
            problem = pairs_problem(plan.pairs, self.limits)
        if problem is not None:
            param, message = problem
            raise InvalidRequest(message, param=param)
        if not plan.classifications:  # every question refused: nothing to read
            refused = answers_of(request, plan, [], spec)
            return Decision(answers=refused, model=served.tag, usage=Usage.of(0, 0, 0)), "miss"
        try:
            answered = await self.models.classify(Call(tuple(plan.classifications), usage=True))
        except WindowsOverLimit:  # the input's windows, known only once tokenized, break a limit
            raise InvalidRequest(_too_long(spec, self.limits), param="input") from None
        results = [r for r in answered.results if isinstance(r, ClassifyResponse)]
        sharpen = choice_sharpening_for(spec, self.calibrations)
        answers = answers_of(request, plan, results, spec, calibration, sharpen)
        tokens = answered.usage
        read, cached = (tokens.read, tokens.cached) if tokens is not None else (0, 0)
        return Decision(answers=answers, model=served.tag, usage=Usage.of(read, cached, read - cached)), answered.cache


def _too_long(spec: ModelSpec, limits: RequestLimits) -> str:
    """The 400 for an input that needs more windows (or, windowed, more pairs) than the replica reads: in
    the API's words (``/classify``'s message names its own fields, ``truncation`` and batch items)."""
    return (
        f"input is too long for this request: the model reads it in windows of {spec.max_length} tokens, and "
        f"the windows, each read with every option of every question, come to more than this service takes "
        f"(ZSC_MAX_WINDOWS windows, {limits.max_pairs_per_request} (input, phrasing) pairs: "
        "ZSC_MAX_PAIRS_PER_REQUEST): send a shorter input, or fewer questions, choices or levels"
    )
