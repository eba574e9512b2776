"""Request and response models: types, limits and examples in one place.

Validation happens here, once, so every bad input gets the same 400 shape from BentoML:
``{"error": "N validation error(s) for ...", "detail": [{"loc": [...], "msg": "...", "type": "..."}]}``.
Limits come from the validation context, else the ones in force (``api.limits``). What no schema can state
(labels unique once trimmed; pairs and example texts per call) and what needs the model's tokenizer (a
text's length in tokens, its windows) is checked after this, in ``service.pipeline.prepare``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from service.api import limits
from service.api.schema_rules import (
    LABELS_SCHEMA,
    TEMPLATE,
    TEMPLATE_SCHEMA,
    TEXT_SCHEMA,
    batch_rules,
    example_rules,
    examples_rules,
    label_rules,
    phrasing_rules,
    phrasings_rules,
    schema_rules,
)
from service.config import MODEL_TAG
from service.core.classification import Classification, Label

_LABEL_SPLIT = re.compile(r"[,，]")  # ASCII or full-width comma


MODEL_NAME = rf"^{MODEL_TAG}$"  # validated and stated in the document alike

Truncation = Literal["end", "start", "error", "chunk"]
Aggregation = Literal["max", "mean"]
Probability = Annotated[float, Field(ge=0, le=1, strict=True)]
ExampleRule = Literal["prototype", "nearest", "blend"]
# a request's calibration: "job" only for a job's items (its own texts are the sample), so the interactive
# routes' document states the first two and a job's all three (api/jobs.py)
CalibrationMode = Literal["none", "traffic", "job"]
INTERACTIVE_CALIBRATION = ["none", "traffic"]
JOB_ONLY = (
    'calibration "job" is for jobs (POST /jobs): a job\'s own texts are its sample; here use "traffic" (learned '
    'from the texts this service answers with the same labels) or "none"'
)


def _interactive_calibration(schema: dict[str, Any]) -> None:
    for branch in schema.get("anyOf") or [schema]:
        if "enum" in branch:
            branch["enum"] = list(INTERACTIVE_CALIBRATION)


def split_labels(labels: str | list[str]) -> list[str]:
    """A comma-separated string becomes a list; each label is stripped of surrounding blanks."""
    if isinstance(labels, str):
        return [part.strip() for part in _LABEL_SPLIT.split(labels)]
    return [label.strip() for label in labels]


class LabelObject(BaseModel):
    """A label with its wording: a description that goes into the template, or a whole hypothesis; a list
    gives several phrasings, combined into the label's score."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"example": {"name": "praise", "description": ["a compliment", "a happy customer"]}},
    )

    name: StrictStr = Field(
        description="What the answer calls this label.",
        examples=["billing"],
        json_schema_extra=schema_rules(label_rules),
    )
    description: StrictStr | list[StrictStr] | None = Field(
        default=None,
        description="Put into the hypothesis template instead of the name; a list gives several phrasings.",
        examples=["payments, refunds and invoices"],
        json_schema_extra=schema_rules(phrasing_rules, phrasings_rules, phrasing_rules),
    )
    hypothesis: StrictStr | list[StrictStr] | None = Field(
        default=None,
        description="Whole hypotheses used as they are (no template); a list gives several phrasings.",
        examples=["The customer asks about money."],
        json_schema_extra=schema_rules(phrasing_rules, phrasings_rules, phrasing_rules),
    )
    examples: list[StrictStr] | None = Field(
        default=None,
        description="Texts that belong to this label (embedding models; an NLI model answers 422): encoded as "
        "texts and joined with the label's wording by `example_rule`.",
        examples=[["I was charged twice", "where is my refund?"]],
        json_schema_extra=schema_rules(array=examples_rules, item=example_rules),
    )

    @field_validator("description", "hypothesis")
    @classmethod
    def _phrasings(cls, value: str | list[str] | None, info: ValidationInfo) -> list[str] | None:
        if value is None:
            return None
        s = limits.of(info)
        items = [value] if isinstance(value, str) else value
        if not items:
            raise ValueError(f"{info.field_name} is an empty list: give at least one phrasing, or leave it out")
        if len(items) > s.max_phrasings:
            raise ValueError(f"{len(items)} phrasings; the limit is {s.max_phrasings} (ZSC_MAX_PHRASINGS)")
        empty = "is empty: write the phrasing, or leave it out"
        return [
            _stripped(raw, f"{info.field_name} {i}", empty, s.max_description_chars, "ZSC_MAX_DESCRIPTION_CHARS")
            for i, raw in enumerate(items)
        ]

    @field_validator("examples")
    @classmethod
    def _examples(cls, value: list[str] | None, info: ValidationInfo) -> list[str] | None:
        if value is None:
            return None
        s = limits.of(info)
        if not value:
            raise ValueError("examples is an empty list: give at least one example text, or leave it out")
        if len(value) > s.max_examples_per_label:
            raise ValueError(
                f"{len(value)} examples; the limit is {s.max_examples_per_label} per label (ZSC_MAX_EXAMPLES_PER_LABEL)"
            )
        out = []
        for i, raw in enumerate(value):
            if not raw.strip():
                raise ValueError(f"example {i} is empty: write the text, or leave it out")
            if len(raw) > s.max_example_chars:
                raise ValueError(
                    f"example {i} has {len(raw)} characters; the limit is {s.max_example_chars} (ZSC_MAX_EXAMPLE_CHARS)"
                )
            out.append(raw.strip())
        return out

    @model_validator(mode="after")
    def _one_wording(self) -> LabelObject:
        if self.description is not None and self.hypothesis is not None:
            raise ValueError(f"label {self.name!r} has both a description and a hypothesis: give one of them")
        return self

    def label(self) -> Label:
        return Label(
            self.name.strip(), tuple(self.description or ()), tuple(self.hypothesis or ()), tuple(self.examples or ())
        )


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
        json_schema_extra=TEXT_SCHEMA,
    )
    labels: list[StrictStr | LabelObject] | StrictStr | None = Field(
        default=None,
        description="Candidate labels: a list of names or label objects, or one string separated by ',' or '，'. "
        "Required unless label_set is given.",
        examples=[["billing", "shipping", "praise"], ["物流", "退款", "表扬"]],
        json_schema_extra=LABELS_SCHEMA,
    )
    label_set: StrictStr | None = Field(
        default=None,
        description="A label set the service holds (GET /label_sets): its labels, template, threshold; fields "
        "given here override the set's.",
        examples=["support-intents"],
    )
    model: StrictStr | None = Field(
        default=None,
        pattern=MODEL_NAME,
        description="The model to answer with: a name or tag from GET /models, or `auto` (per text, the first "
        "model in ZSC_MODELS order whose languages cover its script). Default: the model the label set was tuned "
        "on when this replica serves it, else the replica's first.",
        examples=["multilingual-e5-small"],
    )
    hypothesis_template: StrictStr | None = Field(
        default=None,
        description="How a label (or its description) becomes a hypothesis; must contain '{}'. Default: the model's.",
        examples=["This text is about {}."],
        json_schema_extra=TEMPLATE_SCHEMA,
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
    example_rule: ExampleRule | None = Field(
        default=None,
        description="How a label's examples join its wording (embedding models): the text's similarity to their "
        "mean (prototype), to the closest one (nearest), or the prototype blended with the wording (blend). "
        "Default: the label set's, else the model's (GET /models).",
    )
    example_weight: Probability | None = Field(
        default=None,
        description="With blend: the wording's share in [0, 1] for a label with 3 examples (one with k gets "
        "n0 / (n0 + k), n0 = 3 w / (1 - w): less with more examples; none where the label's wording does not point "
        "at its examples); 0 = the prototype alone, 1 = the wording alone. Default: the label set's, else the "
        "model's.",
    )
    calibration: CalibrationMode | None = Field(
        default=None,
        description="Correct each label's bias (some wordings sit closer to every text and win too often): "
        "none; traffic (per-label offsets learned from the unlabelled texts this service has answered with the "
        "same labels, shared by replicas; uncalibrated until it has seen enough of them); job (a job's own "
        "texts are the sample: jobs only). Default: the label set's (traffic, or its frozen fit from zsc "
        "calibrate), else none.",
        json_schema_extra=_interactive_calibration,
    )

    @field_validator("calibration")
    @classmethod
    def _calibration(cls, mode: str | None, info: ValidationInfo) -> str | None:
        if mode == "job" and not (isinstance(info.context, dict) and info.context.get("job_item")):
            raise ValueError(JOB_ONLY)
        return mode

    @field_validator("text")
    @classmethod
    def _text(cls, text: str, info: ValidationInfo) -> str:
        if not text.strip():
            raise ValueError("text is empty: send the text to classify")
        limit = limits.of(info).max_text_chars
        if len(text) > limit:
            raise ValueError(f"text has {len(text)} characters; the limit is {limit} (ZSC_MAX_TEXT_CHARS)")
        return text

    @field_validator("labels")
    @classmethod
    def _labels(
        cls, labels: str | list[str | LabelObject] | None, info: ValidationInfo
    ) -> list[str | LabelObject] | None:
        if labels is None:
            return None
        s = limits.of(info)
        items: list[str | LabelObject] = _LABEL_SPLIT.split(labels) if isinstance(labels, str) else list(labels)
        if not items or (len(items) == 1 and isinstance(items[0], str) and not items[0].strip()):
            raise ValueError("no labels: send at least one candidate label")
        if len(items) > s.max_labels:
            raise ValueError(f"{len(items)} labels; the limit is {s.max_labels} (ZSC_MAX_LABELS)")
        out: list[str | LabelObject] = []
        for i, item in enumerate(items):
            raw = item if isinstance(item, str) else item.name
            name = _stripped(raw, f"label {i}", "is empty: remove it or give it a name", s.max_label_chars,
                             "ZSC_MAX_LABEL_CHARS")  # fmt: skip
            out.append(name if isinstance(item, str) else item)
        return out

    @field_validator("hypothesis_template")
    @classmethod
    def _template(cls, template: str | None, info: ValidationInfo) -> str | None:
        if template is None:
            return None
        limit = limits.of(info).max_template_chars
        if len(template) > limit:
            raise ValueError(f"hypothesis_template is longer than {limit} characters")
        if "{}" not in template:
            raise ValueError(
                "hypothesis_template must contain '{}' where the label goes, e.g. 'This text is about {}.'"
            )
        if not re.fullmatch(TEMPLATE, template):
            raise ValueError(
                "hypothesis_template must contain exactly one '{}' (where the label goes); write other braces "
                "as '{{' and '}}'"
            )
        return template

    @model_validator(mode="after")
    def _some_labels(self) -> ClassifyRequest:
        if self.labels is None and self.label_set is None:
            raise ValueError("no labels: send labels, or the name of a label set (label_set)")
        return self

    def classification(self) -> Classification:
        """The request as the pipeline reads it: each field as sent, by name (a field ``Classification`` lacks
        fails here, not silently), but its labels as ``Label`` and ``multi_label`` None when not sent, so that
        a label set's applies."""
        fields = {name: getattr(self, name) for name in type(self).model_fields}
        fields["labels"] = labels_of(self.labels) if isinstance(self.labels, list) else None
        if "multi_label" not in self.model_fields_set:
            fields["multi_label"] = None
        return Classification(**fields)


def labels_of(labels: list[str | LabelObject]) -> tuple[Label, ...]:
    """Validated labels (names, label objects) as the pipeline reads them."""
    return tuple(Label(x) if isinstance(x, str) else x.label() for x in labels)


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

    items: list[ClassifyRequest] = Field(
        description="The classifications to run, answered in this order.",
        json_schema_extra=schema_rules(array=batch_rules),
    )

    @field_validator("items")
    @classmethod
    def _items(cls, items: list[ClassifyRequest], info: ValidationInfo) -> list[ClassifyRequest]:
        s = limits.of(info)
        if not items:
            raise ValueError("items is empty: send at least one item")
        if len(items) > s.max_batch_items:
            raise ValueError(f"{len(items)} items; the limit is {s.max_batch_items} (ZSC_MAX_BATCH_ITEMS)")
        return items


def _one_of(schema: dict) -> None:
    """Write a union as oneOf: BentoML's OpenAPI writer keeps only the first branch of an anyOf in a response,
    and the generated client would then type the field as that branch alone."""
    if "anyOf" in schema:
        schema["oneOf"] = schema.pop("anyOf")


class AnswerWarning(BaseModel):
    code: str = Field(description="Stable identifier, e.g. language_mismatch.", examples=["language_mismatch"])
    message: str = Field(description="What it means and what to do.")


class CalibrationApplied(BaseModel):
    """Which calibration an answer's scores went through."""

    mode: Literal["none", "traffic", "frozen", "job"] = Field(
        description="none; traffic (learned from the texts answered with the same labels); frozen (fitted "
        "offline into the label set by zsc calibrate); job (from the job's own texts)."
    )
    calibrated: bool = Field(
        description="Whether the scores were corrected: false with none, and while a traffic or job calibration "
        "has seen too few texts (ZSC_CALIBRATION_MIN_TEXTS) or a frozen one does not fit the labels or the model."
    )
    texts: int | None = Field(
        description="Texts the calibration has seen (traffic, this replica's view), was fitted on (frozen), or the "
        "job's texts with these labels (job); null with none.",
        examples=[1200],
    )
    scope: str | None = Field(
        default=None,
        exclude_if=lambda scope: scope is None,  # absent, not null: the other modes' answers keep their shape
        description="traffic: whose records corrected it: key:<key id> (the API key that sent the text: no other "
        "key reads or moves them), or shared (API keys off, or a label set with calibration_scope: shared). "
        "Absent for the other modes.",
    )


NOT_CALIBRATED = CalibrationApplied(mode="none", calibrated=False, texts=None)


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
    calibration: CalibrationApplied = Field(description="Which calibration the scores went through.")


class ClassifyBatchResponse(BaseModel):
    results: list[ClassifyResponse]


def _stripped(raw: str, what: str, if_empty: str, most: int, setting: str) -> str:
    """A name or a phrasing without its surrounding blanks: not empty, and within its limit as sent."""
    item = raw.strip()
    if not item:
        raise ValueError(f"{what} {if_empty}")
    if len(raw) > most:
        raise ValueError(f"{what} has {len(raw)} characters; the limit is {most} ({setting})")
    return item
