"""OpenAI's Decisions API (``POST /v1/decisions``, ``GET /v1/models``): request and answer models, and the
pure rules that turn a request into what the classifier reads.

The models mirror the openai SDK 3.57 types (``openai/types/decision_create_params.py``,
``openai/types/decision.py``; /work/notes/decisions-sdk.md quotes them): the same fields, the same
optionality, discriminated unions by ``type`` (messages, whose ``type`` is optional, by ``role``), choice
values typed (``true`` and ``"true"`` are two different choices and come back as sent), and OpenAI's
fixed bounds: 1-400 questions, 2-255 unique choices, 2-10 levels, ``safety_identifier`` up to 128
characters, ``input_json`` up to 32 levels, 10,000 values and 256 KiB. Unknown fields are refused (the SDK
sends none: only a caller's ``extra_body`` can add them). Messages say what to fix in the API's words;
``error_body`` puts the first one into OpenAI's error envelope with its ``param`` path.

What depends on the replica's settings (``ZSC_MAX_PAIRS_PER_REQUEST``, the text limit) is not read here:
the caller passes ``DecisionLimits`` to ``limit_problem``.

What the model reads (the rules ``bench/decisions_study.py`` measured; /work/notes/decisions-report.md):

- ``input_text``: a string as it is; a list of items: the text of user and assistant messages and of tool
  calls and their outputs, in order, one item per line; system and developer messages are left out (they
  instruct a generative model; instructions put in front of the text cost e5 3 to 38
  points of accuracy). Images cannot be read: a 400 naming ``input`` (at validation).
- ``wordings``: a choice as the answer to the question's instructions ("Question: ... / Answer: value",
  "问：... / 答：..." for Chinese options; 0 to +19 points over ``/classify``'s bare labels in all 12
  measured set and instruction cases), its value and description as an ensemble; a level as its label and
  description, without the instructions; a predicate as its instructions, whole; a choice of exactly
  ``true`` / ``false`` without descriptions as the predicate "the instructions hold". NLI models read
  options as ``/classify`` does.
- a question whose instructions show an image, or a predicate with no statement, is refused (its own
  ``refusal`` answer; the others are answered): ``refusal_reason``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictStr,
    Tag,
    ValidationError,
    field_validator,
)

from service.api.classify import NOT_BLANK
from service.api.validation import public_errors
from service.core.languages import dominant_script

# OpenAI's fixed bounds (SDK docstrings; levels: langchain-openai and promptfoo, see the module docstring)
MAX_QUESTIONS = 400
MIN_CHOICES, MAX_CHOICES = 2, 255
MIN_LEVELS, MAX_LEVELS = 2, 10
MAX_SAFETY_IDENTIFIER_CHARS = 128  # "Match Responses' limit": 128 characters
MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_JSON_BYTES = 32, 10_000, 256 * 1024
MAX_STEM_CHARS = 300  # longer instructions are not worded into a choice's options (``question_stem``)

ChoiceValue = StrictStr | StrictBool  # smart union of strict types: JSON true stays a bool, "true" a str


def _strict(**kwargs: Any) -> ConfigDict:
    return ConfigDict(extra="forbid", **kwargs)


def _optional_string(schema: dict[str, Any]) -> None:
    """The document's view of a field the SDK types ``str`` but leaves optional: a string, no null default."""
    schema.pop("default", None)


def _not_blank(schema: dict[str, Any]) -> None:
    for branch in schema.get("anyOf", [schema]):
        if branch.get("type") == "string":
            branch["pattern"] = NOT_BLANK


def _text_parts_only(schema: dict[str, Any]) -> None:
    """The document lists no image parts where the input's content goes: the service reads text only (an
    image there is a 400 naming it, ``input_text``); a question's instructions may show one (a refusal)."""
    for branch in schema.get("anyOf", []):
        union = branch.get("items", {})
        image = union.get("discriminator", {}).get("mapping", {}).pop("input_image", None)
        if image is not None:
            union["oneOf"] = [b for b in union["oneOf"] if b.get("$ref") != image]


def _no_null(value: Any, info) -> Any:
    """For fields the SDK types as plain ``str`` (optional, not nullable): absent is fine, null is not."""
    if value is None:
        raise ValueError(f"{info.field_name} is null: leave it out, or send a string")
    return value


