"""The writer of ``service/core/predicate_calibration.json``, the decision calibration the server ships and
reads with ``service.core.decisions.load_calibrations``. The values are fitted by a study
(``python -m bench.studies.decisions_study --write-calibration``); the file's shape is written here, once, so
that a fast test (tests/tooling/test_predicate_calibration.py) shows the server reads back what is written.

- ``predicate_fields``: a fitted ``PredicateProbabilityMap`` as the fields the server builds it from;
- ``model_entry``: one model revision's entry: those fields with the model, its prefixes and where the fit
  was measured, the choice sharpening and its held-out numbers;
- ``calibration_json``: the file's text; ``write_calibrations``: entries merged into the file (the revisions
  not refitted are kept).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from service.core.decisions import CALIBRATION_FILE, PredicateProbabilityMap, load_calibrations

ABOUT = (
    "Decision calibration per model revision (service/core/decisions.py reads it). Predicates: p = sigmoid(slope "
    "* x + intercept), x the input's cosine to the statement t-normalised by its cosines to the cohort statements "
    "(on: t-norm), with the model's prefixes, for even prior odds. Choices worded as answers to their "
    "instructions: probabilities to the power choice_sharpen, renormalised. Written by `python -m "
    "bench.studies.decisions_study --write-calibration`; held_out: measured on texts the fit never saw."
)


def predicate_fields(fitted: PredicateProbabilityMap) -> dict:
    """The fields ``service.core.decisions.probability_map_for`` builds the map from, in the file's order."""
    return {"on": fitted.on, "slope": fitted.slope, "intercept": fitted.intercept, "cohort": list(fitted.cohort)}


def model_entry(calibration: Mapping, sharpen: float, shipped_choice_rows: Sequence[Mapping]) -> dict:
    """One model revision's entry: its predicate ``calibration`` (``predicate_fields`` with ``model``, ``tag``,
    ``text_prefix``, ``label_prefix``, ``fitted_on`` and ``held_out``), the factor its choices worded as
    answers are sharpened by (4 decimals) and the held-out NLL and top-probability ECE of the shipped choice
    wording (the mean over ``shipped_choice_rows``, each with ``nll`` and ``top_ece``; 4 decimals)."""
    if not shipped_choice_rows:
        raise ValueError("no held-out rows of the shipped choice wording")
    return {
        **calibration,
        "choice_sharpen": round(float(sharpen), 4),
        "choice_held_out": {
            "nll": round(float(np.mean([x["nll"] for x in shipped_choice_rows])), 4),
            "top_ece": round(float(np.mean([x["top_ece"] for x in shipped_choice_rows])), 4),
        },
    }


def calibration_json(models: Mapping[str, Mapping]) -> str:
    """The file's text: ``ABOUT`` and the entries keyed by model revision."""
    return json.dumps({"about": ABOUT, "models": dict(models)}, indent=2, ensure_ascii=False) + "\n"


def write_calibrations(entries: Mapping[str, Mapping], path: Path = CALIBRATION_FILE) -> dict[str, dict]:
    """Write ``entries`` (model revision -> ``model_entry``) into the file at ``path``, keeping the revisions
    it already holds that are not among them (read as the server reads them); returns what was written."""
    models = load_calibrations(path)
    models.update({revision: dict(entry) for revision, entry in entries.items()})
    path.write_text(calibration_json(models), encoding="utf-8")
    return models
