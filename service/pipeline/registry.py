"""The models a replica serves (``ZSC_MODELS``), each with its own pipeline, and the choice of one per request.

Each served model has its own engine, tokenizer, adaptive batcher and in-process cache tier (``build.py``),
so a batch never mixes models and one model's queue sheds only its own requests. A request names its model
(``model``: a name or a full tag, or ``auto``: the first model, in the order ``ZSC_MODELS`` lists them, whose
languages cover the text's script); without one, a request naming a label set goes to the model the set was
tuned on when this replica serves it, anything else to the default (the first listed). ``classify`` splits
a call by model, runs each part through its model's ``Pipeline.classify`` (at the same time: the parts
queue in different batchers) and answers in the call's order.

Each model has its own learned in-flight limit (``service.admission``): an interactive call holds a slot of
each model it uses, or is refused (``AtCapacity``, 429) naming the model that is full, so a flood on one
model sheds only its own requests while another's still pass. The registry tells admission which models it
serves (``serve``) and asks for the slots of a call's models (``models``); with one model the edge took its
slot already. Jobs take no slot: they yield.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.admission.gate import Admission
from service.api.classify import ClassifyResponse
from service.core.classification import Classification
from service.core.languages import mismatch
from service.core.model_spec import ModelSpec
from service.errors import LastModel, ModelNotFound, ServiceError
from service.obs import request_context
from service.pipeline.call import Call
from service.pipeline.label_sets import LabelSet, Resolved
from service.pipeline.pipeline import Answers, Pipeline, merged_cache
from service.pipeline.usage import TokenUsage

AUTO = "auto"  # a request's `model`: chosen per text by the script it is written in (no model may be named so)


@dataclass
class ServedModel:
    name: str  # the model's name in the store (its tag without the version)
    tag: str
    spec: ModelSpec
    pipeline: Pipeline
    memory_mb: float  # resident memory its loading added to the process
    components: Any = None  # what build() made for it (engine, batcher, scorer)
    created: int = 0  # when it was put in the model store, Unix seconds (0: not known)
    runtime: dict[str, Any] | None = None  # its runtime and precision, and how they were chosen

    def summary(self, default: bool) -> dict[str, Any]:
        return {
            "name": self.name,
            "tag": self.tag,
            "default": default,
            "kind": self.spec.kind,
            "languages": list(self.spec.languages),
            "max_length": self.spec.max_length,
            "revision": self.spec.revision,
            "state": "ready",
            "memory_mb": round(self.memory_mb, 1),
            "example_rule": self.spec.example_rule if self.spec.kind == "embedding" else None,
            "example_weight": self.spec.example_weight if self.spec.kind == "embedding" else None,
            **_runtime_fields(self.runtime),
        }


def _runtime_fields(choice: dict[str, Any] | None) -> dict[str, Any]:
    """GET /models' runtime, precision and why (``engine.runtime_probe.RuntimeChoice.as_dict``)."""
    if choice is None:
        return {"runtime": None, "precision": None, "runtime_choice": None}
    return {"runtime": choice["runtime"], "precision": choice["precision"], "runtime_choice": choice}