# -- content parts ------------------------------------------------------------------------------------
class CacheBreakpoint(BaseModel):
    """Marks the end of a reusable prompt prefix (accepted; this service caches every model row anyway)."""

    model_config = _strict()
    mode: Literal["explicit"]


class InputText(BaseModel):
    model_config = _strict()
    type: Literal["input_text"]
    text: StrictStr
    prompt_cache_breakpoint: CacheBreakpoint | None = None


class InputImage(BaseModel):
    model_config = _strict()
    type: Literal["input_image"]
    image_url: StrictStr
    detail: Literal["low", "high", "auto", "original"] | None = None
    prompt_cache_breakpoint: CacheBreakpoint | None = None


class InputJson(BaseModel):
    """A JSON object or a list of objects, read as text."""

    model_config = _strict()
    type: Literal["input_json"]
    data: dict[str, Any] | list[dict[str, Any]]

    @field_validator("data")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        depth, values = _json_size(data)
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"data nests {depth} levels deep; the limit is {MAX_JSON_DEPTH}: flatten it")
        if values > MAX_JSON_VALUES:
            raise ValueError(f"data holds {values} values; the limit is {MAX_JSON_VALUES}: send less of it")
        size = len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
        if size > MAX_JSON_BYTES:
            raise ValueError(f"data is {size} bytes as compact JSON; the limit is {MAX_JSON_BYTES} (256 KiB)")
        return data


class QuestionText(BaseModel):
    model_config = _strict()
    type: Literal["input_text"]
    text: StrictStr


class QuestionImage(BaseModel):
    model_config = _strict()
    type: Literal["input_image"]
    image_url: StrictStr
    detail: Literal["low", "high", "auto", "original"] | None = None


class OutputText(BaseModel):
    model_config = _strict()
    type: Literal["output_text"]
    text: StrictStr


class RefusalPart(BaseModel):
    model_config = _strict()
    type: Literal["refusal"]
    refusal: StrictStr


UserPart = Annotated[InputText | InputImage | InputJson, Field(discriminator="type")]
ToolOutputPart = Annotated[InputText | InputImage, Field(discriminator="type")]
AssistantPart = Annotated[OutputText | RefusalPart, Field(discriminator="type")]
QuestionPart = Annotated[QuestionText | QuestionImage | InputJson, Field(discriminator="type")]


# -- input items ----------------------------------------------------------------------------------------
class _Message(BaseModel):
    model_config = _strict()
    type: Literal["message"] = "message"  # optional in the SDK (not nullable): messages go by role

    _type_not_null = field_validator("type", mode="before")(_no_null)


class UserMessage(_Message):
    role: Literal["user"]
    content: StrictStr | list[UserPart] = Field(json_schema_extra=_text_parts_only)


class DeveloperMessage(_Message):
    role: Literal["developer"]
    content: StrictStr | list[InputText]


class SystemMessage(_Message):
    role: Literal["system"]
    content: StrictStr | list[InputText]


class AssistantMessage(_Message):
    role: Literal["assistant"]
    content: StrictStr | list[AssistantPart]
    phase: Literal["commentary", "final_answer"] | None = None


Status = Literal["in_progress", "completed", "incomplete"]


class FunctionCall(BaseModel):
    model_config = _strict()
    type: Literal["function_call"]
    call_id: StrictStr
    name: StrictStr
    arguments: StrictStr
    id: StrictStr | None = None
    namespace: StrictStr | None = None
    status: Status | None = None


class FunctionCallOutput(BaseModel):
    model_config = _strict()
    type: Literal["function_call_output"]
    call_id: StrictStr
    output: StrictStr | list[ToolOutputPart] = Field(json_schema_extra=_text_parts_only)
    id: StrictStr | None = None
    status: Status | None = None


class CustomToolCall(BaseModel):
    model_config = _strict()
    type: Literal["custom_tool_call"]
    call_id: StrictStr
    name: StrictStr
    input: StrictStr
    id: StrictStr | None = None
    namespace: StrictStr | None = None
    status: Status | None = None


class CustomToolCallOutput(BaseModel):
    model_config = _strict()
    type: Literal["custom_tool_call_output"]
    call_id: StrictStr
    output: StrictStr | list[ToolOutputPart] = Field(json_schema_extra=_text_parts_only)
    id: StrictStr | None = None
    status: Status | None = None


