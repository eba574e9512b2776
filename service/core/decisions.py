"""OpenAI-shaped decision answers from the service's label scores. Pure numpy (the calibration table is
read from a JSON file next to this module, when asked).

A decision question becomes an ordinary classification (the HTTP layer builds it and runs it through
``Pipeline.classify``); this module turns the scores that call returns into the answer's numbers:

- **choice**: the question's choices are the labels of one single-label classification, so the
  probabilities are exactly ``/classify``'s scores (the softmax over the choices), put back in the order
  the choices were given; ``choice`` is the most probable one (the first of equals).
- **score**: the ordered levels are the labels of one single-label classification; ``score`` is the
  expected level index, ``sum(i * p_i)``, as OpenAI defines it ("probability-weighted average of the
  zero-based level indices"), so it may fall between levels.
- **confidence** (choice and score): how concentrated the distribution is, ``1 - H(p) / ln K`` (0 for a
  uniform distribution, 1 for a certain one). langchain-openai documents OpenAI's field as "derived from
  the distribution ... how concentrated the distribution is; it is not the selected value's probability";
  ``bench/studies/decisions_study.py`` measures how well it ranks right answers above wrong ones next to the top
  probability.
- **predicate**: one statement scored on its own, which the service already does for a single label: the
  pairwise score, ``sigmoid(scale * (cos - bias))`` for an embedding model, ``softmax([contradiction,
  entailment])[1] = sigmoid(entailment - contradiction)`` for an NLI model (its answer as it is). For an
  embedding model that number is not a probability: its bias and scale were fitted to rank labels, and a
  raw cosine means different things for different texts and statements (a customer-service utterance sits
  close to every "买家..." statement). So a model with a fitted ``PredicateProbabilityMap`` answers with Platt
  scaling of the **T-normalised** cosine, as speaker verification normalises scores: the input's cosine to
  the statement, minus the mean and over the spread of its cosines to a fixed cohort of unrelated
  statements, ``sigmoid(slope * (cos - mean) / std + intercept)``. Measured (bench/studies/decisions_study.py) it
  is the one feature whose calibration carries across data sets: fitted on balanced pairs and on the natural
  ratio it gets the same slope, only the intercept moves by the log prior odds. The cosines are recovered
  exactly from the pairwise scores, so the HTTP layer needs nothing beyond the scores ``Pipeline.classify``
  returns: the statement's, and (one more classification per request, ``multi_label``) the cohort's.
  The fitted values and their measured calibration: ``predicate_calibration.json`` (written by ``python -m
  bench.studies.decisions_study --write-calibration``), keyed by the model's revision; the probability assumes
  even prior odds (``with_base_rate`` moves it to a known base rate).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from service.core.model_spec import ModelSpec

ChoiceValue = str | bool
CALIBRATION_FILE = Path(__file__).with_name("predicate_calibration.json")
# a pairwise score of exactly 0 or 1 (float rounding far out in the sigmoid's tails) has no finite logit:
# clip it to this distance from the ends first (logit = +-36.8, far past any cosine's reach)
_EDGE = 1e-16


# -- distributions ------------------------------------------------------------------------------------
def distribution(scores: Sequence[float]) -> np.ndarray:
    """Scores as a probability distribution: negatives (float noise) to 0, then divided by their sum (a
    softmax's float sum is 1 only to about 1e-16). Raises on an empty list or an all-zero one."""
    p = np.clip(np.asarray(scores, dtype=np.float64), 0.0, None)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"expected a non-empty list of scores, got shape {p.shape}")
    total = float(p.sum())
    if not math.isfinite(total) or total <= 0.0:
        raise ValueError("scores sum to 0 (or are not finite): not a distribution")
    return p / total


def confidence(probabilities: Sequence[float]) -> float:
    """How concentrated a distribution over K >= 2 outcomes is: 1 - H(p) / ln K, in [0, 1]. 0 when
    every outcome is equally likely, 1 when one is certain; unlike the top probability it does not fall
    just because there are many outcomes (a 118-way choice at p_top = 0.5 is a sharp answer)."""
    p = distribution(probabilities)
    if p.size < 2:
        return 1.0
    nonzero = p[p > 0]
    entropy = float(-(nonzero * np.log(nonzero)).sum())
    return float(min(1.0, max(0.0, 1.0 - entropy / math.log(p.size))))


