"""The decision answers' maths: choice and score distributions, confidence, the predicate probability (and
its calibration, exactly as the service's scores make it), and the fitting and measuring of calibrations."""

from __future__ import annotations

import json
import math
from itertools import permutations

import numpy as np
import pytest

from service.core import decisions
from service.core.decisions import (
    PredicateProbabilityMap,
    choice_answer,
    choice_sharpening_for,
    confidence,
    distribution,
    expected_calibration_error,
    fit_platt,
    load_calibrations,
    pairwise_evidence,
    predicate_probability,
    probability_map_for,
    roc_auc,
    score_answer,
    similarity_from_pairwise,
    t_norm,
)
from service.core.model_spec import ModelSpec
from service.core.scoring import embedding_scores, nli_scores

pytestmark = pytest.mark.unit

E5 = ModelSpec(
    kind="embedding",
    default_template="{}",
    max_length=512,
    source="t",
    revision="sha256:e5",
    logit_scale=125.0,
    multi_label_bias=0.83,
    text_prefix="query: ",
    label_prefix="passage: ",
)
MINILM = ModelSpec(kind="embedding", default_template="{}", max_length=256, source="t", revision="sha256:mini")
NLI = ModelSpec(
    kind="nli",
    default_template="This example is {}.",
    max_length=512,
    source="t",
    revision="r",
    entailment_index=0,
    contradiction_index=2,
)


# -- choice and score -----------------------------------------------------------------------------------------
def test_confidence_is_how_concentrated_the_distribution_is():
    assert confidence([0.5, 0.5]) == pytest.approx(0.0)
    assert confidence([1 / 118] * 118) == pytest.approx(0.0, abs=1e-12)
    assert confidence([1.0, 0.0, 0.0]) == 1.0
    p = [0.7, 0.2, 0.1]
    assert all(confidence(list(q)) == pytest.approx(confidence(p)) for q in permutations(p))
    h = -sum(x * math.log(x) for x in p)
    assert confidence(p) == pytest.approx(1 - h / math.log(3))
    # not the top probability: at p_top = 0.5, a 118-way answer with the rest spread thin is far more
    # concentrated than a 3-way one
    sharp = [0.5] + [0.5 / 117] * 117
    assert confidence(sharp) > 5 * confidence([0.5, 0.3, 0.2])


def test_distribution_renormalises_and_refuses_nothing():
    assert distribution([2.0, 2.0]).tolist() == [0.5, 0.5]
    assert distribution([1.0, -1e-18]).tolist() == [1.0, 0.0]
    for bad in ([], [0.0, 0.0], [math.nan, 1.0]):
        with pytest.raises(ValueError):
            distribution(bad)


def test_a_choice_is_the_single_label_softmax_in_the_choices_order():
    # the service's single-label scores for the labels [True, "true", "maybe"]
    scores = embedding_scores(np.array([1.0, 0.0]), np.array([[0.6, 0.8], [0.8, 0.6], [0.0, 1.0]]), 20, 0.3, False)
    answer = choice_answer([True, "true", "maybe"], scores)
    assert answer.choice == "true" and type(answer.choice) is str
    assert answer.probabilities == pytest.approx(tuple(scores)) and sum(answer.probabilities) == pytest.approx(1)
    assert answer.confidence == pytest.approx(confidence(scores))
    top = choice_answer([True, "true"], [0.9, 0.1])
    assert top.choice is True
    assert choice_answer(["a", "b", "c"], [0.4, 0.4, 0.2]).choice == "a"  # equals: the first given
    with pytest.raises(ValueError, match="3 choices but 2 scores"):
        choice_answer(["a", "b", "c"], [0.5, 0.5])


def test_sharpening_is_the_softmax_at_a_larger_scale():
    cos = np.array([0.86, 0.85, 0.83])
    scores = embedding_scores(np.array([1.0, 0.0]), np.stack([cos, np.sqrt(1 - cos**2)], axis=1), 125, 0.83, False)
    sharp = choice_answer(["a", "b", "c"], scores, sharpen=3.0)
    expected = np.exp(3 * 125 * cos - (3 * 125 * cos).max())
    assert sharp.probabilities == pytest.approx(tuple(expected / expected.sum()))
    assert sharp.choice == "a" and sharp.confidence > choice_answer(["a", "b", "c"], scores).confidence
    tiny = choice_answer(["a", "b"], [1.0, 1e-200], sharpen=4.0)  # p ** 4 underflows: still a distribution
    assert tiny.probabilities == (1.0, 0.0)
    with pytest.raises(ValueError, match="positive"):
        choice_answer(["a", "b"], [0.5, 0.5], sharpen=0.0)
    table = {"sha256:e5": {"choice_sharpen": 4.0, "text_prefix": "query: ", "label_prefix": "passage: "}}
    assert choice_sharpening_for(E5, table) == 4.0 and choice_sharpening_for(MINILM, table) == 1.0
    assert choice_sharpening_for(ModelSpec(**{**E5.__dict__, "text_prefix": ""}), table) == 1.0


