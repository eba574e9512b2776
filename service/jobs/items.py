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

from service.api.classify import AnswerWarning, ClassifyRequest, ClassifyResponse, LabelObject
from service.errors import ServiceError
from service.jobs.records import item_error
from service.pipeline.label_sets import NO_CALIBRATION, CalibrationChoice, Resolved

if TYPE_CHECKING:
    from service.pipeline.calibration import JobCalibration
    from service.pipeline.registry import ModelRegistry


def to_store(resolved: Resolved) -> dict[str, Any]:
    """What the store keeps for one item (JSON: a Redis Stream entry holds it)."""
    out: dict[str, Any] = {"request": resolved.request.model_dump(mode="json", exclude_none=True)}
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


def from_store(item: dict[str, Any]) -> Resolved | ClassifyRequest:
    """The stored item as intake left it, built without validation (it was validated at intake). An item
    queued by a version before this format (a bare /classify body) is validated as the request it is."""
    if "request" not in item:
        return ClassifyRequest.model_validate(item)
    fields = dict(item["request"])
    if isinstance(fields.get("labels"), list):
        fields["labels"] = [x if isinstance(x, str) else LabelObject.model_construct(**x) for x in fields["labels"]]
    request = ClassifyRequest.model_construct(**fields)
    warnings = [AnswerWarning.model_construct(**w) for w in item.get("warnings", ())]
    chosen = CalibrationChoice(**item["calibration"]) if "calibration" in item else NO_CALIBRATION
    return Resolved(request, dict(item.get("thresholds", {})), warnings, chosen)


async def classify_items(
    models: ModelRegistry, items: list[dict[str, Any]], calibration: JobCalibration | None = None
) -> list[dict[str, Any]]:
    """A slice of a job's stored items through their models' pipelines: each item's answer as /classify
    gives it, or its own error in its place (the rest of the slice goes on). A model failure fails the
    slice (the worker retries it). ``calibration``: the job's own (items asking for calibration "job")."""
    answers = await models.classify([from_store(i) for i in items], job=True, job_calibration=calibration)
    return [_result(r) for r in answers.results]


def _result(result: ClassifyResponse | ServiceError) -> dict[str, Any]:
    if isinstance(result, ServiceError):
        return item_error(str(result), result.error_type)
    return result.model_dump(mode="json")
