"""A job's own calibration ("calibration": "job"): its texts are the sample. Pure: the store keeps the sums.

The estimate pass scores each chunk's items that ask for it raw (``pipeline.calibration.JobCalibration``
collects their wording evidence per group: model revision, space and label wording) and turns each group's
texts into additive sums (``core.calibration.observe``, no decay; a text's skew weight from how often its
top label won among the texts summed before it, as traffic does): ``sample_sums``. The store adds them up,
once per chunk, in one hash; when every chunk is in, the answer pass reads it back (``fitted``): per group,
the offsets (or None below ``ZSC_CALIBRATION_MIN_TEXTS`` texts) and the texts behind them.

Chunks run on any replica in any order, so a text's weight depends a little on which chunks were summed
before its own; the study measured this streaming estimate within 0.001-0.002 accuracy of the fit over the
whole sample at once (docs/evaluation.md). A job's answers are not bit-for-bit reproducible across runs:
a frozen calibration (``zsc calibrate``) is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from service.core.calibration import CalibrationConfig, LabelStats, from_fields, observe, offsets, to_fields
from service.pipeline.calibration import JobCalibration

SEP = "#"  # between a group and a field (groups hold ':', fields '|')


def no_decay(config: CalibrationConfig) -> CalibrationConfig:
    """A job's texts all count the same, whatever their order."""
    return replace(config, half_life=math.inf)


def groups_of(sums: Mapping[str, float]) -> dict[str, LabelStats]:
    """The job's summed sample, per group (a group's labels are its record positions "0".."K-1")."""
    fields: dict[str, dict[str, float]] = {}
    for name, value in sums.items():
        group, sep, field = name.rpartition(SEP)
        if sep:
            fields.setdefault(group, {})[field] = value
    out = {}
    for group, own in fields.items():
        k = sum(1 for f in own if f.startswith("s|"))
        out[group] = from_fields([str(j) for j in range(k)], own)
    return out


def sample_sums(
    calibration: JobCalibration, summed: Mapping[str, float], config: CalibrationConfig
) -> dict[str, float]:
    """A chunk's sample as sums to add to the job's (``summed``: what the store holds so far, the
    reference for the skew weights)."""
    before = groups_of(summed)
    out: dict[str, float] = {}
    for group, rows in calibration.sample.items():
        evidence = np.stack(rows)
        labels = [str(j) for j in range(evidence.shape[1])]
        reference = before.get(group) or LabelStats.empty(labels)
        delta = observe(reference, evidence, no_decay(config))
        out.update({f"{group}{SEP}{k}": v for k, v in to_fields(delta).items()})
    return out


def fitted(sums: Mapping[str, float], config: CalibrationConfig) -> JobCalibration:
    """The answer pass's calibration from the job's summed sample."""
    fit = {g: (offsets(s, config), int(round(s.texts))) for g, s in groups_of(sums).items()}
    return JobCalibration(fitted=fit)
