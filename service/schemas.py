"""Request and response models: types, limits and examples in one place.

Validation happens here, once, so every bad input gets the same 400 shape from BentoML:
``{"error": "N validation error(s) for ...", "detail": [{"loc": [...], "msg": "...", "type": "..."}]}``.
Limits come from ``config.settings()``. What needs the model's tokenizer (a text's length in tokens, its
windows) is checked after this, in ``requests.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from .config import settings

_LABEL_SPLIT = re.compile(r"[,，]")  # ASCII or full-width comma

Truncation = Literal["end", "start", "error", "chunk"]
Aggregation = Literal["max", "mean"]
Probability = Annotated[float, Field(ge=0, le=1, strict=True)]


def split_labels(labels: str | list[str]) -> list[str]:
    """A comma-separated string becomes a list; each label is stripped of surrounding blanks."""
    if isinstance(labels, str):
        return [part.strip() for part in _LABEL_SPLIT.split(labels)]
    return [label.strip() for label in labels]


@dataclass(frozen=True)
class Label:
    """A candidate label as the service uses it: its name, and how it is worded for the model."""

    name: str
    descriptions: tuple[str, ...] = ()  # go into the template instead of the name
    hypotheses: tuple[str, ...] = ()  # whole hypotheses, no template

    def hypotheses_for(self, template: str) -> tuple[str, ...]:
        if self.hypotheses:
            return self.hypotheses
        return tuple(template.format(d) for d in (self.descriptions or (self.name,)))


class LabelObject(BaseModel):
    """A label with its wording: a description that goes into the template, or a whole hypothesis; a list
    gives several phrasings, combined into the label's score."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"example": {"name": "praise", "description": ["a compliment", "a happy customer"]}},
    )

    name: StrictStr = Field(description="What the answer calls this label.", examples=["billing"])
    description: StrictStr | list[StrictStr] | None = Field(
        default=None,
        description="Put into the hypothesis template instead of the name; a list gives several phrasings.",
        examples=["payments, refunds and invoices"],
    )
    hypothesis: StrictStr | list[StrictStr] | None = Field(
        default=None,
        description="Whole hypotheses used as they are (no template); a list gives several phrasings.",
        examples=["The customer asks about money."],
    )

    @field_validator("description", "hypothesis")
    @classmethod
    def _phrasings(cls, value: str | list[str] | None, info) -> list[str] | None:
        if value is None:
            return None
        s = settings()
        items = [value] if isinstance(value, str) else value
        if not items:
            raise ValueError(f"{info.field_name} is an empty list: give at least one phrasing, or leave it out")
        if len(items) > s.max_phrasings:
            raise ValueError(f"{len(items)} phrasings; the limit is {s.max_phrasings} (ZSC_MAX_PHRASINGS)")
        out = []
        for i, item in enumerate(items):
            item = item.strip()
            if not item:
                raise ValueError(f"{info.field_name} {i} is empty: write the phrasing, or leave it out")
            if len(item) > s.max_description_chars:
                raise ValueError(
                    f"{info.field_name} {i} has {len(item)} characters; the limit is {s.max_description_chars} "
                    "(ZSC_MAX_DESCRIPTION_CHARS)"
                )
            out.append(item)
        return out

    @model_validator(mode="after")
    def _one_wording(self) -> LabelObject:
        if self.description is not None and self.hypothesis is not None:
            raise ValueError(f"label {self.name!r} has both a description and a hypothesis: give one of them")
        return self

    def label(self) -> Label:
        return Label(self.name.strip(), tuple(self.description or ()), tuple(self.hypothesis or ()))


