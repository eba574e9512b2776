"""What the model reads of a decision request, and the answers built back from its scores.

- ``input_text``: a string as it is; a list of items: the text of user and assistant messages and of tool
  calls and their outputs, in order, one item per line; system and developer messages are left out (they
  instruct a generative model; instructions put in front of the text lower an embedding model's accuracy,
  docs/decisions.md). Images cannot be read: a 400 naming ``input``.
- ``asked``: each question as ``api.questions`` reads it (the wording rules, written once for both APIs):
  a choice's value and description as an ensemble, a level's label and description, a predicate's
  instructions, whole; a choice of exactly ``true`` / ``false`` without descriptions as the predicate "the
  instructions hold".
- a question whose instructions show an image, or a predicate with no statement, is refused (its own
  ``refusal`` answer; the others are answered): ``refusal_reason``.
- ``ask``: the classifications that answer a request (``core.classification``), one per answered question
  and one for a t-norm calibration's cohort statements; ``answers_of``: their scores as OpenAI's answers.
- ``text_problem``: the replica's text limit (``RequestLimits``) beyond OpenAI's bounds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from service.api import questions
from service.api.classify import ClassifyResponse
from service.api.decisions.protocol import (
    Answer,
    AssistantMessage,
    Choice,
    ChoiceAnswer,
    ChoiceProbability,
    ChoiceQuestion,
    CustomToolCall,
    CustomToolCallOutput,
    DecisionCreateRequest,
    DeveloperMessage,
    FunctionCall,
    FunctionCallOutput,
    InputImage,
    InputJson,
    InputText,
    Level,
    OutputText,
    PredicateAnswer,
    PredicateQuestion,
    Question,
    QuestionImage,
    QuestionText,
    RefusalAnswer,
    RefusalPart,
    ScoreAnswer,
    ScoreProbability,
    ScoreQuestion,
    SystemMessage,
    UserMessage,
)
from service.api.limits import RequestLimits
from service.api.questions import Asked, QuestionPlan, Wording
from service.core.decisions import ChoiceResult, Reading, ScoreResult, choice_answer
from service.core.model_spec import ModelSpec


class InputNotReadable(ValueError):
    """An input this service cannot turn into text; the message names the item and says what to send."""


PART_SEPARATOR = "\n"  # between the text parts of one message, and between items


def json_text(data: Any) -> str:
    """An ``input_json`` part as text: JSON with the characters as they are (no \\u escapes, which would
    hide Chinese from the tokenizer) and a space after separators, as a reader writes it."""
    return json.dumps(data, ensure_ascii=False, separators=(", ", ": "))


def input_text(value: str | Sequence[Any]) -> str:
    """The text the model reads for ``input``: a string as it is; a list of items, each item's text on its
    own line, in order:

    - user and assistant messages: their text (``input_text`` / ``output_text`` parts one per line,
      ``input_json`` as JSON text, an assistant's ``refusal`` as what it said);
    - system and developer messages: left out. They instruct a generative model how to judge; they are not
      the thing judged, and instructions put in front of the text lower an embedding model's accuracy
      (docs/decisions.md, "What the model reads: the measurements");
    - tool calls and outputs: a call as ``name(arguments)`` (what the agent did is evidence, e.g. a refund
      issued), an output as its text; every output must answer an earlier call (OpenAI's rule);
    - images (``input_image``, in a message or a tool output): refused, this service reads text only.

    Raises ``InputNotReadable`` for an image, an empty input, an input with no text left, or an output
    without its call."""
    if isinstance(value, str):
        if not value.strip():
            raise InputNotReadable("input is empty: send the text to decide about")
        return value
    if not value:
        raise InputNotReadable("input is an empty list: send a string or at least one message")
    lines: list[str] = []
    calls: set[str] = set()
    for i, item in enumerate(value):
        where = f"input[{i}]"
        if isinstance(item, SystemMessage | DeveloperMessage):
            continue
        if isinstance(item, UserMessage | AssistantMessage):
            lines += _content_text(item.content, where)
        elif isinstance(item, FunctionCall):
            calls.add(item.call_id)
            lines.append(f"{item.name}({item.arguments})")
        elif isinstance(item, CustomToolCall):
            calls.add(item.call_id)
            lines.append(f"{item.name}({item.input})")
        elif isinstance(item, FunctionCallOutput | CustomToolCallOutput):
            if item.call_id not in calls:
                raise InputNotReadable(
                    f"{where} answers call_id {item.call_id!r}, which no earlier call in input has: each tool "
                    "output must follow its call"
                )
            lines += _content_text(item.output, where, "output")
        else:  # a dict: only an unvalidated input gets here
            raise InputNotReadable(f"{where} is not an input item: validate the request first")
    text = PART_SEPARATOR.join(line for line in lines if line.strip())
    if not text.strip():
        raise InputNotReadable(
            "input has no text to decide about: it holds only system or developer messages, or empty ones; "
            "send the content as a user message"
        )
    return text


def _content_text(content: str | Sequence[Any], where: str, field: str = "content") -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    for j, part in enumerate(content):
        if isinstance(part, InputImage):
            raise InputNotReadable(
                f"{where}.{field}[{j}] is an image (input_image): this service reads text only; send the text "
                "(a caption, the OCR of the image) as an input_text part instead"
            )
        if isinstance(part, InputText | OutputText):
            out.append(part.text)
        elif isinstance(part, RefusalPart):
            out.append(part.refusal)
        elif isinstance(part, InputJson):
            out.append(json_text(part.data))
    return out


def instructions_text(instructions: str | Sequence[Any]) -> str | None:
    """A question's instructions as text (``input_json`` parts as JSON text, parts one per line), or None
    when they show an image: the service cannot see what the question is about."""
    if isinstance(instructions, str):
        return instructions.strip()
    out = []
    for part in instructions:
        if isinstance(part, QuestionImage):
            return None
        out.append(part.text if isinstance(part, QuestionText) else json_text(part.data))
    return PART_SEPARATOR.join(out).strip()


def refusal_reason(question: PredicateQuestion | ChoiceQuestion | ScoreQuestion) -> str | None:
    """Why the service cannot answer this question (it gets a ``refusal`` answer, the others are
    answered), or None. Not for the client (OpenAI's refusal carries no reason): for the log."""
    text = instructions_text(question.instructions)
    if text is None:
        return "its instructions show an image, which this service cannot read"
    if isinstance(question, PredicateQuestion) and not text:
        return "a predicate needs a statement in its instructions, and they are empty"
    if isinstance(question, ChoiceQuestion) and is_yes_no(question) and not text:
        return "a true/false choice without descriptions is judged on its instructions, and they are empty"
    return None


def is_predicate(question: Question) -> bool:
    """A predicate, or a choice judged as one (``is_yes_no``): one statement, its probability the answer."""
    return isinstance(question, PredicateQuestion) or (isinstance(question, ChoiceQuestion) and is_yes_no(question))


def is_yes_no(question: ChoiceQuestion) -> bool:
    """Choices exactly ``true`` and ``false`` (booleans), neither described: nothing to compare but the
    instructions, so the question is the predicate "the instructions hold" (P(true) = its probability)."""
    values = [c.value for c in question.choices]
    return (
        len(values) == 2
        and all(isinstance(v, bool) for v in values)
        and set(values) == {True, False}
        and not any(c.description for c in question.choices)
    )


def statement(question: PredicateQuestion | ChoiceQuestion) -> str:
    """The statement a predicate (or a yes/no choice) is judged on: its instructions, whole."""
    return instructions_text(question.instructions) or ""


def option_texts(option: Choice | Level) -> tuple[str, ...]:
    """What one choice or level says: its value or label (a boolean as JSON writes it), and its description
    when it has one. Both are read, as a prompt ensemble: the pair is close to the better of the two on
    every set measured, where either alone loses badly on some (docs/decisions.md)."""
    if isinstance(option, Choice):
        name = json.dumps(option.value) if isinstance(option.value, bool) else option.value.strip()
    else:
        name = option.label.strip()
    description = (option.description or "").strip()
    return tuple(t for t in (name, description) if t)


def asked(question: PredicateQuestion | ChoiceQuestion | ScoreQuestion) -> Asked:
    """A question as the model reads it (``api.questions``): a predicate, or a true/false choice judged as
    one, is its statement; a choice its options (value and description), a score its levels."""
    reason = refusal_reason(question)
    text = instructions_text(question.instructions) or ""
    if is_predicate(question):
        return Asked("predicate", text, refusal=reason)
    options = question.choices if isinstance(question, ChoiceQuestion) else question.levels
    kind = "choice" if isinstance(question, ChoiceQuestion) else "score"
    return Asked(kind, text, tuple(option_texts(o) for o in options), refusal=reason)


def wordings(question: PredicateQuestion | ChoiceQuestion | ScoreQuestion, model_kind: str) -> list[Wording]:
    """The label wordings one question is classified with (``api.questions.wordings``)."""
    return questions.wordings(asked(question), model_kind)


def worded_as_answers(question: PredicateQuestion | ChoiceQuestion | ScoreQuestion, model_kind: str) -> bool:
    """Whether its choice probabilities are sharpened (``api.questions.worded_as_answers``)."""
    return questions.worded_as_answers(asked(question), model_kind)


def text_problem(request: DecisionCreateRequest, limits: RequestLimits) -> tuple[str, str] | None:
    """(param, message) for the input, or an instruction or option, longer than the replica reads (cheap:
    checked first), or None."""
    return questions.text_problem([("input", input_text(request.input)), *_question_texts(request)], limits)


def _question_texts(request: DecisionCreateRequest) -> Iterable[tuple[str, str]]:
    """(param, text) of every question's instructions and options: what the model reads besides the input."""
    for i, q in enumerate(request.questions):
        yield f"questions[{i}].instructions", instructions_text(q.instructions) or ""
        options = q.choices if isinstance(q, ChoiceQuestion) else q.levels if isinstance(q, ScoreQuestion) else []
        field = "choices" if isinstance(q, ChoiceQuestion) else "levels"
        for j, option in enumerate(options):
            for text in option_texts(option):
                yield f"questions[{i}].{field}[{j}]", text


# -- the classifications that answer a request, and the answers built back --------------------------------
def ask(request: DecisionCreateRequest, model: str, kind: str, cohort: Sequence[str] = ()) -> QuestionPlan:
    """The classifications that answer a request's questions on ``model`` (a served model's name)."""
    return questions.ask(input_text(request.input), [asked(q) for q in request.questions], model, kind, cohort)


def answers_of(
    request: DecisionCreateRequest,
    plan: QuestionPlan,
    results: Sequence[ClassifyResponse],
    spec: ModelSpec,
    reading: Reading = Reading(),
) -> list[Answer]:
    """Each question's answer from its classification's scores (``results`` in ``plan.classifications``
    order). Built without validation (``model_construct``): every number comes from ``core.decisions``, in
    [0, 1] by construction, and the values are the request's own, validated already."""
    asked_ = [asked(q) for q in request.questions]
    numbers = questions.outcomes(asked_, plan, results, spec, reading)
    out: list[Answer] = []
    for question, outcome in zip(request.questions, numbers):
        if outcome is None:
            out.append(RefusalAnswer(name=question.name))
        elif isinstance(outcome, float):
            out.append(_predicate_answer(question, outcome))
        elif isinstance(question, ChoiceQuestion):
            out.append(_choice_answer(question, outcome))
        else:
            out.append(_score_answer(question, outcome))
    return out


def _score_answer(question: ScoreQuestion, result: ScoreResult) -> ScoreAnswer:
    levels = [
        ScoreProbability.model_construct(value=i, label=level.label, probability=p)
        for i, (level, p) in enumerate(zip(question.levels, result.probabilities))
    ]
    return ScoreAnswer.model_construct(
        name=question.name, score=result.score, confidence=result.confidence, probabilities=levels
    )


def _predicate_answer(question: Question, p: float) -> Answer:
    if isinstance(question, PredicateQuestion):
        return PredicateAnswer.model_construct(name=question.name, probability=p)
    # a true/false choice judged as the predicate "the instructions hold"
    return _choice_answer(question, choice_answer([0, 1], [p if c.value else 1.0 - p for c in question.choices]))


def _choice_answer(question: ChoiceQuestion, result: ChoiceResult) -> ChoiceAnswer:
    """``result``: the choices' distribution by position, in the order they were given."""
    values = [c.value for c in question.choices]
    probabilities = [
        ChoiceProbability.model_construct(value=v, probability=p) for v, p in zip(values, result.probabilities)
    ]
    return ChoiceAnswer.model_construct(
        name=question.name, choice=values[result.choice], confidence=result.confidence, probabilities=probabilities
    )
