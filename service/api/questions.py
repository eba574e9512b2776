"""Typed questions about one text, whichever API asked them (OpenAI's Decisions API, ``api.decisions``; the
System One API, ``api.systemone``): what the model reads of each, the classifications that answer them,
and the numbers built back from their scores. Each API's adapters turn its own question types into an
``Asked`` and these numbers into its own answers; the rules below are written once for both.

- ``wordings``: a choice as the answer to the question's instructions ("Question: ... / Answer: value",
  "问：... / 答：..." for Chinese options), each option's texts (name, description) as an ensemble; a level
  as its texts, without the instructions; a predicate as its statement, whole. NLI models read options as
  ``/classify`` reads label objects (measurements: docs/decisions.md).
- ``ask``: the classifications that answer a text's questions, one per answered question and one for a
  t-norm calibration's cohort statements; ``outcomes``: their scores as probabilities (``core.decisions``).
- ``text_problem`` / ``pairs_problem``: the replica's limits (``RequestLimits``) beyond the APIs' bounds.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from service.api.classify import ClassifyResponse
from service.api.limits import RequestLimits
from service.core.classification import Classification, Label, pairs_of
from service.core.decisions import (
    ChoiceResult,
    Reading,
    ScoreResult,
    choice_answer,
    predicate_probability,
    score_answer,
)
from service.core.languages import dominant_script
from service.core.model_spec import ModelSpec

log = logging.getLogger("zsc.decisions")

MAX_STEM_CHARS = 300  # longer instructions are not worded into a choice's options (``question_stem``)
Kind = Literal["predicate", "choice", "score"]
# a question's numbers: a predicate's probability; a choice's or a score's distribution (options by position)
Outcome = float | ChoiceResult | ScoreResult


@dataclass(frozen=True)
class Asked:
    """One question as the model reads it: a statement judged on its own (``predicate``), options one of
    which holds (``choice``), ordered levels (``score``). ``instructions``: the question (a predicate's
    statement) as text; ``options``: per choice or level, its texts (its name and description, each read);
    ``refusal``: why it cannot be answered (the caller says so in its API's way; nothing is read for it)."""

    kind: Kind
    instructions: str
    options: tuple[tuple[str, ...], ...] = ()
    refusal: str | None = None


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


def question_stem(instructions: str) -> str:
    """The instructions a choice's options are worded as answers to (``qa_hypothesis``): empty when they
    are longer than ``MAX_STEM_CHARS``. Instructions that long are a prompt, not a question; put around
    every option, they would push the option itself out of the model's window, and every choice would read
    the same."""
    return instructions if len(instructions) <= MAX_STEM_CHARS else ""


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


def wordings(asked: Asked, model_kind: str) -> list[Wording]:
    """The label wordings one question is classified with, in its answer's order: one statement for a
    predicate (its probability is the answer), one per choice or level otherwise.

    Embedding models read a choice as the answer to the instructions (``qa_hypothesis``; its probabilities
    are then sharpened, ``core.decisions.choice_answer``), a level without them: the levels of one scale
    differ in a word or two, and the shared question drowned that difference (docs/decisions.md). NLI
    models (not measured: no NLI model in the store) read an option as ``/classify`` does, in the model's
    template, the instructions left out. A predicate's statement is a hypothesis to both."""
    if asked.kind == "predicate":
        return [Wording((asked.instructions,), whole=True)]
    if model_kind == "nli":
        return [Wording(t, whole=False) for t in asked.options]
    instructions = question_stem(asked.instructions) if asked.kind == "choice" else ""
    if not instructions:
        return [Wording(t, whole=True) for t in asked.options]
    chinese = is_chinese(x for t in asked.options for x in t)
    return [Wording(tuple(qa_hypothesis(instructions, x, chinese) for x in t), whole=True) for t in asked.options]


def worded_as_answers(asked: Asked, model_kind: str) -> bool:
    """Whether ``wordings`` made this question's options answers to its instructions: then its choice
    probabilities are to be sharpened by the model's fitted factor (``core.decisions.choice_answer``)."""
    return model_kind != "nli" and asked.kind == "choice" and bool(question_stem(asked.instructions))


def text_problem(texts: Iterable[tuple[str, str]], limits: RequestLimits) -> tuple[str, str] | None:
    """(param, message) for the first of ``texts`` ((param, text): the text read, then each instruction and
    option) longer than the replica reads, or None."""
    most = limits.max_text_chars
    for param, text in texts:
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


# -- the classifications that answer a request, and the numbers built back -------------------------------
@dataclass(frozen=True)
class QuestionPlan:
    """A request's questions as classifications: what each question reads, and which one answers it."""

    classifications: list[Classification]
    answered_by: list[int | None]  # per question, the position of its classification (None: refused)
    cohort_by: int | None  # the classification scoring the cohort statements (t-norm predicates), if any

    @property
    def pairs(self) -> int:
        """(input, phrasing) pairs before the input is split into windows."""
        return sum(pairs_of(c.labels or ()) for c in self.classifications)


def ask(text: str, questions: Sequence[Asked], model: str, kind: str, cohort: Sequence[str] = ()) -> QuestionPlan:
    """The classifications that answer ``questions`` about ``text`` on ``model`` (a served model's name)."""
    classifications: list[Classification] = []
    answered_by: list[int | None] = []
    for i, asked in enumerate(questions):
        if asked.refusal is not None:
            log.info("question %d refused: %s", i, asked.refusal)
            answered_by.append(None)
            continue
        answered_by.append(len(classifications))
        classifications.append(classification(text, wordings(asked, kind), model))
    cohort_by = None
    if cohort and any(a.kind == "predicate" and a.refusal is None for a in questions):
        cohort_by = len(classifications)
        statements = [Wording((s,), whole=True) for s in cohort]
        classifications.append(classification(text, statements, model, multi_label=True))
    return QuestionPlan(classifications, answered_by, cohort_by)


def classification(text: str, options: Sequence[Wording], model: str, multi_label: bool = False) -> Classification:
    """One question's classification: its options as labels named by their position (option names may be
    booleans, or equal as text), the input read whole, a window at a time (``chunk``), each label's
    strongest window counting. The APIs' bounds on options and instructions are not /classify's; the work is
    bounded by ``ZSC_MAX_PAIRS_PER_REQUEST`` (``pairs_problem``, then the pipeline's own check)."""
    labels = tuple(
        Label(str(i), hypotheses=w.phrasings) if w.whole else Label(str(i), descriptions=w.phrasings)
        for i, w in enumerate(options)
    )
    return Classification(
        text, labels, model=model, multi_label=multi_label, truncation="chunk", chunk_aggregation="max"
    )


def outcomes(
    questions: Sequence[Asked],
    plan: QuestionPlan,
    results: Sequence[ClassifyResponse],
    spec: ModelSpec,
    reading: Reading = Reading(),
) -> list[Outcome | None]:
    """Each question's numbers from its classification's scores (``results`` in ``plan.classifications``
    order), None for a refused one: a predicate's probability (calibrated when the model has a fit), a
    choice's and a score's distribution over their options by position (a choice worded as answers
    sharpened by the model's fitted factor)."""
    cohort = _in_order(results[plan.cohort_by]) if plan.cohort_by is not None else None
    out: list[Outcome | None] = []
    for asked, position in zip(questions, plan.answered_by):
        if position is None:
            out.append(None)
            continue
        scores = _in_order(results[position])
        if asked.kind == "predicate":
            out.append(predicate_probability(spec, scores[0], reading.calibration, cohort))
        elif asked.kind == "choice":
            factor = reading.sharpen if worded_as_answers(asked, spec.kind) else 1.0
            out.append(choice_answer(list(range(len(scores))), scores, factor))
        else:
            out.append(score_answer(scores))
    return out


def _in_order(result: ClassifyResponse) -> list[float]:
    """A classification's scores in its labels' order (the answer ranks them; the labels are positions)."""
    by_name = dict(zip(result.labels, result.scores))
    return [by_name[str(i)] for i in range(len(by_name))]
