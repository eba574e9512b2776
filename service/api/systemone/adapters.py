"""What the model reads of a System One request, and the answers built back from its scores.

- ``content_text``: the ``state`` (and any instructions or criteria sent as JSON) as text: a string as it
  is; a JSON object or array as JSON text, keys in the order sent, characters unescaped, ``", "`` and
  ``": "`` between items (``api.decisions.adapters.json_text``, as OpenAI's ``input_json`` is read): the
  same state is always the same text, and the same cache entry.
- ``asked``: each question as ``api.questions`` reads it (the wording rules, written once for both APIs):
  a ``choice`` is its options, each option's name and description read together, worded as answers to the
  instructions; a ``score`` its levels, lowest first, without the instructions; a ``noul`` with both
  outcomes described or named (pydecide's ``labels``) the choice between them, the probability of yes the
  first's; a noul with one outcome described the predicate "that description holds" (of yes, or of no:
  then 1 - p); any other noul the predicate "the instructions hold" (the calibrated probability).
- a question with nothing to read (a noul without instructions or a described outcome, an option without a
  name or a description) cannot be answered: it is left out of the answers, the others are answered.
- ``answers_of``: the numbers as System One's answers, keyed by the questions' names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from service.api import questions
from service.api.classify import ClassifyResponse
from service.api.decisions.adapters import json_text
from service.api.limits import RequestLimits
from service.api.questions import Asked, QuestionPlan
from service.api.systemone.protocol import (
    Answer,
    NoulAnswer,
    NoulQuestion,
    SystemOneChoiceAnswer,
    SystemOneChoiceQuestion,
    SystemOneRequest,
    SystemOneScoreAnswer,
    SystemOneScoreQuestion,
)
from service.core.decisions import ChoiceResult, Reading, ScoreResult
from service.core.model_spec import ModelSpec

Question = NoulQuestion | SystemOneChoiceQuestion | SystemOneScoreQuestion


def content_text(content: Any) -> str:
    """Text, a JSON object or an array as the text the model reads (None: nothing)."""
    if content is None:
        return ""
    return content.strip() if isinstance(content, str) else json_text(content)


def asked(question: Question) -> Asked:
    """A question as the model reads it (the module's docstring)."""
    instructions = content_text(question.instructions)
    if isinstance(question, SystemOneChoiceQuestion):
        options = tuple(_texts(name, description) for name, description in question.criteria.items())
        unread = "an option has neither a name nor a description" if not all(options) else None
        return Asked("choice", instructions, options, refusal=unread)
    if isinstance(question, SystemOneScoreQuestion):
        return Asked("score", instructions, tuple((content_text(level),) for level in question.criteria))
    true, false = _outcomes(question)
    if true and false:
        return Asked("choice", instructions, (true, false))
    statement = " ".join(true or false) or instructions
    return Asked("predicate", statement, refusal=None if statement else "a noul with nothing to judge")


def _texts(name: str, description: Any) -> tuple[str, ...]:
    return tuple(t for t in (name.strip(), content_text(description)) if t)


def _outcomes(question: NoulQuestion) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a noul's yes and no read: each outcome's name (pydecide's ``labels``) and description."""
    labels, criteria = question.labels, question.criteria
    true = _texts(labels.true if labels else "", criteria.true if criteria else None)
    false = _texts(labels.false if labels else "", criteria.false if criteria else None)
    return true, false


def negated(question: Question) -> bool:
    """A noul read as the predicate "the no outcome's description holds": its yes is 1 - p."""
    if not isinstance(question, NoulQuestion):
        return False
    true, false = _outcomes(question)
    return not true and bool(false)


def ask(request: SystemOneRequest, model: str, kind: str, cohort: Sequence[str] = ()) -> QuestionPlan:
    """The classifications that answer a request's questions on ``model`` (a served model's name)."""
    read = [asked(q) for q in request.questions.values()]
    return questions.ask(content_text(request.state), read, model, kind, cohort)


def text_problem(request: SystemOneRequest, limits: RequestLimits) -> tuple[str, str] | None:
    """(param, message) for the state, or an instruction or option, longer than the replica reads (cheap:
    checked first), or None."""
    return questions.text_problem([("state", content_text(request.state)), *_question_texts(request)], limits)


def _question_texts(request: SystemOneRequest) -> Iterable[tuple[str, str]]:
    for name, question in request.questions.items():
        read = asked(question)
        yield f"questions.{name}.instructions", read.instructions
        for option in read.options:
            for text in option:
                yield f"questions.{name}.criteria", text


def answers_of(
    request: SystemOneRequest,
    plan: QuestionPlan,
    results: Sequence[ClassifyResponse],
    spec: ModelSpec,
    reading: Reading = Reading(),
) -> dict[str, Answer]:
    """Each answered question's answer, by its name (``results`` in ``plan.classifications`` order)."""
    read = [asked(q) for q in request.questions.values()]
    numbers = questions.outcomes(read, plan, results, spec, reading)
    out: dict[str, Answer] = {}
    for (name, question), outcome in zip(request.questions.items(), numbers):
        if outcome is None:
            continue  # a question that could not be answered is left out
        if isinstance(question, NoulQuestion):
            p = outcome.probabilities[0] if isinstance(outcome, ChoiceResult) else outcome
            out[name] = NoulAnswer.model_construct(noul=1.0 - p if negated(question) else p)
        elif isinstance(question, SystemOneChoiceQuestion):
            out[name] = _choice_answer(question, outcome)
        else:
            out[name] = _score_answer(question, outcome)
    return out


def _choice_answer(question: SystemOneChoiceQuestion, result: ChoiceResult) -> SystemOneChoiceAnswer:
    names = list(question.criteria)
    return SystemOneChoiceAnswer.model_construct(
        choice=names[result.choice],
        confidence=result.confidence,
        probabilities=dict(zip(names, result.probabilities)),
    )


def _score_answer(question: SystemOneScoreQuestion, result: ScoreResult) -> SystemOneScoreAnswer:
    return SystemOneScoreAnswer.model_construct(
        score=result.score,
        confidence=result.confidence,
        legend={str(i): level for i, level in enumerate(question.criteria)},
        probabilities={str(i): p for i, p in enumerate(result.probabilities)},
    )