@dataclass(frozen=True)
class ChoiceResult:
    choice: ChoiceValue
    probabilities: tuple[float, ...]  # in the order the choices were given
    confidence: float


def choice_answer(values: Sequence[ChoiceValue], scores: Sequence[float], sharpen: float = 1.0) -> ChoiceResult:
    """A choice question's answer from the single-label scores of its choices (``/classify``'s scores,
    in the choices' order). Values are returned as given: ``True`` stays a boolean, ``"true"`` a string.

    ``sharpen`` raises the probabilities to that power and renormalises them, which is the softmax at
    ``sharpen`` times the model's scale: choices worded as answers to the question's instructions share
    its words, their cosines draw together, and the scale fitted on bare labels leaves them too flat (the
    model's fitted value: ``choice_sharpening_for``). The top choice never changes."""
    if len(values) != len(scores):
        raise ValueError(f"{len(values)} choices but {len(scores)} scores")
    if not (math.isfinite(sharpen) and sharpen > 0):
        raise ValueError("sharpen must be a positive number")
    p = distribution(scores)
    if sharpen != 1.0:
        logp = np.log(np.maximum(p, 1e-300)) * sharpen  # in log space: no 0 / 0 when every p ** t underflows
        p = distribution(np.exp(logp - logp.max()))
    top = int(np.argmax(p))  # the first of equal maxima: the order the caller gave breaks ties
    return ChoiceResult(values[top], tuple(float(x) for x in p), confidence(p))


@dataclass(frozen=True)
class ScoreResult:
    score: float  # the expected level index, in [0, K - 1]
    probabilities: tuple[float, ...]  # per level, lowest first
    confidence: float


def score_answer(scores: Sequence[float]) -> ScoreResult:
    """A score question's answer from the single-label scores of its levels, lowest level first."""
    p = distribution(scores)
    return ScoreResult(float(np.dot(np.arange(p.size), p)), tuple(float(x) for x in p), confidence(p))


# -- predicates -----------------------------------------------------------------------------------------
Feature = Literal["t-norm", "similarity", "evidence"]


@dataclass(frozen=True)
class PredicateProbabilityMap:
    """Platt scaling of a predicate's evidence, ``sigmoid(slope * x + intercept)``, x being

    - ``t-norm`` (embedding models, what ships): the cosine of input and statement, normalised by the
      input's cosines to the ``cohort`` statements (``t_norm``);
    - ``similarity``: the cosine itself;
    - ``evidence``: the pairwise logit (scale * (cos - bias) for embeddings, entailment - contradiction
      for NLI)."""

    slope: float
    intercept: float
    on: Feature = "t-norm"
    cohort: tuple[str, ...] = ()  # t-norm: the statements the input is compared with besides the question's

    def __post_init__(self) -> None:
        if self.on not in ("t-norm", "similarity", "evidence"):
            raise ValueError(f"calibration 'on' must be t-norm, similarity or evidence, got {self.on!r}")
        if not (math.isfinite(self.slope) and math.isfinite(self.intercept)):
            raise ValueError("calibration slope and intercept must be finite")
        if self.on == "t-norm" and len(self.cohort) < 2:
            raise ValueError("a t-norm calibration needs a cohort of at least 2 statements")

    def apply(self, x: float | np.ndarray) -> float | np.ndarray:
        out = _sigmoid(self.slope * np.asarray(x, dtype=np.float64) + self.intercept)
        return float(out) if np.ndim(out) == 0 else out

    def with_base_rate(self, rate: float) -> PredicateProbabilityMap:
        """The same calibration for data where a ``rate`` share of statements hold (it was fitted on even
        odds): the intercept moves by the log prior odds, the slope stays (measured: it does for t-norm)."""
        if not 0.0 < rate < 1.0:
            raise ValueError("a base rate is in (0, 1)")
        shift = math.log(rate / (1.0 - rate))
        return PredicateProbabilityMap(self.slope, self.intercept + shift, self.on, self.cohort)


