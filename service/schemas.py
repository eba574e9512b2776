"""Request and response models: types, limits and examples in one place.

Validation happens here, once, so every bad input gets the same 400 shape from BentoML:
``{"error": "N validation error(s) for ...", "detail": [{"loc": [...], "msg": "...", "type": "..."}]}``.
Limits come from ``config.settings()``.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator, model_validator

from .config import settings

_LABEL_SPLIT = re.compile(r"[,，]")  # ASCII or full-width comma


def split_labels(labels: str | list[str]) -> list[str]:
    """A comma-separated string becomes a list; each label is stripped of surrounding blanks."""
    if isinstance(labels, str):
        return [part.strip() for part in _LABEL_SPLIT.split(labels)]
    return [label.strip() for label in labels]


class ClassifyRequest(BaseModel):
    """One text and the labels to rank for it."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "example": {
                "text": "My card was charged twice for one order",
                "labels": ["billing", "shipping", "praise"],
            }
        },
    )

    text: StrictStr = Field(
        description="The text to classify, in any language the model covers.",
        examples=["My card was charged twice for one order", "我的快递三天了还没到，什么时候发货？"],
    )
    labels: list[StrictStr] | StrictStr = Field(
        description="Candidate labels: a list, or one string separated by ',' or '，'.",
        examples=[["billing", "shipping", "praise"], ["物流", "退款", "表扬"]],
    )
    hypothesis_template: StrictStr | None = Field(
        default=None,
        description="How a label becomes a hypothesis; must contain '{}'. Default: the model's.",
        examples=["This text is about {}."],
    )
    multi_label: StrictBool = Field(
        default=False,
        description="Score each label on its own (labels may all be true) instead of one softmax.",
    )

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
    def _labels(cls, labels: str | list[str]) -> list[str]:
        s = settings()
        items = split_labels(labels)
        if not items or (len(items) == 1 and not items[0]):
            raise ValueError("no labels: send at least one candidate label")
        if len(items) > s.max_labels:
            raise ValueError(f"{len(items)} labels; the limit is {s.max_labels} (ZSC_MAX_LABELS)")
        seen: set[str] = set()
        for i, label in enumerate(items):
            if not label:
                raise ValueError(f"label {i} is empty: remove it or give it a name")
            if len(label) > s.max_label_chars:
                raise ValueError(
                    f"label {i} has {len(label)} characters; the limit is {s.max_label_chars} (ZSC_MAX_LABEL_CHARS)"
                )
            if label in seen:
                raise ValueError(f"label {label!r} appears twice: labels must be unique")
            seen.add(label)
        return items

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
        limit = settings().max_pairs_per_request
        if len(self.labels) > limit:
            raise ValueError(f"{len(self.labels)} pairs; the limit is {limit} (ZSC_MAX_PAIRS_PER_REQUEST)")
        return self

    @property
    def label_list(self) -> list[str]:
        assert isinstance(self.labels, list)  # the validator always makes it a list
        return self.labels


class ClassifyBatchRequest(BaseModel):
    """Several independent classifications in one call; each item has its own labels."""

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
        pairs = sum(len(item.label_list) for item in items)
        if pairs > s.max_pairs_per_request:
            raise ValueError(
                f"{pairs} (text, label) pairs in total; the limit is {s.max_pairs_per_request} "
                "(ZSC_MAX_PAIRS_PER_REQUEST): split the batch"
            )
        return items


class ClassifyResponse(BaseModel):
    labels: list[str] = Field(description="Labels, best first.", examples=[["billing", "shipping", "praise"]])
    scores: list[float] = Field(description="Score of each label, same order.", examples=[[0.93, 0.05, 0.02]])
    multi_label: bool = Field(description="Whether each score stands alone (true) or all sum to 1 (false).")
    model: str = Field(description="Model tag that produced the scores.", examples=["all-minilm-l6-v2:abc123"])
    revision: str = Field(description="Model content revision (weights hash or hub revision).")


class ClassifyBatchResponse(BaseModel):
    results: list[ClassifyResponse]