_ROLES = ("user", "developer", "system", "assistant")
_TOOL_ITEMS = ("function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output")


def _item_kind(item: Any) -> str | None:
    """Which input item this is: a message by its role (its ``type`` is optional), anything else by type."""
    get = item.get if isinstance(item, dict) else lambda key: getattr(item, key, None)
    role = get("role")
    if role is not None:
        return role if role in _ROLES else None
    kind = get("type")
    return kind if kind in _TOOL_ITEMS else None


InputItem = Annotated[
    Annotated[UserMessage, Tag("user")]
    | Annotated[DeveloperMessage, Tag("developer")]
    | Annotated[SystemMessage, Tag("system")]
    | Annotated[AssistantMessage, Tag("assistant")]
    | Annotated[FunctionCall, Tag("function_call")]
    | Annotated[FunctionCallOutput, Tag("function_call_output")]
    | Annotated[CustomToolCall, Tag("custom_tool_call")]
    | Annotated[CustomToolCallOutput, Tag("custom_tool_call_output")],
    Discriminator(
        _item_kind,
        custom_error_type="invalid_input_item",
        custom_error_message="an input item is a message with role user, developer, system or assistant, or an "
        "item of type function_call, function_call_output, custom_tool_call or custom_tool_call_output",
    ),
]


# -- questions ------------------------------------------------------------------------------------------
Instructions = StrictStr | list[QuestionPart]


class _Question(BaseModel):
    model_config = _strict()
    instructions: Instructions
    # optional, not nullable (the SDK's `name: str`)
    name: StrictStr = Field(None, json_schema_extra=_optional_string)  # type: ignore[assignment]

    _name_not_null = field_validator("name", mode="before")(_no_null)

    @field_validator("instructions", mode="before")
    @classmethod
    def _instructions(cls, value: Any) -> Any:
        # one message instead of one per branch of the union
        if not isinstance(value, str | list):
            raise ValueError(f"instructions is {json.dumps(value)}: send a string, or a list of input_text parts")
        return value


class PredicateQuestion(_Question):
    """Estimate how likely it is that a statement about the input is true."""

    type: Literal["predicate"]


class Choice(BaseModel):
    model_config = _strict()
    value: ChoiceValue
    description: StrictStr = Field(None, json_schema_extra=_optional_string)  # type: ignore[assignment]

    _description_not_null = field_validator("description", mode="before")(_no_null)

    @field_validator("value", mode="before")
    @classmethod
    def _typed(cls, value: Any) -> Any:
        # one message instead of one per branch of the union; no coercion either way (1 is not true)
        if not isinstance(value, str | bool):
            raise ValueError(f"value is {json.dumps(value)}: a choice's value is a string or a boolean (true, false)")
        return value


class ChoiceQuestion(_Question):
    """Choose from the supplied options based on the input."""

    type: Literal["choice"]
    choices: list[Choice] = Field(json_schema_extra={"minItems": MIN_CHOICES, "maxItems": MAX_CHOICES})

    @field_validator("choices")
    @classmethod
    def _choices(cls, choices: list[Choice]) -> list[Choice]:
        if not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
            raise ValueError(f"{len(choices)} choices; a choice question takes {MIN_CHOICES} to {MAX_CHOICES}")
        seen: set[tuple[type, str | bool]] = set()
        for i, choice in enumerate(choices):
            key = (type(choice.value), choice.value)  # typed: True and "true" are two choices
            if key in seen:
                raise ValueError(f"choice {i} ({json.dumps(choice.value)}) appears twice: each choice must be unique")
            seen.add(key)
            if choice.value == "" and not (choice.description or "").strip():
                raise ValueError(f"choice {i} has an empty value and no description: give it one the model can read")
        return choices


class Level(BaseModel):
    model_config = _strict()
    label: StrictStr = Field(json_schema_extra=_not_blank)
    description: StrictStr = Field(None, json_schema_extra=_optional_string)  # type: ignore[assignment]

    _description_not_null = field_validator("description", mode="before")(_no_null)