def t_norm(similarity: float | np.ndarray, cohort: np.ndarray) -> float | np.ndarray:
    """A cosine normalised by the input's cosines to the cohort statements (last axis of ``cohort``): (cos -
    their mean) / their standard deviation. ``similarity`` [..., k] against ``cohort`` [..., m] of the same
    inputs; a scalar against a 1-D cohort."""
    cohort = np.asarray(cohort, dtype=np.float64)
    if cohort.shape[-1] < 2:
        raise ValueError("t-norm needs the input's similarity to at least 2 cohort statements")
    mean = cohort.mean(axis=-1, keepdims=True)
    std = np.maximum(cohort.std(axis=-1, keepdims=True), 1e-9)  # a degenerate cohort: no division by 0
    out = (np.asarray(similarity, dtype=np.float64) - mean) / std
    return float(out.reshape(())) if np.ndim(similarity) == 0 else out


def pairwise_evidence(pairwise_score: float | np.ndarray) -> float | np.ndarray:
    """The logit behind a pairwise score (the inverse of the sigmoid that made it)."""
    s = np.clip(np.asarray(pairwise_score, dtype=np.float64), _EDGE, 1.0 - _EDGE)
    out = np.log(s) - np.log1p(-s)
    return float(out) if np.ndim(out) == 0 else out


def similarity_from_pairwise(spec: ModelSpec, pairwise_score: float | np.ndarray) -> float | np.ndarray:
    """An embedding model's cosine from its pairwise score: score = sigmoid(scale * (cos - bias))."""
    if spec.kind != "embedding":
        raise ValueError("only an embedding model's pairwise score comes from a cosine")
    return pairwise_evidence(pairwise_score) / spec.logit_scale + spec.multi_label_bias


def predicate_probability(
    spec: ModelSpec,
    pairwise_score: float,
    calibration: PredicateProbabilityMap | None = None,
    cohort_scores: Sequence[float] | None = None,
) -> float:
    """The probability that a statement holds for the input, from the service's score of the statement as
    the only label of a classification (single label = scored on its own: the pairwise score) and, for a
    t-norm calibration, the pairwise scores of the calibration's cohort statements against the same input
    (one multi-label classification, shared by every predicate of a request).

    Without a calibration the pairwise score is the answer: NLI, the entailment probability over
    [entailment, contradiction]; embedding, the model's multi-label sigmoid (uncalibrated)."""
    if calibration is None:
        return float(np.clip(pairwise_score, 0.0, 1.0))
    if calibration.on == "evidence":
        return float(calibration.apply(pairwise_evidence(pairwise_score)))
    similarity = similarity_from_pairwise(spec, pairwise_score)
    if calibration.on == "similarity":
        return float(calibration.apply(similarity))
    if cohort_scores is None or len(cohort_scores) != len(calibration.cohort):
        raise ValueError(
            f"a t-norm calibration needs the input's scores against its {len(calibration.cohort)} cohort statements"
        )
    return float(calibration.apply(t_norm(similarity, similarity_from_pairwise(spec, np.asarray(cohort_scores)))))


def load_calibrations(path: Path = CALIBRATION_FILE) -> dict[str, dict]:
    """The fitted predicate calibrations, keyed by model revision (``{}`` when the file is absent: every
    model then answers with its uncalibrated pairwise score)."""
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")).get("models", {}))


def probability_map_for(spec: ModelSpec, table: Mapping[str, Mapping]) -> PredicateProbabilityMap | None:
    """The calibration fitted for this model: same revision (the weights) and, for an embedding model, the
    same prefixes (they move every cosine). None when there is none: the caller answers uncalibrated."""
    entry = table.get(spec.revision)
    if not entry:
        return None
    if spec.kind == "embedding" and (
        entry.get("text_prefix", spec.text_prefix) != spec.text_prefix
        or entry.get("label_prefix", spec.label_prefix) != spec.label_prefix
    ):
        return None
    return PredicateProbabilityMap(
        float(entry["slope"]), float(entry["intercept"]), entry.get("on", "t-norm"), tuple(entry.get("cohort", ()))
    )


def choice_sharpening_for(spec: ModelSpec, table: Mapping[str, Mapping]) -> float:
    """How much to sharpen this model's choice probabilities (1.0: as the service scores them)."""
    entry = table.get(spec.revision) or {}
    if spec.kind == "embedding" and (
        entry.get("text_prefix", spec.text_prefix) != spec.text_prefix
        or entry.get("label_prefix", spec.label_prefix) != spec.label_prefix
    ):
        return 1.0
    return float(entry.get("choice_sharpen", 1.0))


