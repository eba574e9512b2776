"""OpenAI's Decisions API (``POST /v1/decisions``, ``GET /v1/models``): the request and answer models only.

They mirror the openai SDK 3.57 types (``openai/types/decision_create_params.py``, ``openai/types/decision.py``):
the same fields, the same optionality, discriminated unions by ``type`` (messages, whose ``type`` is
optional, by ``role``), choice values typed (``true`` and ``"true"`` are two different choices and come back
as sent), and OpenAI's fixed bounds: 1-400 questions, 2-255 unique choices, 2-10 levels,
``safety_identifier`` up to 128 characters, ``input_json`` up to 32 levels, 10,000 values and 256 KiB.
Unknown fields are refused (the SDK sends none: only a caller's ``extra_body`` can add them). Messages say
what to fix in the API's words. What the model reads of them: ``adapters``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictStr,
    Tag,
    field_validator,
)

from service.api.json_bounds import bounded_json
from service.api.schema_rules import not_blank, optional_string, text_parts_only

# OpenAI's fixed bounds (SDK docstrings; levels: langchain-openai and promptfoo, see the module docstring)
MAX_QUESTIONS = 400
MIN_CHOICES, MAX_CHOICES = 2, 255
MIN_LEVELS, MAX_LEVELS = 2, 10
MAX_SAFETY_IDENTIFIER_CHARS = 128  # "Match Responses' limit": 128 characters


ChoiceValue = StrictStr | StrictBool  # smart union of strict types: JSON true stays a bool, "true" a str


def strict_config(example: dict[str, Any] | None = None) -> ConfigDict:
    """Both /v1 APIs' models: unknown fields refused (the SDKs send none); ``example``, where given, the
    document's example of the model."""
    if example is None:
        return ConfigDict(extra="forbid")
    return ConfigDict(extra="forbid", json_schema_extra={"example": example})


def _no_null(value: Any, info) -> Any:
    """For fields the SDK types as plain ``str`` (optional, not nullable): absent is fine, null is not."""
    if value is None:
        raise ValueError(f"{info.field_name} is null: leave it out, or send a string")
    return value


def _one_of(types: Any, expected: str) -> Callable[[Any, Any], Any]:
    """A before-validator for a union field: one message, saying what ``expected`` is, when the value is none
    of its ``types``, instead of one per branch of the union."""

    def check(value: Any, info) -> Any:
        if not isinstance(value, types):
            raise ValueError(f"{info.field_name} is {json.dumps(value)}: {expected}")
        return value

    return check


# a field the SDK types as plain ``str`` but leaves optional: absent is None, null is refused, and the
# document shows a string with no null default
OptionalString = Annotated[StrictStr, Field(json_schema_extra=optional_string), BeforeValidator(_no_null)]


def named_model(model: str) -> str:  # both /v1 APIs' ``model``
    if not model.strip():
        raise ValueError("model is empty: name a model (GET /v1/models lists them)")
    return model


# -- content parts ------------------------------------------------------------------------------------
class CacheBreakpoint(BaseModel):
    """Marks the end of a reusable prompt prefix (accepted; this service caches every model row anyway)."""

    model_config = strict_config()
    mode: Literal["explicit"]


class InputText(BaseModel):
    model_config = strict_config()
    type: Literal["input_text"]
    text: StrictStr
    prompt_cache_breakpoint: CacheBreakpoint | None = None


class InputImage(BaseModel):
    model_config = strict_config()
    type: Literal["input_image"]
    image_url: StrictStr
    detail: Literal["low", "high", "auto", "original"] | None = None
    prompt_cache_breakpoint: CacheBreakpoint | None = None


class InputJson(BaseModel):
    """A JSON object or a list of objects, read as text."""

    model_config = strict_config()
    type: Literal["input_json"]
    data: dict[str, Any] | list[dict[str, Any]]

    @field_validator("data")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        return bounded_json(data, "data")


class QuestionText(BaseModel):
    model_config = strict_config()
    type: Literal["input_text"]
    text: StrictStr


class QuestionImage(BaseModel):
    model_config = strict_config()
    type: Literal["input_image"]
    image_url: StrictStr
    detail: Literal["low", "high", "auto", "original"] | None = None


class OutputText(BaseModel):
    model_config = strict_config()
    type: Literal["output_text"]
    text: StrictStr


class RefusalPart(BaseModel):
    model_config = strict_config()
    type: Literal["refusal"]
    refusal: StrictStr


UserPart = Annotated[InputText | InputImage | InputJson, Field(discriminator="type")]
ToolOutputPart = Annotated[InputText | InputImage, Field(discriminator="type")]
AssistantPart = Annotated[OutputText | RefusalPart, Field(discriminator="type")]
QuestionPart = Annotated[QuestionText | QuestionImage | InputJson, Field(discriminator="type")]