class ClassifyRequest(BaseModel):
    """One text and the labels to rank for it."""

    model_config = ConfigDict(
        extra="forbid",
        # the Swagger page's ready-made request; the fields' own examples show Chinese as well
        json_schema_extra={
            "example": {
                "text": "My card was charged twice for one order",
                "labels": [
                    {"name": "billing", "description": "payments, refunds and invoices"},
                    {"name": "shipping", "description": ["delivery", "where a parcel is"]},
                    "praise",
                ],
                "hypothesis_template": "This message is about {}.",
                "threshold": 0.6,
            }
        },
    )

    text: StrictStr = Field(
        description="The text to classify, in any language the model covers.",
        examples=["My card was charged twice for one order", "我的快递三天了还没到，什么时候发货？"],
    )
    labels: list[StrictStr | LabelObject] | StrictStr | None = Field(
        default=None,
        description="Candidate labels: a list of names or label objects, or one string separated by ',' or '，'. "
        "Required unless label_set is given.",
        examples=[["billing", "shipping", "praise"], ["物流", "退款", "表扬"]],
    )
    label_set: StrictStr | None = Field(
        default=None,
        description="A label set the service holds (GET /label_sets): its labels, template, threshold; fields "
        "given here override the set's.",
        examples=["support-intents"],
    )
    hypothesis_template: StrictStr | None = Field(
        default=None,
        description="How a label (or its description) becomes a hypothesis; must contain '{}'. Default: the model's.",
        examples=["This text is about {}."],
    )
    multi_label: StrictBool = Field(
        default=False,
        description="Score each label on its own (labels may all be true) instead of one softmax.",
    )
    truncation: Truncation = Field(
        default="end",
        description="A text longer than the model's window: cut its end (end), keep its end (start), refuse it "
        "with 400 (error), or score it in overlapping windows (chunk).",
    )
    chunk_aggregation: Aggregation = Field(
        default="max", description="With chunk: a label's evidence over the windows, the strongest (max) or mean."
    )
    threshold: Probability | None = Field(
        default=None,
        description="Decision threshold in [0, 1]: single-label, `predicted` is the top label if its score "
        "reaches it, else null; multi-label, every label at or above it. Default: the top label / 0.5.",
    )
    top_k: StrictInt | None = Field(default=None, ge=1, description="Return only the k best labels.")

    @field_validator("text")
    @classmethod
    def _text(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("text is empty: send the text to classify")
        limit = settings().max_text_chars
        if len(text) > limit:
            raise ValueError(f"text has {len(text)} characters; the limit is {limit} (ZSC_MAX_TEXT_CHARS)")
        return text

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: str | list[str | LabelObject] | None) -> list[str | LabelObject] | None:
        if labels is None:
            return None
        s = settings()
        items: list[str | LabelObject] = split_labels(labels) if isinstance(labels, str) else list(labels)
        if not items or (len(items) == 1 and isinstance(items[0], str) and not items[0].strip()):
            raise ValueError("no labels: send at least one candidate label")
        if len(items) > s.max_labels:
            raise ValueError(f"{len(items)} labels; the limit is {s.max_labels} (ZSC_MAX_LABELS)")
        seen: set[str] = set()
        out: list[str | LabelObject] = []
        for i, item in enumerate(items):
            name = (item if isinstance(item, str) else item.name).strip()
            if not name:
                raise ValueError(f"label {i} is empty: remove it or give it a name")
            if len(name) > s.max_label_chars:
                raise ValueError(
                    f"label {i} has {len(name)} characters; the limit is {s.max_label_chars} (ZSC_MAX_LABEL_CHARS)"
                )
            if name in seen:
                raise ValueError(f"label {name!r} appears twice: labels must be unique")
            seen.add(name)
            out.append(name if isinstance(item, str) else item)
        return out

    @field_validator("hypothesis_template")
    @classmethod
    def _template(cls, template: str | None) -> str | None:
        if template is None:
            return None
        limit = settings().max_template_chars
        if len(template) > limit:
            raise ValueError(f"hypothesis_template is longer than {limit} characters")
        if "{}" not in template:
            raise ValueError(
                "hypothesis_template must contain '{}' where the label goes, e.g. 'This text is about {}.'"
            )
        try:
            template.format("label")
        except (IndexError, KeyError, ValueError):
            raise ValueError(
                "hypothesis_template may contain only '{}' as a placeholder; write other braces as '{{' and '}}'"
            ) from None
        return template

    @model_validator(mode="after")
    def _pairs(self) -> ClassifyRequest:
        if self.labels is None and self.label_set is None:
            raise ValueError("no labels: send labels, or the name of a label set (label_set)")
        limit = settings().max_pairs_per_request
        if self.pairs > limit:
            raise ValueError(f"{self.pairs} pairs; the limit is {limit} (ZSC_MAX_PAIRS_PER_REQUEST)")
        return self

    @property
    def label_list(self) -> list[Label]:
        assert isinstance(self.labels, list), "a label set is resolved before the labels are read"
        return [Label(x) if isinstance(x, str) else x.label() for x in self.labels]

    @property
    def names(self) -> list[str]:
        return [label.name for label in self.label_list]

    @property
    def pairs(self) -> int:
        """(text, phrasing) pairs before the text is split into windows (0 until a label set is resolved)."""
        if self.labels is None:
            return 0
        return sum(max(1, len(x.descriptions) + len(x.hypotheses)) for x in self.label_list)