def test_a_score_is_the_expected_level():
    certain = score_answer([0.0, 0.0, 1.0])
    assert certain.score == 2.0 and certain.confidence == 1.0
    flat = score_answer([1 / 3] * 3)
    assert flat.score == pytest.approx(1.0) and flat.confidence == pytest.approx(0.0)
    between = score_answer([0.1, 0.2, 0.3, 0.4])
    assert between.score == pytest.approx(0.2 + 0.6 + 1.2) and between.probabilities == pytest.approx(
        (0.1, 0.2, 0.3, 0.4)
    )


# -- predicates ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [E5, MINILM])
def test_the_cosine_comes_back_exactly_from_the_pairwise_score(spec):
    cos = np.linspace(-1, 1, 41) if spec is MINILM else np.linspace(0.6, 1.0, 41)
    text = np.array([1.0, 0.0])
    labels = np.stack([cos, np.sqrt(1 - cos**2)], axis=1)
    pairwise = np.array(
        [embedding_scores(text, row[None, :], spec.logit_scale, spec.multi_label_bias, False)[0] for row in labels]
    )
    # exact to float precision: 1 - score is ~1e-9 at e5's top, so ~1e-16 / 1e-9 / scale of the cosine
    assert similarity_from_pairwise(spec, pairwise) == pytest.approx(cos, abs=1e-8)


def test_the_predicate_probability():
    # uncalibrated: the service's own pairwise score (NLI: entailment over [entailment, contradiction])
    logits = np.array([[2.0, 0.5, -1.0]])
    pairwise = float(nli_scores(logits, 0, 2, multi_label=False)[0])
    assert pairwise == pytest.approx(1 / (1 + math.exp(-3.0)))
    assert predicate_probability(NLI, pairwise) == pytest.approx(pairwise)
    # Platt on the logit (NLI) and on the cosine (embeddings)
    assert predicate_probability(NLI, pairwise, PredicateProbabilityMap(0.5, 1.0, "evidence")) == pytest.approx(
        1 / (1 + math.exp(-(0.5 * 3.0 + 1.0)))
    )
    cos = 0.86
    score = 1 / (1 + math.exp(-125 * (cos - 0.83)))
    fitted = PredicateProbabilityMap(30.0, -25.0, "similarity")
    assert predicate_probability(E5, score, fitted) == pytest.approx(1 / (1 + math.exp(-(30 * cos - 25))))
    with pytest.raises(ValueError):
        similarity_from_pairwise(NLI, 0.5)


def pairwise(spec: ModelSpec, cos: float) -> float:
    """The service's score of one label at this cosine (a single label is scored on its own)."""
    text, label = np.array([1.0, 0.0]), np.array([[cos, math.sqrt(1 - cos**2)]])
    return float(embedding_scores(text, label, spec.logit_scale, spec.multi_label_bias, False)[0])


def test_the_t_normalised_predicate_probability():
    cohort_cos = np.array([0.80, 0.82, 0.84, 0.86])
    calibration = PredicateProbabilityMap(1.7, -2.5, "t-norm", ("a", "b", "c", "d"))
    expected = 1 / (1 + math.exp(-(1.7 * (0.87 - cohort_cos.mean()) / cohort_cos.std() - 2.5)))
    got = predicate_probability(E5, pairwise(E5, 0.87), calibration, [pairwise(E5, c) for c in cohort_cos])
    assert got == pytest.approx(expected, rel=1e-6)
    with pytest.raises(ValueError, match="4 cohort statements"):
        predicate_probability(E5, pairwise(E5, 0.87), calibration)
    with pytest.raises(ValueError, match="4 cohort statements"):
        predicate_probability(E5, pairwise(E5, 0.87), calibration, [0.5, 0.5])
    with pytest.raises(ValueError, match="cohort of at least 2"):
        PredicateProbabilityMap(1.0, 0.0, "t-norm")


def test_t_norm_is_per_input():
    cos = np.array([[0.9, 0.8], [0.5, 0.4]])
    cohort = np.array([[0.8, 0.7, 0.9], [0.3, 0.5, 0.4]])
    out = t_norm(cos, cohort)
    assert out[0] == pytest.approx((cos[0] - 0.8) / cohort[0].std())
    assert out[1] == pytest.approx((cos[1] - 0.4) / cohort[1].std())
    assert t_norm(0.9, cohort[0]) == pytest.approx(out[0, 0]) and isinstance(t_norm(0.9, cohort[0]), float)
    assert math.isfinite(t_norm(0.9, np.array([0.5, 0.5])))  # a flat cohort: no division by zero
    with pytest.raises(ValueError):
        t_norm(0.9, np.array([0.5]))


def test_a_known_base_rate_moves_the_intercept_only():
    calibration = PredicateProbabilityMap(1.7, -2.5, "t-norm", ("a", "b"))
    moved = calibration.with_base_rate(0.1)
    assert moved.slope == 1.7 and moved.intercept == pytest.approx(-2.5 + math.log(0.1 / 0.9))
    assert moved.cohort == ("a", "b") and moved.on == "t-norm"
    assert calibration.with_base_rate(0.5) == calibration
    with pytest.raises(ValueError):
        calibration.with_base_rate(1.0)