# -- input items ----------------------------------------------------------------------------------------
class _Message(BaseModel):
    model_config = strict_config()
    type: Literal["message"] = "message"  # optional in the SDK (not nullable): messages go by role

    _type_not_null = field_validator("type", mode="before")(_no_null)


class UserMessage(_Message):
    role: Literal["user"]
    content: StrictStr | list[UserPart] = Field(json_schema_extra=text_parts_only)


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
    model_config = strict_config()
    type: Literal["function_call"]
    call_id: StrictStr
    name: StrictStr
    arguments: StrictStr
    id: StrictStr | None = None
    namespace: StrictStr | None = None
    status: Status | None = None


class _ToolOutput(BaseModel):
    """A tool's answer to an earlier call; a function's and a custom tool's differ only in their ``type``."""

    model_config = strict_config()
    type: str
    call_id: StrictStr
    output: StrictStr | list[ToolOutputPart] = Field(json_schema_extra=text_parts_only)
    id: StrictStr | None = None
    status: Status | None = None


class FunctionCallOutput(_ToolOutput):
    type: Literal["function_call_output"]


class CustomToolCall(BaseModel):
    model_config = strict_config()
    type: Literal["custom_tool_call"]
    call_id: StrictStr
    name: StrictStr
    input: StrictStr
    id: StrictStr | None = None
    namespace: StrictStr | None = None
    status: Status | None = None


class CustomToolCallOutput(_ToolOutput):
    type: Literal["custom_tool_call_output"]


ROLES = ("user", "developer", "system", "assistant")
TOOL_ITEMS = ("function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output")


def _item_kind(item: Any) -> str | None:
    """Which input item this is: a message by its role (its ``type`` is optional), anything else by type."""
    get = item.get if isinstance(item, dict) else lambda key: getattr(item, key, None)
    role = get("role")
    if role is not None:
        return role if role in ROLES else None
    kind = get("type")
    return kind if kind in TOOL_ITEMS else None


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
Instructions = Annotated[
    StrictStr | list[QuestionPart], BeforeValidator(_one_of(str | list, "send a string, or a list of input_text parts"))
]


class _Question(BaseModel):
    model_config = strict_config()
    instructions: Instructions
    # optional, not nullable (the SDK's `name: str`)
    name: OptionalString = None  # type: ignore[assignment]


class PredicateQuestion(_Question):
    """Estimate how likely it is that a statement about the input is true."""

    type: Literal["predicate"]


class Choice(BaseModel):
    model_config = strict_config()
    # typed, no coercion either way (1 is not true)
    value: Annotated[
        ChoiceValue, BeforeValidator(_one_of(str | bool, "a choice's value is a string or a boolean (true, false)"))
    ]
    description: OptionalString = None  # type: ignore[assignment]


class ChoiceQuestion(_Question):
    """Choose from the supplied options based on the input."""

    type: Literal["choice"]
    choices: list[Choice] = Field(
        description='The options, each value once (typed: `true` and `"true"` are two values). Two choices '
        "with the same value are refused with 400 even when their descriptions differ (no JSON schema can say "
        '"unique by one field"; `uniqueItems` states the part it can).',
        json_schema_extra={"minItems": MIN_CHOICES, "maxItems": MAX_CHOICES, "uniqueItems": True},
    )

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
    model_config = strict_config()
    label: StrictStr = Field(json_schema_extra=not_blank)
    description: OptionalString = None  # type: ignore[assignment]


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
    model_config = strict_config()
    mode: Literal["implicit", "explicit"] | None = None
    ttl: Literal["30m"] = "30m"  # "currently the only supported value"

    _ttl_not_null = field_validator("ttl", mode="before")(_no_null)


# the document's example of a decision request
DECISION_EXAMPLE = {
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


class DecisionCreateRequest(BaseModel):
    """``client.decisions.create(...)``'s body."""

    model_config = strict_config(example=DECISION_EXAMPLE)

    model: StrictStr = Field(json_schema_extra=not_blank)
    input: StrictStr | list[InputItem] = Field(json_schema_extra=not_blank)
    questions: list[Question] = Field(json_schema_extra={"minItems": 1, "maxItems": MAX_QUESTIONS})
    prompt_cache_key: StrictStr | None = None  # accepted; the service's cache is keyed by content
    prompt_cache_options: PromptCacheOptions | None = None  # accepted, as above
    safety_identifier: StrictStr | None = Field(default=None, json_schema_extra={"maxLength": 128})  # accepted

    _model = field_validator("model")(named_model)

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