class ScoreQuestion(_Question):
    """Rate the input against the supplied ordered levels (lowest first; answered with their indices)."""

    type: Literal["score"]
    levels: list[Level] = Field(json_schema_extra={"minItems": MIN_LEVELS, "maxItems": MAX_LEVELS})

    @field_validator("levels")
    @classmethod
    def _levels(cls, levels: list[Level]) -> list[Level]:
        if not MIN_LEVELS <= len(levels) <= MAX_LEVELS:
            raise ValueError(f"{len(levels)} levels; a score question takes {MIN_LEVELS} to {MAX_LEVELS}")
        for i, level in enumerate(levels):
            if not level.label.strip():
                raise ValueError(f"level {i} has an empty label: name the level")
        return levels


Question = Annotated[PredicateQuestion | ChoiceQuestion | ScoreQuestion, Field(discriminator="type")]


class PromptCacheOptions(BaseModel):
    model_config = _strict()
    mode: Literal["implicit", "explicit"] | None = None
    ttl: Literal["30m"] = "30m"  # "currently the only supported value"

    _ttl_not_null = field_validator("ttl", mode="before")(_no_null)


class DecisionCreateRequest(BaseModel):
    """``client.decisions.create(...)``'s body."""

    model_config = _strict(
        json_schema_extra={
            "example": {
                "model": "multilingual-e5-small",
                "input": "My card was charged twice for one order",
                "questions": [
                    {
                        "type": "choice",
                        "name": "team",
                        "instructions": "Which team should handle this message?",
                        "choices": [
                            {"value": "billing", "description": "payments, refunds and invoices"},
                            {"value": "shipping", "description": "delivery and parcels"},
                        ],
                    },
                    {"type": "predicate", "name": "double", "instructions": "The customer was charged twice."},
                    {
                        "type": "score",
                        "name": "anger",
                        "instructions": "How upset is the customer?",
                        "levels": [{"label": "calm"}, {"label": "annoyed"}, {"label": "angry"}],
                    },
                ],
            }
        }
    )

    model: StrictStr = Field(json_schema_extra=_not_blank)
    input: StrictStr | list[InputItem] = Field(json_schema_extra=_not_blank)
    questions: list[Question] = Field(json_schema_extra={"minItems": 1, "maxItems": MAX_QUESTIONS})
    prompt_cache_key: StrictStr | None = None  # accepted; the service's cache is keyed by content
    prompt_cache_options: PromptCacheOptions | None = None  # accepted, as above
    safety_identifier: StrictStr | None = Field(default=None, json_schema_extra={"maxLength": 128})  # accepted

    @field_validator("model")
    @classmethod
    def _model(cls, model: str) -> str:
        if not model.strip():
            raise ValueError("model is empty: name a model (GET /v1/models lists them)")
        return model

    @field_validator("input")
    @classmethod
    def _input(cls, value: str | list) -> str | list:
        input_text(value)  # raises InputNotReadable (a ValueError) with what to fix
        return value

    @field_validator("questions")
    @classmethod
    def _questions(cls, questions: list) -> list:
        if not 1 <= len(questions) <= MAX_QUESTIONS:
            raise ValueError(f"{len(questions)} questions; a request takes 1 to {MAX_QUESTIONS}: split them")
        return questions

    @field_validator("safety_identifier")
    @classmethod
    def _safety_identifier(cls, value: str | None) -> str | None:
        if value is not None and len(value) > MAX_SAFETY_IDENTIFIER_CHARS:
            raise ValueError(
                f"safety_identifier has {len(value)} characters; the limit is {MAX_SAFETY_IDENTIFIER_CHARS}: "
                "send a hash of the user's id"
            )
        return value


# -- what the model reads -------------------------------------------------------------------------------
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
      the thing judged, and the study measured that putting instructions in front of the text lowers an
      embedding model's accuracy;
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
    when it has one. Both are read, as a prompt ensemble: measured (e5, choices and levels), the pair came
    within 2 points of the better of the two on every set, where the description alone (as ``/classify``
    reads a label object) lost up to 16 points and the value alone up to 31."""
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
    # a question's options come again and again, and counting scripts costs ~0.1 ms per question
    return _chinese_remembered(text) if len(text) <= 2048 else dominant_script(text)[0] == "CJK"


@functools.lru_cache(maxsize=4096)
def _chinese_remembered(text: str) -> bool:
    return dominant_script(text)[0] == "CJK"


def question_stem(question: ChoiceQuestion) -> str:
    """The instructions a choice's options are worded as answers to (``qa_hypothesis``): empty when there
    are none, or when they are longer than ``MAX_STEM_CHARS``. Instructions that long are a prompt, not a
    question (the study measured stems of 10-40 characters); put around every option, they would push the
    option itself out of the model's window, and every choice would read the same."""
    text = instructions_text(question.instructions) or ""
    return text if len(text) <= MAX_STEM_CHARS else ""


