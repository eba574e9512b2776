"""The decision calibration file as the study writes it (bench/predicate_calibration.py) and as the server
reads it (service.core.decisions): the fitted map, the choice sharpening and the held-out numbers come back
unchanged; a rewrite keeps the other models; the shipped file is exactly what the writer writes. No model,
no data set."""

from __future__ import annotations

import json

import pytest

from bench.predicate_calibration import (
    ABOUT,
    calibration_json,
    model_entry,
    predicate_fields,
    write_calibrations,
)
from service.core.decisions import (
    CALIBRATION_FILE,
    PredicateProbabilityMap,
    choice_sharpening_for,
    load_calibrations,
    probability_map_for,
    reading_for,
)
from service.core.model_spec import ModelSpec

COHORT = tuple(f"statement {i}" for i in range(16))


def spec(revision: str) -> ModelSpec:
    return ModelSpec(
        kind="embedding",
        default_template="{}",
        max_length=8,
        source="t",
        revision=revision,
        text_prefix="query: ",
        label_prefix="passage: ",
    )


def entry(fitted: PredicateProbabilityMap, sharpen: float, rows: list[dict]) -> dict:
    calibration = {
        "model": "m",
        "tag": "m:1",
        **predicate_fields(fitted),
        "text_prefix": "query: ",
        "label_prefix": "passage: ",
        "fitted_on": "balanced pairs",
        "held_out": {"all sets": {"balanced": {"ece": 0.1, "auc": 0.8}}},
    }
    return model_entry(calibration, sharpen, rows)


def test_what_is_written_is_what_the_server_reads(tmp_path):
    fitted = PredicateProbabilityMap(1.7259679808416157, -2.497155344435674, "t-norm", COHORT)
    rows = [{"nll": 1.0, "top_ece": 0.1, "wording": "x (shipped)"}, {"nll": 2.0, "top_ece": 0.3}]
    path = tmp_path / "predicate_calibration.json"
    written = write_calibrations({"sha256:a": entry(fitted, 1.234567, rows)}, path)

    table = load_calibrations(path)
    assert table == written
    assert probability_map_for(spec("sha256:a"), table) == fitted  # every float to the last bit
    assert choice_sharpening_for(spec("sha256:a"), table) == 1.2346
    assert reading_for(spec("sha256:a"), table).cohort == COHORT
    assert table["sha256:a"]["choice_held_out"] == {"nll": 1.5, "top_ece": 0.2}
    assert json.loads(path.read_text(encoding="utf-8"))["about"] == ABOUT
    assert probability_map_for(spec("sha256:other"), table) is None


def test_a_rewrite_keeps_the_other_models(tmp_path):
    path = tmp_path / "predicate_calibration.json"
    rows = [{"nll": 1.0, "top_ece": 0.1}]
    first = PredicateProbabilityMap(1.0, -1.0, "t-norm", COHORT)
    write_calibrations({"sha256:a": entry(first, 1.5, rows), "sha256:b": entry(first, 1.5, rows)}, path)
    refitted = PredicateProbabilityMap(2.0, -3.0, "t-norm", COHORT[::-1])
    write_calibrations({"sha256:b": entry(refitted, 1.1, rows)}, path)

    table = load_calibrations(path)
    assert list(table) == ["sha256:a", "sha256:b"]
    assert probability_map_for(spec("sha256:a"), table) == first
    assert probability_map_for(spec("sha256:b"), table) == refitted
    assert choice_sharpening_for(spec("sha256:b"), table) == 1.1


def test_an_entry_needs_the_shipped_wordings_rows():
    with pytest.raises(ValueError, match="shipped choice wording"):
        entry(PredicateProbabilityMap(1.0, -1.0, "t-norm", COHORT), 1.0, [])


def test_the_shipped_file_is_what_the_writer_writes():
    """Rewriting the shipped file from what the server reads of it changes nothing: it has the writer's shape
    and note, so the study's next --write-calibration changes only the numbers."""
    assert calibration_json(load_calibrations()) == CALIBRATION_FILE.read_text(encoding="utf-8")
