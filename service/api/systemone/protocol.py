"""The System One API (``POST /v1/systemone``, TypeSafe's "Jev" shape): the request and answer models only.

They mirror what ``typesafe-sdk`` 0.7.5 sends and parses (``typesafe_sdk/_schemas/models.py``, generated
from TypeSafe's OpenAPI document, and ``_core/question_types.py`` / ``response_types.py``): a ``state`` (text,
a JSON object or an array), named questions ``noul`` (yes/no; ``criteria`` describing the outcomes),
``choice`` (``criteria``: option → description or null) and ``score`` (``criteria``: the levels, lowest
first), answers keyed by the questions' names, ``usage`` {input_tokens, output_tokens}. ``labels`` on a noul
is pydecide's (``decide.wire``): names for the two outcomes. What this service cannot read is refused with
a message naming it: ``assets`` (images) and ``box`` questions (regions of an image). Bounds: 1-400
questions, 1-255 options (OpenAI's, ``api.decisions.protocol``), JSON content as bounded as OpenAI's
``input_json``. What the model reads of them: ``adapters``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictStr, field_validator, model_validator

from service.api.decisions.protocol import (
    MAX_CHOICES,
    MAX_QUESTIONS,
    ModelList,
    named_model,
    strict_config,
)
from service.api.json_bounds import bounded_json
from service.api.schema_rules import not_blank

MEDIA = ("assets", "images", "audio", "videos")
TEXT_ONLY = "this service reads text only: send the text (a caption, the OCR of the image) in state instead"


def _bounded(value: Any) -> Any:
    return value if isinstance(value, str) else bounded_json(value, "the JSON value")


# text, a JSON object or an array (read as JSON text: ``adapters.content_text``)
Content = Annotated[StrictStr | dict[str, Any] | list[Any], AfterValidator(_bounded)]


class NoulCriteria(BaseModel):
    """What counts as a yes (``true``) and as a no (``false``); either may be left out or null."""

    model_config = strict_config()
    true: Content | None = None
    false: Content | None = None


class NoulLabels(BaseModel):
    """pydecide's names for the two outcomes (``{"true": "positive", "false": "negative"}``)."""

    model_config = strict_config()
    true: StrictStr = Field(json_schema_extra=not_blank)
    false: StrictStr = Field(json_schema_extra=not_blank)

    @model_validator(mode="after")
    def _named(self) -> NoulLabels:
        if not self.true.strip() or not self.false.strip():
            raise ValueError("labels must name the true and the false outcome")
        return self


class NoulQuestion(BaseModel):
    """A yes/no question or statement; answered with the probability of yes (left out of the answers when it
    has nothing to judge: no instructions and no outcome described or named)."""

    model_config = strict_config()
    type: Literal["noul"]
    instructions: Content | None = None
    criteria: NoulCriteria | None = None
    labels: NoulLabels | None = None


class SystemOneChoiceQuestion(BaseModel):
    """Pick one of the options named in ``criteria`` (each with a description, or null; left out of the
    answers when an option has neither a name nor a description to read)."""

    model_config = strict_config()
    type: Literal["choice"]
    instructions: Content | None = None
    criteria: dict[str, Content | None] = Field(json_schema_extra={"minProperties": 1, "maxProperties": MAX_CHOICES})

    @field_validator("criteria")
    @classmethod
    def _options(cls, criteria: dict[str, Any]) -> dict[str, Any]:
        if not 1 <= len(criteria) <= MAX_CHOICES:
            raise ValueError(f"{len(criteria)} options; a choice question takes 1 to {MAX_CHOICES}")
        return criteria


def _levels_schema(schema: dict[str, Any]) -> None:
    schema.update(minItems=1, maxItems=MAX_CHOICES)
    not_blank(schema["items"])


class SystemOneScoreQuestion(BaseModel):
    """Rate against ``criteria``: the levels' descriptions, lowest first (answered with their positions)."""

    model_config = strict_config()
    type: Literal["score"]
    instructions: Content | None = None
    criteria: list[Content] = Field(json_schema_extra=_levels_schema)

    @field_validator("criteria")
    @classmethod
    def _levels(cls, criteria: list[Any]) -> list[Any]:
        if not 1 <= len(criteria) <= MAX_CHOICES:
            raise ValueError(f"{len(criteria)} levels; a score question takes 1 to {MAX_CHOICES}")
        for i, level in enumerate(criteria):
            if isinstance(level, str) and not level.strip():
                raise ValueError(f"level {i} is empty: describe the level")
        return criteria