class ClassifyBatchRequest(BaseModel):
    """Several independent classifications in one call; each item has its own labels and options."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "example": {
                "items": [
                    {"text": "The striker scored twice in the final", "labels": ["sports", "business"]},
                    {"text": "央行宣布下调存款准备金率，股市应声大涨", "labels": "体育，财经，科技"},
                ]
            }
        },
    )

    items: list[ClassifyRequest] = Field(description="The classifications to run, answered in this order.")

    @field_validator("items")
    @classmethod
    def _items(cls, items: list[ClassifyRequest]) -> list[ClassifyRequest]:
        s = settings()
        if not items:
            raise ValueError("items is empty: send at least one item")
        if len(items) > s.max_batch_items:
            raise ValueError(f"{len(items)} items; the limit is {s.max_batch_items} (ZSC_MAX_BATCH_ITEMS)")
        pairs = sum(item.pairs for item in items)
        if pairs > s.max_pairs_per_request:
            raise ValueError(
                f"{pairs} (text, label) pairs in total; the limit is {s.max_pairs_per_request} "
                "(ZSC_MAX_PAIRS_PER_REQUEST): split the batch"
            )
        return items


def _one_of(schema: dict) -> None:
    """Write a union as oneOf: BentoML's OpenAPI writer keeps only the first branch of an anyOf in a response,
    and the generated client would then type the field as that branch alone."""
    if "anyOf" in schema:
        schema["oneOf"] = schema.pop("anyOf")


class AnswerWarning(BaseModel):
    code: str = Field(description="Stable identifier, e.g. language_mismatch.", examples=["language_mismatch"])
    message: str = Field(description="What it means and what to do.")


class ClassifyResponse(BaseModel):
    labels: list[str] = Field(description="Labels (names), best first.", examples=[["billing", "shipping", "praise"]])
    scores: list[float] = Field(description="Score of each label, same order.", examples=[[0.93, 0.05, 0.02]])
    multi_label: bool = Field(description="Whether each score stands alone (true) or all sum to 1 (false).")
    predicted: str | list[str] | None = Field(
        description="The decision. Single-label: the top label, or null when a threshold was given and the top "
        "score is under it (abstain). Multi-label: every label scoring at or above the threshold (default 0.5).",
        examples=["billing"],
        json_schema_extra=_one_of,
    )
    truncated: bool = Field(description="Whether part of the text was not seen by the model (truncation end/start).")
    windows: int = Field(description="Windows the text was scored in (1 unless truncation was chunk).", examples=[1])
    warnings: list[AnswerWarning] = Field(default_factory=list, description="What may make these scores unreliable.")
    model: str = Field(description="Model tag that produced the scores.", examples=["multilingual-e5-small:abc123"])
    revision: str = Field(description="Model content revision (weights hash or hub revision).")


class ClassifyBatchResponse(BaseModel):
    results: list[ClassifyResponse]


# -- the Hugging Face Inference API's zero-shot shape ---------------------------------------------------
class HfParameters(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidate_labels: list[StrictStr] | StrictStr | None = Field(
        default=None, description="Candidate labels, as in /classify; required unless label_set is given."
    )
    label_set: StrictStr | None = Field(default=None, description="A label set the service holds (an extension).")
    multi_label: StrictBool | None = Field(default=None, description="As in /classify (default false).")
    hypothesis_template: StrictStr | None = Field(default=None, description="As in /classify.")

    @model_validator(mode="after")
    def _some_labels(self) -> HfParameters:
        if self.candidate_labels is None and self.label_set is None:
            raise ValueError("candidate_labels is required (or label_set, a set the service holds)")
        return self


HF_EXAMPLE = {
    "inputs": "My card was charged twice for one order",
    "parameters": {"candidate_labels": ["billing", "shipping", "praise"]},
}


class HfZeroShotRequest(BaseModel):
    """The request of Hugging Face's zero-shot-classification task (Inference API, InferenceClient)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"example": HF_EXAMPLE})

    inputs: StrictStr | list[StrictStr] = Field(description="One text, or a list of texts.")
    parameters: HfParameters

    @field_validator("inputs")
    @classmethod
    def _inputs(cls, inputs: str | list[str]) -> str | list[str]:
        if isinstance(inputs, list):
            limit = settings().max_batch_items
            if not inputs:
                raise ValueError("inputs is an empty list: send at least one text")
            if len(inputs) > limit:
                raise ValueError(f"{len(inputs)} inputs; the limit is {limit} (ZSC_MAX_BATCH_ITEMS)")
        return inputs

    def requests(self) -> list[ClassifyRequest]:
        """The same classifications as /classify requests (validated as such)."""
        texts = [self.inputs] if isinstance(self.inputs, str) else self.inputs
        p = self.parameters
        given = {
            "labels": p.candidate_labels,
            "label_set": p.label_set,
            "multi_label": p.multi_label,
            "hypothesis_template": p.hypothesis_template,
        }
        common = {k: v for k, v in given.items() if v is not None}
        return [ClassifyRequest.model_validate({"text": t, **common}) for t in texts]


class HfZeroShotAnswer(BaseModel):
    """What transformers' zero-shot pipeline returns for one text."""

    sequence: str
    labels: list[str]
    scores: list[float]


class HfZeroShotOutput(RootModel[HfZeroShotAnswer | list[HfZeroShotAnswer]]):
    """One answer for one text, a list for a list of texts, as the pipeline returns them. Its schema is
    written out without references: BentoML's OpenAPI writer keeps only the first branch of a union and
    cannot follow a reference inside one."""

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema, handler):
        answer = {
            "type": "object",
            "properties": {
                "sequence": {"type": "string"},
                "labels": {"type": "array", "items": {"type": "string"}},
                "scores": {"type": "array", "items": {"type": "number"}},
            },
            "required": ["sequence", "labels", "scores"],
        }
        return {"oneOf": [answer, {"type": "array", "items": answer}], "title": "HfZeroShotOutput"}