def qa_hypothesis(instructions: str, answer: str, chinese: bool) -> str:
    """An option as the answer to the question's instructions. Measured on choice questions with an embedding
    model, this is how instructions help (0 to +19 points on every set and instruction, 12 cases), where
    putting them in front of the input text lost 3 to 38 points."""
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
    differ in a word or two, and the shared question drowned that difference (Spearman's rho of the score
    0.63 -> 0.49 on CIC). NLI models (not measured: no NLI model in the store) read an option as ``/classify``
    does, in the model's template, the instructions left out. A predicate's statement is a hypothesis to
    both."""
    if isinstance(question, PredicateQuestion) or (isinstance(question, ChoiceQuestion) and is_yes_no(question)):
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


@dataclass(frozen=True)
class DecisionLimits:
    """The replica's limits beyond OpenAI's fixed bounds (from its settings, passed by the caller)."""

    max_pairs: int  # ZSC_MAX_PAIRS_PER_REQUEST: (input, hypothesis) pairs before the input is split
    max_text_chars: int | None = None  # ZSC_MAX_TEXT_CHARS, on the text the model reads


def pairs(request: DecisionCreateRequest, model_kind: str, cohort: int = 0) -> int:
    """The (input, phrasing) pairs a request costs before its input is split into windows: every phrasing
    of every question the service answers, and once the ``cohort`` statements of a t-norm calibration when
    any predicate needs them."""
    answered = [q for q in request.questions if refusal_reason(q) is None]
    n = sum(len(w.phrasings) for q in answered for w in wordings(q, model_kind))
    needs_cohort = any(
        isinstance(q, PredicateQuestion) or (isinstance(q, ChoiceQuestion) and is_yes_no(q)) for q in answered
    )
    return n + (cohort if needs_cohort else 0)


def limit_problem(
    request: DecisionCreateRequest, limits: DecisionLimits, model_kind: str = "embedding", cohort: int = 0
) -> tuple[str, str] | None:
    """(param, message) for a valid request over this replica's limits (OpenAI's 400 envelope carries
    both), or None. Questions the service refuses add no pairs."""
    return text_problem(request, limits) or pairs_problem(pairs(request, model_kind, cohort), limits)


def text_problem(request: DecisionCreateRequest, limits: DecisionLimits) -> tuple[str, str] | None:
    """The input, or an instruction or option, longer than the replica reads (cheap: checked first)."""
    if limits.max_text_chars is None:
        return None
    most = limits.max_text_chars
    n = len(input_text(request.input))
    if n > most:
        return "input", f"input has {n} characters to read; this service takes up to {most} (ZSC_MAX_TEXT_CHARS)"
    for param, text in _question_texts(request):
        if len(text) > most:
            return param, f"{param} has {len(text)} characters; this service takes up to {most} (ZSC_MAX_TEXT_CHARS)"
    return None


def pairs_problem(needed: int, limits: DecisionLimits) -> tuple[str, str] | None:
    """``needed`` (input, phrasing) pairs over ``ZSC_MAX_PAIRS_PER_REQUEST``."""
    if needed <= limits.max_pairs:
        return None
    return (
        "questions",
        f"the questions need {needed} (input, phrasing) pairs; this service takes up to {limits.max_pairs} per "
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


# the tags pydantic puts in a path after a list position to say which branch of a union it tried, by the
# list that holds the union (a field may share a tag's name: a choice's unknown field "score" is kept)
_PART_TAGS = frozenset({"input_text", "input_image", "input_json", "output_text", "refusal"})
_UNION_TAGS = {
    "questions": frozenset({"predicate", "choice", "score"}),
    "input": frozenset({*_ROLES, *_TOOL_ITEMS}),
    "content": _PART_TAGS,
    "output": _PART_TAGS,
    "instructions": _PART_TAGS,
}


def param_path(loc: Iterable[str | int]) -> str | None:
    """A field path as OpenAI's errors write ``param``: ``questions[2].choices[0].value`` (a union's tag
    after a list position dropped: pydantic's ``questions[2].choice.choices`` is ``questions[2].choices``)."""
    out = ""
    segments = list(loc)
    for i, segment in enumerate(segments):
        if i >= 2 and isinstance(segments[i - 1], int) and segment in _UNION_TAGS.get(segments[i - 2], ()):
            continue
        out += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if out else segment)
    return out or None