@dataclass(frozen=True)
class Reading:
    """How a model's scores become answers: its predicate calibration (None: uncalibrated) and the cohort
    statements a t-norm one reads, and the factor its choices worded as answers are sharpened by."""

    calibration: PredicateProbabilityMap | None = None
    cohort: tuple[str, ...] = ()
    sharpen: float = 1.0


def reading_for(spec: ModelSpec, table: Mapping[str, Mapping]) -> Reading:
    calibration = probability_map_for(spec, table)
    cohort = calibration.cohort if calibration is not None and calibration.on == "t-norm" else ()
    return Reading(calibration, cohort, choice_sharpening_for(spec, table))


# -- fitting and measuring a calibration ---------------------------------------------------------------
def fit_platt(x: Sequence[float], y: Sequence[float], weights: Sequence[float] | None = None) -> tuple[float, float]:
    """(slope, intercept) of the logistic regression of y (0/1) on one feature x: the maximum-likelihood
    Platt scaling, by Newton's method on the standardised feature (a tiny ridge keeps a separable set
    finite). ``weights`` re-weight the pairs (e.g. to give each data set the same say)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=np.float64)
    if x.shape != y.shape or x.shape != w.shape or x.ndim != 1 or x.size < 2:
        raise ValueError("x, y (and weights) must be 1-D and of one length, at least 2")
    if not (np.any(y > 0.5) and np.any(y < 0.5)):
        raise ValueError("both classes are needed to fit a calibration")
    mu, sd = float(np.average(x, weights=w)), float(np.sqrt(np.average((x - np.average(x, weights=w)) ** 2, weights=w)))
    sd = sd if sd > 0 else 1.0
    z = (x - mu) / sd
    beta = np.zeros(2)  # [slope, intercept] on z
    ridge = 1e-6 * w.sum()
    for _ in range(100):
        p = _sigmoid(beta[0] * z + beta[1])
        grad = np.array([np.sum(w * (p - y) * z), np.sum(w * (p - y))]) + ridge * np.array([beta[0], 0.0])
        h = w * p * (1 - p)
        hess = np.array([[np.sum(h * z * z) + ridge, np.sum(h * z)], [np.sum(h * z), np.sum(h) + 1e-12]])
        step = np.linalg.solve(hess, grad)
        beta = beta - step
        if np.max(np.abs(step)) < 1e-10:
            break
    slope = beta[0] / sd
    return float(slope), float(beta[1] - slope * mu)


def expected_calibration_error(p: Sequence[float], y: Sequence[float], bins: int = 15) -> float:
    """ECE: over ``bins`` equal-width bins of the predicted probability, the pair-weighted mean of
    |mean predicted - observed rate|."""
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if p.shape != y.shape or p.size == 0:
        raise ValueError("p and y must be non-empty and of one length")
    index = np.minimum((p * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        inside = index == b
        if inside.any():
            total += inside.sum() * abs(float(p[inside].mean()) - float(y[inside].mean()))
    return total / p.size


def roc_auc(score: Sequence[float], y: Sequence[float]) -> float:
    """Area under the ROC curve: the probability that a random true pair scores above a random false one
    (ties count half), by the rank-sum (Mann-Whitney) formula."""
    score = np.asarray(score, dtype=np.float64)
    y = np.asarray(y) > 0.5
    positives, negatives = int(y.sum()), int((~y).sum())
    if positives == 0 or negatives == 0:
        raise ValueError("both classes are needed for an AUC")
    ranks = _average_ranks(score)
    return float((ranks[y].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties given their mean rank."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)  # the last rank of each distinct value
    return ((ends - counts + 1 + ends) / 2)[inverse]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """The two-sided form (exp() never overflows on either side). Not ``scoring.sigmoid``: for a negative x
    the two differ in the last bit, and a predicate's probability is pinned to this one
    (tests/integration/test_golden.py)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    positive = x >= 0
    out[positive] = 1.0 / (1.0 + np.exp(-x[positive]))
    e = np.exp(x[~positive])
    out[~positive] = e / (1.0 + e)
    return out