Question = Annotated[NoulQuestion | SystemOneChoiceQuestion | SystemOneScoreQuestion, Field(discriminator="type")]


# the document's example of a System One request
SYSTEMONE_EXAMPLE = {
    "model": "multilingual-e5-small",
    "state": "I was charged twice for one order. Please help.",
    "questions": {
        "billing": {"type": "noul", "instructions": "The message is about billing."},
        "tone": {
            "type": "choice",
            "instructions": "What is the tone of this message?",
            "criteria": {"calm": None, "angry": "upset or hostile"},
        },
        "urgency": {"type": "score", "criteria": ["Can wait", "Needs attention this week", "Urgent"]},
    },
}


class SystemOneRequest(BaseModel):
    """``client.system_one(state=..., questions=..., model=...)``'s body."""

    model_config = strict_config(example=SYSTEMONE_EXAMPLE)

    model: StrictStr = Field(json_schema_extra=not_blank)
    state: Content = Field(json_schema_extra=not_blank)
    questions: dict[str, Question] = Field(json_schema_extra={"minProperties": 1, "maxProperties": MAX_QUESTIONS})

    @model_validator(mode="before")
    @classmethod
    def _text_only(cls, data: Any) -> Any:
        media = [key for key in MEDIA if isinstance(data, dict) and key in data]
        if media:  # TypeSafe's assets; LiteLLM's images, audio and videos
            raise ValueError(f"{media[0]}: {TEXT_ONLY}")
        return data

    _model = field_validator("model")(named_model)

    @field_validator("state")
    @classmethod
    def _state(cls, state: Any) -> Any:
        if isinstance(state, str) and not state.strip():
            raise ValueError("state is empty: send the text (or JSON) to answer the questions about")
        return state

    @field_validator("questions", mode="before")
    @classmethod
    def _questions(cls, questions: Any) -> Any:
        if not isinstance(questions, dict):
            return questions  # the type error names it
        if not 1 <= len(questions) <= MAX_QUESTIONS:
            raise ValueError(f"{len(questions)} questions; a request takes 1 to {MAX_QUESTIONS}: split them")
        for name, question in questions.items():
            if isinstance(question, dict) and question.get("type") == "box":
                raise ValueError(f"question {name!r} is a box question (a region of an image): {TEXT_ONLY}")
        return questions


# -- the answer -----------------------------------------------------------------------------------------
class _Written(BaseModel):
    """Every field is written: the document calls each required."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class NoulAnswer(_Written):
    type: Literal["noul"] = "noul"
    noul: float = Field(ge=0, le=1)  # the probability of yes


class SystemOneChoiceAnswer(_Written):
    type: Literal["choice"] = "choice"
    choice: str  # the most probable option's name
    confidence: float = Field(ge=0, le=1)
    probabilities: dict[str, float]  # every option, by name, in the order given


class SystemOneScoreAnswer(_Written):
    type: Literal["score"] = "score"
    score: float  # the expected level, from 0
    confidence: float = Field(ge=0, le=1)
    legend: dict[str, Any]  # each level's position ("0", "1", ...) → its criteria as sent
    probabilities: dict[str, float]  # by level position, lowest first


Answer = Annotated[NoulAnswer | SystemOneChoiceAnswer | SystemOneScoreAnswer, Field(discriminator="type")]


class SystemOneUsage(_Written):
    input_tokens: int  # the tokens the model read: every window of the state and every phrasing
    output_tokens: int = 0  # a classifier writes nothing


class SystemOneResponse(_Written):
    model: str  # the served model's tag
    answers: dict[str, Answer]  # by question name; a question that could not be answered is left out
    usage: SystemOneUsage


# -- GET /v1/models: read by both SDKs ---------------------------------------------------------------------
class ModelMetadata(_Written):
    name: str
    description: str
    release_date: str  # YYYY-MM-DD


class ModelDirectory(ModelList):
    """OpenAI's model page (``object``, ``data``) and TypeSafe's model list (``models``) in one body."""

    models: list[ModelMetadata]
