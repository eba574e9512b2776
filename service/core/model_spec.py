"""What the service needs to know about a model, stored as BentoML model metadata at import time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

Kind = Literal["nli", "embedding"]
EXAMPLE_RULES = ("prototype", "nearest", "blend")

# Templates: transformers' pipeline uses "This example is {}.", ModelScope's uses the bare label "{}".
DEFAULT_NLI_TEMPLATE = "This example is {}."
DEFAULT_EMBEDDING_TEMPLATE = "{}"


@dataclass(frozen=True)
class ModelSpec:
    kind: Kind
    default_template: str
    max_length: int
    source: str
    revision: str
    # nli: which logit is entailment / contradiction
    entailment_index: int | None = None
    contradiction_index: int | None = None
    # embedding: score = softmax(scale * cos) or sigmoid(scale * (cos - bias)) for multi-label
    logit_scale: float = 20.0
    multi_label_bias: float = 0.3
    # embedding: what goes before every text and every label hypothesis (e5: "query: " / "passage: "),
    # and how token vectors become one (the backends implement mean pooling + L2 normalisation)
    text_prefix: str = ""
    label_prefix: str = ""
    pooling: str = "mean"
    normalize: bool = True
    # ISO 639-1 codes of the languages the model was trained for; empty = not known
    languages: tuple[str, ...] = ()
    # embedding: how a label's example texts join its wording (core.scoring.example_evidence): the rule
    # (prototype | nearest | blend) and the wording's weight in a blend are a request's or label set's
    # defaults; the shift puts text-to-text cosines on the text-to-label scale when only one label has
    # examples (with two or more it is measured on the request itself)
    example_rule: str = "blend"
    example_weight: float = 0.2
    example_shift: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in ("nli", "embedding"):
            raise ValueError(f"unknown model kind {self.kind!r} (expected 'nli' or 'embedding')")
        if self.kind == "nli" and (self.entailment_index is None or self.contradiction_index is None):
            raise ValueError("an nli model needs entailment_index and contradiction_index")
        if "{}" not in self.default_template:
            raise ValueError("default_template must contain '{}'")
        if self.max_length < 8:
            raise ValueError("max_length must be at least 8 tokens")
        if self.pooling != "mean" or not self.normalize:
            raise ValueError("only mean pooling with L2 normalisation is implemented (pooling=mean, normalize=true)")
        if self.logit_scale <= 0:
            raise ValueError("logit_scale must be positive")
        if self.example_rule not in EXAMPLE_RULES:
            raise ValueError(f"example_rule must be one of {', '.join(EXAMPLE_RULES)}, got {self.example_rule!r}")
        if not 0.0 <= self.example_weight <= 1.0:
            raise ValueError("example_weight must be in [0, 1]")

    def to_metadata(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if v is not None}
        out["languages"] = list(self.languages)
        return out

    @classmethod
    def from_metadata(cls, meta: Mapping[str, Any]) -> ModelSpec:
        """From a stored model's ``info.metadata`` (unknown keys ignored: newer imports may add some)."""
        known = {k: meta[k] for k in cls.__dataclass_fields__ if k in meta}
        if "languages" in known:
            known["languages"] = tuple(known["languages"])
        return cls(**known)


@dataclass(frozen=True)
class StoredModel:
    """A model in the model store: its tag, its directory and the metadata the import wrote."""

    tag: str
    path: Path
    metadata: Mapping[str, Any]
    created: int = 0  # when it was put in the store, Unix seconds (0: not known)
