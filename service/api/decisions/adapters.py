"""What the model reads of a decision request, and the answers built back from its scores.

- ``input_text``: a string as it is; a list of items: the text of user and assistant messages and of tool
  calls and their outputs, in order, one item per line; system and developer messages are left out (they
  instruct a generative model; instructions put in front of the text lower an embedding model's accuracy,
  docs/decisions.md). Images cannot be read: a 400 naming ``input``.
- ``wordings``: a choice as the answer to the question's instructions ("Question: ... / Answer: value",
  "问：... / 答：..." for Chinese options), its value and description as an ensemble; a level as its label
  and description, without the instructions; a predicate as its instructions, whole; a choice of exactly
  ``true`` / ``false`` without descriptions as the predicate "the instructions hold". NLI models read
  options as ``/classify`` does.
- a question whose instructions show an image, or a predicate with no statement, is refused (its own
  ``refusal`` answer; the others are answered): ``refusal_reason``.
- ``ask``: the classifications that answer a request (``core.classification``), one per answered question
  and one for a t-norm calibration's cohort statements; ``answers_of``: their scores as OpenAI's answers.
- ``text_problem`` / ``pairs_problem``: the replica's limits (``RequestLimits``) beyond OpenAI's bounds.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

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
from service.core.classification import Classification, Label, pairs_of
from service.core.decisions import PredicateProbabilityMap, choice_answer, predicate_probability, score_answer
from service.core.languages import dominant_script
from service.core.model_spec import ModelSpec

log = logging.getLogger("zsc.decisions")

MAX_STEM_CHARS = 300  # longer instructions are not worded into a choice's options (``question_stem``)


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


def is_chinese(texts: Iterable[str]) -> bool:
    """Whether a question's options are written in Chinese (Han characters), which picks the question /
    answer wrapper's language: the wrapper frames the answer."""
    return _chinese(" ".join(texts))


def _chinese(text: str) -> bool:
    if text.isascii():
        return False
    # a question's options come again and again, and counting scripts is not free: short ones remembered
    return _chinese_remembered(text) if len(text) <= 2048 else dominant_script(text)[0] == "CJK"


@functools.lru_cache(maxsize=4096)
def _chinese_remembered(text: str) -> bool:
    return dominant_script(text)[0] == "CJK"


def question_stem(question: ChoiceQuestion) -> str:
    """The instructions a choice's options are worded as answers to (``qa_hypothesis``): empty when there
    are none, or when they are longer than ``MAX_STEM_CHARS``. Instructions that long are a prompt, not a
    question; put around every option, they would push the option itself out of the model's window, and
    every choice would read the same."""
    text = instructions_text(question.instructions) or ""
    return text if len(text) <= MAX_STEM_CHARS else ""


def qa_hypothesis(instructions: str, answer: str, chinese: bool) -> str:
    """An option as the answer to the question's instructions: how instructions help an embedding model,
    where putting them in front of the input text hurts it (docs/decisions.md)."""
    return f"问：{instructions}\n答：{answer}" if chinese else f"Question: {instructions}\nAnswer: {answer}"


@dataclass(frozen=True)
class Wording:
    """How one answer option (a choice, a level, a predicate's statement) is read: its phrasings, used whole
    (a ``/classify`` label object's ``hypothesis``) or put into the model's template (its ``description``)."""

    phrasings: tuple[str, ...]
    whole: bool


def wordings(question: PredicateQuestion | ChoiceQuestion | ScoreQuestion, model_kind: str) -> list[Wording]:
    """The label wordings one question is classified with, in its answer's order: one statement for a
    predicate or a yes/no choice (its probability is the predicate's), one per choice or level otherwise,
    each option's value (label) and description as an ensemble.

    Embedding models read a choice as the answer to the instructions (``qa_hypothesis``; its probabilities
    are then sharpened, ``core.decisions.choice_answer``), a level without them: the levels of one scale
    differ in a word or two, and the shared question drowned that difference (docs/decisions.md). NLI
    models (not measured: no NLI model in the store) read an option as ``/classify``
    does, in the model's template, the instructions left out. A predicate's statement is a hypothesis to
    both."""
    if is_predicate(question):
        return [Wording((statement(question),), whole=True)]
    options = question.choices if isinstance(question, ChoiceQuestion) else question.levels
    texts = [option_texts(o) for o in options]
    if model_kind == "nli":
        return [Wording(t, whole=False) for t in texts]
    instructions = question_stem(question) if isinstance(question, ChoiceQuestion) else ""
    if not instructions:
        return [Wording(t, whole=True) for t in texts]
    chinese = is_chinese(x for t in texts for x in t)
    return [Wording(tuple(qa_hypothesis(instructions, x, chinese) for x in t), whole=True) for t in texts]


