"""A job item between intake and the worker: stored validated and resolved, run without a second check.

Intake validates each item once (``intake.py``) and the submit handler chooses its model and resolves its
label set once (``ModelRegistry.resolve``); what goes into the store is that resolved request, its model
named, with the set's per-label thresholds and warnings when it names one, as JSON. The worker turns it
back into the same objects without validating it again (``from_store``) and runs a slice of them through
each model's ``Pipeline.classify`` as one job call: the same function, and so the same answers, as
``/classify``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service.api.classify import AnswerWarning, ClassifyRequest, ClassifyResponse
from service.core.classification import Classification, Label
from service.errors import ServiceError
from service.jobs.records import item_error
from service.pipeline.call import Call, Sender
from service.pipeline.label_sets import NO_CALIBRATION, CalibrationChoice, Resolved

if TYPE_CHECKING:
    from service.pipeline.calibration import JobCalibration
    from service.pipeline.registry import ModelRegistry


def to_store(resolved: Resolved, key: str | None = None) -> dict[str, Any]:
    """What the store keeps for one item (JSON: a Redis Stream entry holds it); ``key``: the id of the API key
    that submitted it (its traffic calibration is that key's scope, as on /classify)."""
    out: dict[str, Any] = {"request": _fields(resolved.request)}
    if key is not None:
        out["key"] = key
    if resolved.thresholds:
        out["thresholds"] = resolved.thresholds
    if resolved.warnings:
        out["warnings"] = [w.model_dump(mode="json") for w in resolved.warnings]
    if resolved.calibration != NO_CALIBRATION:  # a frozen fit travels with its offsets: any replica applies it
        out["calibration"] = resolved.calibration.as_json()
    return out


def calibration_mode(item: dict[str, Any]) -> str:
    """The calibration a stored item asks for (none, traffic, frozen or job)."""
    return item.get("calibration", {}).get("mode", "none")


def from_store(item: dict[str, Any]) -> Resolved | Classification:
    """The stored item as intake left it, rebuilt without a second check (it was validated at intake). An
    item queued by a version before this format (a bare /classify body) is validated as the request it is."""
    if "request" not in item:
        return ClassifyRequest.model_validate(item).classification()
    fields = dict(item["request"])
    if isinstance(fields.get("labels"), list):
        fields["labels"] = tuple(_label(x) for x in fields["labels"])
    request = Classification(**fields)
    warnings = [AnswerWarning.model_construct(**w) for w in item.get("warnings", ())]
    chosen = CalibrationChoice(**item["calibration"]) if "calibration" in item else NO_CALIBRATION
    return Resolved(request, dict(item.get("thresholds", {})), warnings, chosen)


def _fields(request: Classification) -> dict[str, Any]:
    """A resolved classification as JSON, in the shape of the /classify body it came from (so that items
    stored by one version are read by the next)."""
    out = {k: v for k, v in vars(request).items() if v is not None and k != "labels"}
    out["labels"] = [_label_json(label) for label in request.labels or ()]
    return out


def _label_json(label: Label) -> str | dict[str, Any]:
    if not (label.descriptions or label.hypotheses or label.examples):
        return label.name
    wording = {"description": label.descriptions, "hypothesis": label.hypotheses, "examples": label.examples}
    return {"name": label.name, **{k: list(v) for k, v in wording.items() if v}}


def _label(stored: str | dict[str, Any]) -> Label:
    if isinstance(stored, str):
        return Label(stored)
    wording = [stored.get(k) or () for k in ("description", "hypothesis", "examples")]
    return Label(stored["name"].strip(), *(tuple([w] if isinstance(w, str) else w) for w in wording))


async def classify_items(
    models: ModelRegistry, items: list[dict[str, Any]], calibration: JobCalibration | None = None
) -> list[dict[str, Any]]:
    """A slice of a job's stored items through their models' pipelines: each item's answer as /classify
    gives it, or its own error in its place (the rest of the slice goes on). A model failure fails the
    slice (the worker retries it). ``calibration``: the job's own (items asking for calibration "job"). A
    slice is one job's: its items' submitting key is the call's sender."""
    sender = Sender(key=items[0].get("key")) if items else Sender()
    call = Call(tuple(from_store(i) for i in items), job=True, job_calibration=calibration, sender=sender)
    answers = await models.classify(call)
    return [_result(r) for r in answers.results]


def _result(result: ClassifyResponse | ServiceError) -> dict[str, Any]:
    if isinstance(result, ServiceError):
        return item_error(str(result), result.error_type)
    return result.model_dump(mode="json")