class ModelRegistry:
    def __init__(self, served: Sequence[ServedModel], label_sets: dict[str, LabelSet], admission: Admission) -> None:
        if not served:
            raise ValueError("a replica serves at least one model")
        if any(m.name == AUTO for m in served):
            raise ValueError(f"a model may not be named {AUTO!r}: requests use it to let the replica choose")
        self.label_sets = label_sets
        self.admission = admission
        self._set(list(served))

    def _set(self, served: list[ServedModel]) -> None:
        """Swap the list whole (calls under way keep the one they took) and tell admission."""
        self.served = served
        self.admission.serve([m.name for m in served])

    @property
    def default(self) -> ServedModel:
        return self.served[0]

    def find(self, wanted: str | None) -> ServedModel:
        """The model a request names (its name, or its full tag), or the default; ``ModelNotFound``."""
        if wanted is None:
            return self.default
        for model in self.served:
            if wanted in (model.name, model.tag):
                return model
        raise ModelNotFound(wanted, [m.name for m in self.served])

    def for_request(self, request: Classification) -> ServedModel:
        if request.model == AUTO:
            return self.for_text(request.text)
        if request.model is not None:
            return self.find(request.model)
        return self.for_label_set(request.label_set)

    def for_text(self, text: str) -> ServedModel:
        """The first model whose languages cover the text's script (a model that does not say which it
        covers, too), else the default: the operator's order states the preference."""
        for model in self.served:
            if mismatch(text, model.spec.languages) is None:
                return model
        return self.default

    def for_label_set(self, name: str | None) -> ServedModel:
        """The model a label set runs on without a ``model``: the one it was tuned on, when served here."""
        found = self.label_sets.get(name) if name is not None else None
        if found is not None and found.model is not None:
            for model in self.served:
                if found.model == model.name:
                    return model
        return self.default

    def resolve(self, request: Classification) -> Resolved:
        """The request's model chosen, its label set resolved for that model and its rules checked (a call
        of its own): what a job stores, so that any replica runs an item on the model this one chose, and
        never checks it again."""
        model = self.for_request(request)
        return model.pipeline.checked(request, pin=model.name)

    async def classify(self, call: Call) -> Answers:
        """Answers in the call's order; each model's part through its own ``Pipeline.classify``. An item of
        a job naming a model this replica does not serve gets that error in its place; a job's calibration
        names the model's revision in its groups; usage is summed over the call's models."""
        parts: dict[str, list[int]] = {}
        failed: dict[int, ServiceError] = {}
        by_name = {m.name: m for m in self.served}  # this call's models, whatever is loaded meanwhile
        for i, r in enumerate(call.items):
            try:
                model = self.for_request(r.request if isinstance(r, Resolved) else r)
            except ModelNotFound as exc:
                if not call.job:
                    raise
                failed[i] = exc
                continue
            parts.setdefault(model.name, []).append(i)
        request_context.note_models(list(parts))
        slots = self.admission.models(list(parts)) if not call.job else contextlib.nullcontext()
        with slots:
            calls = (by_name[name].pipeline.classify(call.part(positions)) for name, positions in parts.items())
            answered = await asyncio.gather(*calls)
        results: list[ClassifyResponse | ServiceError | None] = [None] * len(call.items)
        for positions, answers in zip(parts.values(), answered):
            for i, result in zip(positions, answers.results):
                results[i] = result
        for i, exc in failed.items():
            results[i] = exc
        warnings = sorted({w for a in answered for w in a.warnings})
        counted = [a.usage for a in answered if a.usage is not None]
        tokens = sum(counted, TokenUsage(0, 0)) if call.usage else None
        cache = merged_cache(a.cache for a in answered)
        return Answers([r for r in results if r is not None], cache, warnings, tokens)

    def add(self, model: ServedModel) -> ServedModel | None:
        """Serve ``model`` from now on; one of the same name (another revision) is replaced in its place and
        returned. Calls already under way finish on the models they started on: ``classify`` took its
        models from the list it found, and the list is swapped whole."""
        if model.name == AUTO:
            raise ValueError(f"a model may not be named {AUTO!r}")
        old = next((m for m in self.served if m.name == model.name), None)
        self._set([model if m is old else m for m in self.served] if old else [*self.served, model])
        return old

    def remove(self, wanted: str) -> ServedModel:
        """Stop serving a model (by name or tag); the next in line becomes the default if it was."""
        model = self.find(wanted)
        if len(self.served) == 1:
            raise LastModel(model.name)
        self._set([m for m in self.served if m is not model])
        return model

    def order(self, names: Sequence[str]) -> None:
        """Put these models first, in this order (the first becomes the default); the others keep theirs."""
        rank = {name: i for i, name in enumerate(names)}
        self._set(sorted(self.served, key=lambda m: rank.get(m.name, len(rank))))

    def interactive_busy(self) -> bool:
        """Whether any model has interactive calls in flight (a job yields then: the cores are shared)."""
        return any(m.pipeline.interactive_busy() for m in self.served)

    def summaries(self) -> list[dict[str, Any]]:
        return [m.summary(default=m is self.default) for m in self.served]