def worded_as_answers(question: PredicateQuestion | ChoiceQuestion | ScoreQuestion, model_kind: str) -> bool:
    """Whether ``wordings`` made this question's options answers to its instructions: then its choice
    probabilities are to be sharpened by the model's fitted factor (``core.decisions.choice_answer``)."""
    return (
        model_kind != "nli"
        and isinstance(question, ChoiceQuestion)
        and not is_yes_no(question)
        and bool(question_stem(question))
    )


def text_problem(request: DecisionCreateRequest, limits: RequestLimits) -> tuple[str, str] | None:
    """(param, message) for the input, or an instruction or option, longer than the replica reads (cheap:
    checked first), or None."""
    most = limits.max_text_chars
    n = len(input_text(request.input))
    if n > most:
        return "input", f"input has {n} characters to read; this service takes up to {most} (ZSC_MAX_TEXT_CHARS)"
    for param, text in _question_texts(request):
        if len(text) > most:
            return param, f"{param} has {len(text)} characters; this service takes up to {most} (ZSC_MAX_TEXT_CHARS)"
    return None


def pairs_problem(needed: int, limits: RequestLimits) -> tuple[str, str] | None:
    """(param, message) for ``needed`` (input, phrasing) pairs over ``ZSC_MAX_PAIRS_PER_REQUEST``, or None."""
    most = limits.max_pairs_per_request
    if needed <= most:
        return None
    return (
        "questions",
        f"the questions need {needed} (input, phrasing) pairs; this service takes up to {most} per "
        "request (ZSC_MAX_PAIRS_PER_REQUEST): send fewer questions, choices or levels per request",
    )


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
@dataclass(frozen=True)
class QuestionPlan:
    """A decision request as classifications: what each question reads, and which one answers it."""

    classifications: list[Classification]
    answered_by: list[int | None]  # per question, the position of its classification (None: refused)
    cohort_by: int | None  # the classification scoring the cohort statements (t-norm predicates), if any

    @property
    def pairs(self) -> int:
        """(input, phrasing) pairs before the input is split into windows."""
        return sum(pairs_of(c.labels or ()) for c in self.classifications)


def ask(request: DecisionCreateRequest, model: str, kind: str, cohort: Sequence[str] = ()) -> QuestionPlan:
    """The classifications that answer a request's questions on ``model`` (a served model's name)."""
    text = input_text(request.input)
    classifications: list[Classification] = []
    answered_by: list[int | None] = []
    predicates = False
    for i, question in enumerate(request.questions):
        reason = refusal_reason(question)
        if reason is not None:
            log.info("question %d (%s) refused: %s", i, question.name or "unnamed", reason)
            answered_by.append(None)
            continue
        answered_by.append(len(classifications))
        classifications.append(classification(text, wordings(question, kind), model))
        predicates |= is_predicate(question)
    cohort_by = None
    if predicates and cohort:
        cohort_by = len(classifications)
        statements = [Wording((s,), whole=True) for s in cohort]
        classifications.append(classification(text, statements, model, multi_label=True))
    return QuestionPlan(classifications, answered_by, cohort_by)


def classification(text: str, options: Sequence[Wording], model: str, multi_label: bool = False) -> Classification:
    """One question's classification: its options as labels named by their position (choice values may be
    booleans, or equal as text), the input read whole, a window at a time (``chunk``), each label's
    strongest window counting. OpenAI's bounds on choices and instructions are not /classify's; the work is
    bounded by ``ZSC_MAX_PAIRS_PER_REQUEST`` (``pairs_problem``, then the pipeline's own check)."""
    labels = tuple(
        Label(str(i), hypotheses=w.phrasings) if w.whole else Label(str(i), descriptions=w.phrasings)
        for i, w in enumerate(options)
    )
    return Classification(
        text, labels, model=model, multi_label=multi_label, truncation="chunk", chunk_aggregation="max"
    )


def answers_of(
    request: DecisionCreateRequest,
    plan: QuestionPlan,
    results: Sequence[ClassifyResponse],
    spec: ModelSpec,
    probability_map: PredicateProbabilityMap | None = None,
    sharpen: float = 1.0,
) -> list[Answer]:
    """Each question's answer from its classification's scores (``results`` in ``plan.classifications``
    order). Built without validation (``model_construct``): every number comes from ``core.decisions``, in
    [0, 1] by construction, and the values are the request's own, validated already."""
    cohort = _in_order(results[plan.cohort_by]) if plan.cohort_by is not None else None
    out: list[Answer] = []
    for question, position in zip(request.questions, plan.answered_by):
        if position is None:
            out.append(RefusalAnswer(name=question.name))
            continue
        scores = _in_order(results[position])
        if is_predicate(question):
            p = predicate_probability(spec, scores[0], probability_map, cohort)
            out.append(_predicate_answer(question, p))
        elif isinstance(question, ChoiceQuestion):
            factor = sharpen if worded_as_answers(question, spec.kind) else 1.0
            out.append(_choice_answer(question, scores, factor))
        else:
            out.append(_score_answer(question, scores))
    return out


def _score_answer(question: ScoreQuestion, scores: Sequence[float]) -> ScoreAnswer:
    result = score_answer(scores)
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
