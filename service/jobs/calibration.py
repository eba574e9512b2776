"""A job's own calibration ("calibration": "job"): its texts are the sample. Pure: the store keeps the sums.

The estimate pass scores each chunk's items that ask for it raw (``pipeline.calibration.JobCalibration``
collects their wording evidence per group: model revision, space and label wording) and turns each group's
texts into additive sums (``core.calibration.fit_after``: each label's sums per label that won the text, the
skew weights applied when the offsets are read; two labels also count their margins per bin): ``sample_sums``.
The store adds them up, once per chunk, in one hash; when every chunk is in, the answer pass reads it back
(``fitted``): per group, the offsets (or None below ``ZSC_CALIBRATION_MIN_TEXTS`` texts), on two labels moved
towards the job's own mix where it is skewed (``core.calibration_mix``), and the texts behind them.

Chunks run on any replica in any order, and the sums are the whole sample's fit whatever the chunks: only the
skew test's count of winners after the correction (``settled``) reads the chunks summed before its own, so a
job's answers are not bit-for-bit reproducible across runs: a frozen calibration (``zsc calibrate``) is.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from service.core.calibration import CalibrationConfig, LabelStats, fit_after, from_fields, job_offsets, to_fields
from service.pipeline.calibration import JobCalibration

SEP = "#"  # between a group and a field (groups hold ':', fields '|')


def groups_of(sums: Mapping[str, float]) -> dict[str, LabelStats]:
    """The job's summed sample, per group (a group's labels are its record positions "0".."K-1")."""
    fields: dict[str, dict[str, float]] = {}
    for name, value in sums.items():
        group, sep, field = name.rpartition(SEP)
        if sep:
            fields.setdefault(group, {})[field] = value
    out = {}
    for group, own in fields.items():
        k = sum(1 for f in own if f.startswith("w|"))
        out[group] = from_fields([str(j) for j in range(k)], own)
    return out


def sample_sums(
    calibration: JobCalibration, summed: Mapping[str, float], config: CalibrationConfig
) -> dict[str, float]:
    """A chunk's sample as sums to add to the job's (``summed``: what the store holds so far, the
    correction the skew test reads this chunk's winners after)."""
    before = groups_of(summed)
    out: dict[str, float] = {}
    for group, rows in calibration.sample.items():
        evidence = np.stack(rows)
        labels = [str(j) for j in range(evidence.shape[1])]
        reference = before.get(group) or LabelStats.empty(labels)
        delta = fit_after(reference, evidence, config)
        out.update({f"{group}{SEP}{k}": v for k, v in to_fields(delta).items()})
    return out


def fitted(sums: Mapping[str, float], config: CalibrationConfig) -> JobCalibration:
    """The answer pass's calibration from the job's summed sample."""
    fit = {g: (job_offsets(s, config), int(round(s.texts))) for g, s in groups_of(sums).items()}
    return JobCalibration(fitted=fit)
