"""Frozen calibration (``zsc calibrate``): a label set's per-label offsets fitted once, offline, on
unlabelled texts, and written into the set, so that every replica answers the same from its first request.

The texts go through a running service (any URL: one replica, or nginx) as ``/classify_batch`` calls with
the set's labels and template, without examples (only the wording is calibrated) and ``calibration:
"none"``. The raw evidence is read back from the answers: single-label scores are a softmax of it, so their
logs equal it up to one constant per text, which the fit's centring removes (``core.calibration`` works on
each text's evidence minus its mean); an NLI model's multi-label scores are a sigmoid of its other evidence
(entailment minus contradiction), read back as their logits. No endpoint of its own: the same path as
every answer, cache included. The fit is ``core.calibration.fit`` over the whole file at once (no decay;
skew-capped and shrunk as traffic calibration is), the offsets then written by label name.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from service.config import model_name
from service.core.calibration import CalibrationConfig, fit, offsets
from service.pipeline.label_sets import FrozenCalibration, LabelSet
from service.quality.evaluation import Remote

TINY = 1e-300  # a score that underflowed to 0 still has a (very low) evidence


class TooFewTexts(ValueError):
    pass


def bodies(label_set: LabelSet, texts: Sequence[str], multi_label: bool = False) -> list[dict[str, Any]]:
    """The calls that read the set's raw wording evidence for each text."""
    labels = [x if isinstance(x, str) else _wording_only(x.model_dump(exclude_none=True)) for x in label_set.labels]
    common: dict[str, Any] = {"labels": labels, "multi_label": multi_label, "calibration": "none"}
    if label_set.hypothesis_template:
        common["hypothesis_template"] = label_set.hypothesis_template
    if label_set.model:
        common["model"] = label_set.model
    return [{"text": t, **common} for t in texts]


def _wording_only(label: dict[str, Any]) -> dict[str, Any] | str:
    label.pop("examples", None)
    return label if len(label) > 1 else label["name"]


def evidence(answers: Sequence[dict], names: Sequence[str], multi_label: bool = False) -> np.ndarray:
    """[texts, labels] evidence (in ``names`` order) read back from the answers, up to a constant per text
    (single-label) or exactly (multi-label logits)."""
    out = np.empty((len(answers), len(names)))
    for i, answer in enumerate(answers):
        by_name = dict(zip(answer["labels"], answer["scores"]))
        p = np.clip(np.array([by_name[n] for n in names], dtype=np.float64), TINY, 1.0)
        out[i] = np.log(p) - np.log(np.clip(1.0 - p, TINY, 1.0)) if multi_label else np.log(p)
    return out


def calibrate(
    remote: Remote, label_set: LabelSet, texts: Sequence[str], config: CalibrationConfig, fitted: dict[str, Any]
) -> FrozenCalibration:
    """The set's frozen calibration on ``texts`` through the service ``remote`` talks to; ``TooFewTexts``
    under ``config.min_texts``; ``fitted``: where it came from (written with it)."""
    if len(texts) < config.min_texts:
        raise TooFewTexts(
            f"{len(texts)} texts; a calibration needs at least {config.min_texts:g} (ZSC_CALIBRATION_MIN_TEXTS): "
            "give it more unlabelled texts of the kind the set will answer"
        )
    names = label_set.names
    keys = [str(j) for j in range(len(names))]
    answers = remote.classify(bodies(label_set, texts), desc="calibrating")
    x = evidence(answers, names)
    single = offsets(fit(x, keys, config), config)
    moved = float(np.mean(x.argmax(1) != (x - (0 if single is None else single)).argmax(1)))
    pairwise = None
    if _is_nli(remote, answers[0]["model"]):  # an NLI model's multi-label answers rest on another evidence
        multi = remote.classify(bodies(label_set, texts, multi_label=True), desc="calibrating multi-label")
        pairwise = offsets(fit(evidence(multi, names, multi_label=True), keys, config), config)
    model, revision = model_name(answers[0]["model"]), answers[0]["revision"]
    return FrozenCalibration(
        model=model,
        revision=revision,
        texts=len(texts),
        offsets=_by_name(names, single),
        multi_label_offsets=None if pairwise is None else _by_name(names, pairwise),
        fitted={**fitted, "top_label_changed": round(moved, 4), "date": time.strftime("%Y-%m-%d %H:%M:%S")},
    )


def _by_name(names: Sequence[str], values: np.ndarray | None) -> dict[str, float]:
    values = np.zeros(len(names)) if values is None else values
    return {n: round(float(v), 6) for n, v in zip(names, values)}


def _is_nli(remote: Remote, tag: str) -> bool:
    import httpx

    models = httpx.get(f"{remote.url.rstrip('/')}/models", timeout=remote.timeout_s).json()["models"]
    return any(m["tag"] == tag and m["kind"] == "nli" for m in models)