def test_the_pairwise_tails_stay_finite():
    assert math.isfinite(pairwise_evidence(0.0)) and math.isfinite(pairwise_evidence(1.0))
    assert pairwise_evidence(0.5) == 0.0
    platt = PredicateProbabilityMap(1.0, 0.0, "evidence")
    assert platt.apply(-1e6) == 0.0 and platt.apply(1e6) == 1.0
    with pytest.raises(ValueError):
        PredicateProbabilityMap(math.nan, 0.0)
    with pytest.raises(ValueError):
        PredicateProbabilityMap(1.0, 0.0, "cosine")  # type: ignore[arg-type]
    assert PredicateProbabilityMap(1.0, 0.0, "similarity").apply(np.array([0.0, 1e6])).tolist() == [0.5, 1.0]


def test_a_calibration_is_found_by_revision_and_prefixes(tmp_path):
    table = {
        "sha256:e5": {
            "slope": 1.7,
            "intercept": -2.5,
            "on": "t-norm",
            "cohort": ["x", "y"],
            "text_prefix": "query: ",
            "label_prefix": "passage: ",
        }
    }
    assert probability_map_for(E5, table) == PredicateProbabilityMap(1.7, -2.5, "t-norm", ("x", "y"))
    assert probability_map_for(MINILM, table) is None
    other_prefixes = ModelSpec(**{**E5.__dict__, "label_prefix": "query: "})
    assert probability_map_for(other_prefixes, table) is None  # other prefixes move every cosine
    assert load_calibrations(tmp_path / "absent.json") == {}
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"models": table}))
    assert load_calibrations(path) == table


def test_the_shipped_calibrations_load():
    table = load_calibrations()
    assert table, (
        f"{decisions.CALIBRATION_FILE} is missing: python -m bench.studies.decisions_study --write-calibration"
    )
    for revision, entry in table.items():
        spec = ModelSpec(
            kind="embedding",
            default_template="{}",
            max_length=8,
            source="t",
            revision=revision,
            text_prefix=entry["text_prefix"],
            label_prefix=entry["label_prefix"],
        )
        calibration = probability_map_for(spec, table)
        assert calibration is not None and calibration.slope > 0, revision  # more similar, more likely true
        assert calibration.on == "t-norm" and len(set(calibration.cohort)) == len(calibration.cohort) >= 16
        assert choice_sharpening_for(spec, table) >= 1.0  # question/answer wordings come out flatter, never sharper


# -- fitting and measuring ------------------------------------------------------------------------------------------
def test_platt_scaling_recovers_the_parameters():
    rng = np.random.default_rng(0)
    x = rng.normal(0.8, 0.05, 200_000)
    y = (rng.random(x.size) < 1 / (1 + np.exp(-(40 * x - 32)))).astype(float)
    slope, intercept = fit_platt(x, y)
    assert slope == pytest.approx(40, rel=0.05) and intercept == pytest.approx(-32, rel=0.05)


def test_platt_weights_count_as_repeats():
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    y = np.array([0, 0, 1, 0, 1, 1.0])
    w = np.array([1, 2, 1, 3, 1, 2.0])
    repeated = fit_platt(np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int)))
    assert fit_platt(x, y, w) == pytest.approx(repeated, rel=1e-6)
    separable = fit_platt(x, (x > 0.35).astype(float))
    assert all(math.isfinite(v) for v in separable) and separable[0] > 0
    with pytest.raises(ValueError, match="both classes"):
        fit_platt(x, np.ones_like(x))


def test_expected_calibration_error():
    assert expected_calibration_error([0.95] * 4, [1, 1, 1, 1]) == pytest.approx(0.05)
    # two bins: 0.2 predicted, 1 of 4 true (0.25); 0.9 predicted, 2 of 2 true
    p = [0.2, 0.2, 0.2, 0.2, 0.9, 0.9]
    y = [1, 0, 0, 0, 1, 1]
    assert expected_calibration_error(p, y) == pytest.approx((4 * 0.05 + 2 * 0.1) / 6)
    assert expected_calibration_error([1.0, 0.0], [1, 0]) == 0.0  # p = 1 falls in the last bin


def test_roc_auc_is_the_rank_probability():
    rng = np.random.default_rng(1)
    s = rng.normal(size=300).round(1)  # ties on purpose
    y = (rng.random(300) < 0.3).astype(float)
    pos, neg = s[y == 1], s[y == 0]
    brute = np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])
    assert roc_auc(s, y) == pytest.approx(brute)
    assert roc_auc([0.1, 0.2, 0.9], [0, 0, 1]) == 1.0 and roc_auc([0.9, 0.1], [0, 1]) == 0.0
    assert roc_auc([0.5, 0.5], [0, 1]) == 0.5
