"""The Hugging Face Inference API's zero-shot shape (``POST /hf/zero-shot-classification``): its request as
/classify requests, its answer as transformers' zero-shot pipeline returns it."""

from __future__ import annotations

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    StrictBool,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from service.api import limits
from service.api.classify import MODEL_NAME, ClassifyRequest
from service.api.schema_rules import LABELS_SCHEMA, TEMPLATE_SCHEMA, batch_rules, schema_rules, text_rules


class HfParameters(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidate_labels: list[StrictStr] | StrictStr | None = Field(
        default=None,
        description="Candidate labels, as in /classify; required unless label_set is given.",
        json_schema_extra=LABELS_SCHEMA,
    )
    label_set: StrictStr | None = Field(default=None, description="A label set the service holds (an extension).")
    model: StrictStr | None = Field(
        default=None, pattern=MODEL_NAME, description="As in /classify: a model from GET /models (an extension)."
    )
    multi_label: StrictBool | None = Field(default=None, description="As in /classify (default false).")
    hypothesis_template: StrictStr | None = Field(
        default=None, description="As in /classify.", json_schema_extra=TEMPLATE_SCHEMA
    )

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

    inputs: StrictStr | list[StrictStr] = Field(
        description="One text, or a list of texts.", json_schema_extra=schema_rules(text_rules, batch_rules, text_rules)
    )
    parameters: HfParameters

    @field_validator("inputs")
    @classmethod
    def _inputs(cls, inputs: str | list[str], info: ValidationInfo) -> str | list[str]:
        if isinstance(inputs, list):
            limit = limits.of(info).max_batch_items
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
            "model": p.model,
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