def first_problem(exc: ValidationError) -> tuple[str | None, str]:
    """(param, message) of a validation error, as OpenAI's error envelope carries them: the first mistake's
    path and what to fix, with how many more there are."""
    errors = public_errors(exc.errors(include_url=False)) or [{"loc": [], "msg": str(exc)}]
    first = errors[0]
    param = param_path(first["loc"])
    message = f"{param}: {first['msg']}" if param else first["msg"]
    if param is None and first.get("type") == "model_type":
        message = 'the body is not a JSON object: send {"model", "input", "questions"}'
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return param, message


def _json_size(data: Any, depth: int = 0) -> tuple[int, int]:
    """(container depth, number of values) of a JSON value."""
    if isinstance(data, dict):
        inner = [_json_size(v, depth + 1) for v in data.values()]
    elif isinstance(data, list):
        inner = [_json_size(v, depth + 1) for v in data]
    else:
        return depth, 1
    return max([depth + 1, *(d for d, _ in inner)]), 1 + sum(n for _, n in inner)


# -- the answer -----------------------------------------------------------------------------------------
# ``name`` has no default: it is always written, null when the question had none (the SDK's tool runner and
# langchain-openai read it from every answer). The HTTP layer must not drop None fields when serialising.
# Every field is written, so the document calls every field of an answer required (``_Written``).
class _Written(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class PredicateAnswer(_Written):
    type: Literal["predicate"] = "predicate"
    name: str | None
    probability: float = Field(ge=0, le=1)


class ChoiceProbability(_Written):
    value: ChoiceValue
    probability: float = Field(ge=0, le=1)


class ChoiceAnswer(_Written):
    type: Literal["choice"] = "choice"
    name: str | None
    choice: ChoiceValue
    confidence: float = Field(ge=0, le=1)
    probabilities: list[ChoiceProbability]  # every choice, in the order they were given


class ScoreProbability(_Written):
    value: int  # the level's index, from 0
    label: str
    probability: float = Field(ge=0, le=1)


class ScoreAnswer(_Written):
    type: Literal["score"] = "score"
    name: str | None
    score: float  # the expected level index
    confidence: float = Field(ge=0, le=1)
    probabilities: list[ScoreProbability]  # every level, lowest first


class RefusalAnswer(_Written):
    """The service declined this question (e.g. its instructions show an image); the others are answered."""

    type: Literal["refusal"] = "refusal"
    name: str | None


Answer = Annotated[PredicateAnswer | ChoiceAnswer | ScoreAnswer | RefusalAnswer, Field(discriminator="type")]


class InputTokensDetails(_Written):
    cached_tokens: int  # of input_tokens, those whose model rows came from the cache
    cache_write_tokens: int  # of input_tokens, those computed now and stored in the cache


class OutputTokensDetails(_Written):
    reasoning_tokens: int = 0


class Usage(_Written):
    input_tokens: int  # the tokens the model read: every window of the input and every hypothesis
    input_tokens_details: InputTokensDetails
    output_tokens: int = 0  # a classifier writes nothing
    output_tokens_details: OutputTokensDetails = Field(default_factory=OutputTokensDetails)
    total_tokens: int

    @classmethod
    def of(cls, read: int, cached: int, written: int) -> Usage:
        return cls(
            input_tokens=read,
            input_tokens_details=InputTokensDetails(cached_tokens=cached, cache_write_tokens=written),
            total_tokens=read,
        )


class Decision(_Written):
    answers: list[Answer]  # in question order
    model: str  # the served model's tag
    usage: Usage


# -- GET /v1/models: the SDK's SyncPage[Model] --------------------------------------------------------------
class ModelObject(_Written):
    id: str
    object: Literal["model"] = "model"
    created: int  # Unix seconds
    owned_by: str


class ModelList(_Written):
    object: Literal["list"] = "list"
    data: list[ModelObject]
