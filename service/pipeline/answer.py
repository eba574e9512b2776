"""From a prepared request and its scores to the answer: the ranking, the decision (``predicted``),
``top_k``, and the model that produced it. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from service.api.classify import NOT_CALIBRATED, CalibrationApplied, ClassifyResponse
from service.pipeline.prepare import PreparedRequest

DEFAULT_MULTI_LABEL_THRESHOLD = 0.5


def answer(
    prepared: PreparedRequest,
    scores: Sequence[float],
    model: str,
    revision: str,
    calibration: CalibrationApplied = NOT_CALIBRATED,
) -> ClassifyResponse:
    """``scores`` are in the request's label order (corrected by ``calibration`` already: the decision
    keeps its rule on the scores the answer shows)."""
    request = prepared.request
    ranked = sorted(zip(prepared.names, scores), key=lambda p: p[1], reverse=True)
    if request.multi_label:
        cut = DEFAULT_MULTI_LABEL_THRESHOLD if request.threshold is None else request.threshold
        predicted: str | list[str] | None = [name for name, s in ranked if s >= prepared.thresholds.get(name, cut)]
    else:
        name, top = ranked[0]
        predicted = name if request.threshold is None or top >= request.threshold else None
    shown = ranked[: request.top_k] if request.top_k else ranked
    return ClassifyResponse(
        labels=[name for name, _ in shown],
        scores=[s for _, s in shown],
        multi_label=request.multi_label,
        predicted=predicted,
        truncated=prepared.truncated,
        windows=prepared.windows,
        warnings=prepared.warnings,
        model=model,
        revision=revision,
        calibration=calibration,
    )
