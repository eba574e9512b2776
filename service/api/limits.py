"""The limits a request is validated against, built from ``Settings`` (one source: the settings the process
runs with), and how a validator finds them.

pydantic's validation context carries them (``Model.model_validate(body, context={"limits": limits})``):
the job intake, label-set loading, the Hugging Face route and the tests pass them so. A body BentoML
validates itself gets no context: its validators use the limits the serving process put in force at
start-up (``use``, from the settings it was built with), which the OpenAPI document states too. Nothing
here reads the environment.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationInfo

from service.config import Settings


@dataclass(frozen=True)
class RequestLimits:
    max_text_chars: int
    max_labels: int
    max_label_chars: int
    max_template_chars: int
    max_description_chars: int
    max_phrasings: int
    max_examples_per_label: int
    max_example_chars: int
    max_batch_items: int
    job_max_items: int
    max_windows: int  # checked with the tokenizer (pipeline.prepare)
    max_pairs_per_request: int  # per call (pipeline.prepare), and a label set's own when it is loaded
    max_examples_per_request: int

    @classmethod
    def from_settings(cls, s: Settings) -> RequestLimits:
        return cls(**{f.name: getattr(s, f.name) for f in dataclasses.fields(cls)})


_in_force = RequestLimits.from_settings(Settings())  # the settings' defaults until the process says otherwise


def use(limits: RequestLimits) -> None:
    """The limits of this process's requests, for the bodies validated without a context (the serving
    process calls it once, before its API's document is made)."""
    global _in_force
    _in_force = limits


def in_force() -> RequestLimits:
    return _in_force


def of(info: ValidationInfo | None) -> RequestLimits:
    """The limits a validator applies: its validation context's, else the ones in force."""
    context: Any = info.context if info is not None else None
    if isinstance(context, dict) and isinstance(context.get("limits"), RequestLimits):
        return context["limits"]
    return _in_force


def context(limits: RequestLimits | None = None) -> dict[str, Any]:
    """A validation context carrying ``limits`` (the ones in force when not given)."""
    return {"limits": limits or _in_force}
