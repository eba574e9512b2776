"""A label set's file (YAML, ``ZSC_LABEL_SETS``) as a model: its labels validated with /classify's own rules,
its thresholds, the model it was tuned on and its calibration. How a request uses one: ``pipeline.label_sets``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from service.api import limits
from service.api.classify import ClassifyRequest, ExampleRule, LabelObject, Probability, labels_of
from service.config import model_name
from service.core.classification import pairs_of


class FrozenCalibration(BaseModel):
    """Per-label offsets fitted offline on unlabelled texts with the set's own wording (``zsc calibrate``):
    the same correction on every replica and after every restart."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["frozen"] = "frozen"
    model: StrictStr
    revision: StrictStr
    texts: StrictInt = Field(ge=0)
    offsets: dict[str, StrictFloat | StrictInt]  # per label name, in logit units (embedding models: both modes)
    multi_label_offsets: dict[str, StrictFloat | StrictInt] | None = None  # NLI: entailment minus contradiction
    fitted: dict[str, Any] | None = None

    def applies_to(self, model: str, revision: str) -> bool:
        return self.model == model_name(model) and self.revision == revision


class LabelSet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: StrictStr = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
    description: StrictStr | None = None
    labels: list[StrictStr | LabelObject]
    hypothesis_template: StrictStr | None = None
    multi_label: StrictBool | None = None
    threshold: Probability | None = None
    thresholds: dict[str, Probability] = Field(default_factory=dict)
    example_rule: ExampleRule | None = None  # how its labels' examples join their wording (zsc tune's pick)
    example_weight: Probability | None = None
    model: StrictStr | None = None
    revision: StrictStr | None = None
    tuning: dict[str, Any] | None = None
    calibration: Literal["none", "traffic"] | FrozenCalibration | None = None
    # traffic calibration with API keys on: "key" (the default) keeps each key's records apart; "shared" lets
    # every key's texts with the set's own wording learn one record together (a team's keys)
    calibration_scope: Literal["key", "shared"] | None = None

    @model_validator(mode="after")
    def _fit_names_the_labels(self) -> LabelSet:
        if isinstance(self.calibration, FrozenCalibration):
            for key in ("offsets", "multi_label_offsets"):
                given = getattr(self.calibration, key)
                if given is not None and set(given) != set(self.names):
                    raise ValueError(f"calibration {key} must name every label of the set once: {sorted(self.names)}")
        return self

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels, info: ValidationInfo):
        # the request's own rules (non-empty, unique, lengths, phrasings, limits) where the set is served;
        # `zsc tune` writes sets for a service whose limits it does not know (context {"limits": False})
        if (info.context or {}).get("limits", True) is False:
            return labels
        most = limits.of(info)
        request = ClassifyRequest.model_validate({"text": "x", "labels": labels}, context=limits.context(most))
        if problem := request.classification().repeated_label():
            raise ValueError(problem)
        words = labels_of(request.labels)
        if (examples := sum(len(x.examples) for x in words)) > most.max_examples_per_request:
            raise ValueError(
                f"{examples} example texts; the limit is {most.max_examples_per_request} (ZSC_MAX_EXAMPLES_PER_REQUEST)"
            )
        if (pairs := pairs_of(words)) > most.max_pairs_per_request:
            raise ValueError(f"{pairs} pairs; the limit is {most.max_pairs_per_request} (ZSC_MAX_PAIRS_PER_REQUEST)")
        return request.labels

    def defaults(self) -> dict[str, Any]:
        """The classification fields this set gives (validated when it was loaded)."""
        out: dict[str, Any] = {"labels": labels_of(self.labels)}
        for key in ("hypothesis_template", "multi_label", "threshold", "example_rule", "example_weight"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @property
    def names(self) -> list[str]:
        return [x if isinstance(x, str) else x.name for x in self.labels]

    def summary(self, model: str, revision: str) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "labels": self.names,
            "hypothesis_template": self.hypothesis_template,
            "multi_label": self.multi_label,
            "threshold": self.threshold,
            "thresholds": self.thresholds,
            "examples": sum(len(x.examples or ()) for x in self.labels if isinstance(x, LabelObject)),
            "example_rule": self.example_rule,
            "example_weight": self.example_weight,
            "model": self.model,
            "revision": self.revision,
            "matches_model": self.matches(model, revision),
            "calibration": self.calibration_summary(model, revision),
        }

    def calibration_summary(self, model: str, revision: str) -> dict[str, Any]:
        """Its calibration as GET /label_sets shows it (a traffic one's texts are the route's to fill in)."""
        frozen = self.calibration if isinstance(self.calibration, FrozenCalibration) else None
        return {
            "mode": "frozen" if frozen else self.calibration or "none",
            "texts": frozen.texts if frozen else None,
            "calibrated": frozen is not None and frozen.applies_to(model, revision),
        }

    def matches(self, model: str, revision: str) -> bool:
        """False when the set says it was tuned on another model or revision."""
        return (self.model is None or self.model == model_name(model)) and (
            self.revision is None or self.revision == revision
        )
