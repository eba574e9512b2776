"""Label calibration study: per-label offsets learned from unlabelled texts, in process (no server).

    .venv/bin/python -m bench.studies.label_calibration            # -> results/label-calibration-<date>/
    .venv/bin/python -m bench.studies.label_calibration --smoke    # small samples, 2 seeds (-smoke folder)

On a 2-core machine, one thread: the first run embeds ~12,000 texts (~4 min for e5), later runs read the
embeddings from ``--cache`` and take ~2 min (smoke: ~1 min).

Zero-shot evidence carries a bias per label (some wordings sit closer to every text than others). The
service's correction (``service/core/calibration.py``) subtracts each label's background level, learned
from the texts it answers, never from a label. This study measures it, and the estimators it was chosen
from, with the default model (multilingual-e5-small) and, on the English rows, all-MiniLM-L6-v2:

- data: THUCNews (2,000 headlines stratified, 10 bare class names; the other 7,997 headlines of the file
  are an unlabelled pool), CIC (all 2,000 utterances against its 118 intents, the bare ``label_des`` and
  the same without its ``买家`` prefix), the project's English rows (news and support apart, each with its
  own label list); the bare names and the task template of docs/evaluation.md;
- the evidence is the service's: ``logit_scale * cos`` of the text with each label's wording (prefixes
  as stored), whose softmax is the single-label answer;
- protocols, top-1 accuracy against no correction: **half** (offsets from a random stratified half,
  measured on the other; several seeds, mean and min), **skew** (offsets from a sample of that half where
  one class is 5 or 10 times as frequent as each other class, rows repeated where a class has too few),
  **job** (offsets from the very texts answered) and **job-skew** (the answered texts themselves skewed);
- candidates: the plain mean of each label's log-score (the issue's method; the same offsets as the mean
  of the raw evidence, since log-softmax differs from it by one constant per text), leave the winner out,
  posterior-weighted, posterior-weighted with an EM class prior, the median, prior matching (offsets that
  make every label win equally often), content-free inputs ("N/A", "。", ""), and the capped estimator
  the service ships (with and without shrinkage);
- for the chosen estimator: the streaming path (``observe`` + ``merge`` in chunks, as replicas would) against
  the batch fit, a learning curve (texts needed), a prequential drift run (half-lives), and whether
  thresholds keep their meaning (single-label top-score levels, multi-label labels above 0.5 and macro-F1);
- examples: CIC with up to 7 examples per label (and THUCNews with 3 and 7), drawn from one part by a seeded
  split and measured on the rest: the plain prototype, the service's rules and blends, the proposed
  adaptive blend (``Task.example_adaptive``), and traffic calibration on top.

Embeddings are computed once per model and kept in ``--cache`` (the only model work; one intra-op thread).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from bench.calibration_sets import LabelledSet, frequent_classes, halves, load_sets, skewed
from harness.progress import say
from harness.report import pyplot, result_folder, save, table
from loadtest.workload import SHARED
from service.core import calibration as cal
from service.core.scoring import example_evidence, prompt_ensemble, sigmoid, softmax

DEFAULT_CACHE = Path.home() / ".cache" / "zsc-label-calibration"
CONTENT_FREE = ("N/A", "。", "")
# the service's defaults (service/core/calibration.py); the study's runs set min_texts per protocol
CHOSEN = cal.CalibrationConfig()


# -- data -------------------------------------------------------------------------------------------------
class Embedder:
    """One model's normalised embeddings of strings, computed once and kept on disk (the study reruns in
    seconds; the embeddings are the only model work)."""

    def __init__(self, model: str, cache: Path) -> None:
        from harness.store import stored_model
        from service.backends import load_backend
        from service.core.model_spec import ModelSpec
        from service.engine.engine import Engine
        from service.engine.tokenization import Tokenizer

        stored = stored_model(model)
        self.tag = stored.tag
        self.spec = ModelSpec.from_metadata(stored.metadata)
        if self.spec.kind != "embedding":
            raise SystemExit(f"{model} is not an embedding model")
        self._engine = lambda: Engine(  # loaded on first use: a fully cached rerun never loads the model
            self.spec, Tokenizer.load(stored.path, self.spec.max_length),
            load_backend(stored.path, self.spec, "auto", "cpu", 1), 8192, 256,  # one intra-op thread: shared machine
        )  # fmt: skip
        self.engine = None
        self.cache = cache
        cache.mkdir(parents=True, exist_ok=True)

    def _embed(self, strings: list[str], what: str) -> np.ndarray:
        key = hashlib.sha256("\x00".join([self.tag, *strings]).encode()).hexdigest()[:16]
        path = self.cache / f"{self.tag.replace(':', '_')}-{key}.npy"
        if path.is_file():
            return np.load(path).astype(np.float64)
        if self.engine is None:
            self.engine = self._engine()
        rows, step = [], 500
        for start in range(0, len(strings), step):
            part, _ = self.engine.encode([(s, None) for s in strings[start : start + step]])
            rows.append(np.asarray(part, dtype=np.float32))
            if len(strings) > step:
                say(f"    {self.tag.split(':')[0]}: {what} {min(start + step, len(strings))}/{len(strings)}")
        out = np.concatenate(rows)
        np.save(path, out)
        return out.astype(np.float64)

    def texts(self, texts: list[str], what: str = "texts") -> np.ndarray:
        return self._embed([self.spec.text_prefix + t for t in texts], what)

    def labels(self, hypotheses: list[str]) -> np.ndarray:
        return self._embed([self.spec.label_prefix + h for h in hypotheses], "labels")


@dataclass
class Case:
    """One (model, set, wording): the service's single-label evidence for every text."""

    model: str
    data: LabelledSet
    wording: str
    scale: float
    bias: float
    cos: np.ndarray  # [texts, labels]
    pool: np.ndarray | None  # [pool texts, labels]: the unlabelled pool's cosines
    pool_truth: np.ndarray | None
    content_free: np.ndarray  # [len(CONTENT_FREE), labels]

    @property
    def name(self) -> str:
        return f"{self.data.name}/{self.wording}"

    @property
    def evidence(self) -> np.ndarray:
        return self.scale * self.cos


# -- candidates: evidence of an estimation sample -> centred offsets ----------------------------------------
def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _weighted_mean(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    s, n = (x * w).sum(0), w.sum(0)
    out = np.where(n > 0, s / np.maximum(n, 1e-12), np.nan)
    return np.where(np.isnan(out), np.nanmean(out), out)


def _centre(o: np.ndarray) -> np.ndarray:
    return o - o.mean()


def est_logprob_mean(e: np.ndarray) -> np.ndarray:
    """The issue's method: each label's mean log-score (log-softmax) over the texts."""
    z = e - e.max(axis=1, keepdims=True)
    return _centre((z - np.log(np.exp(z).sum(axis=1, keepdims=True))).mean(0))


def est_leave_winner_out(e: np.ndarray, rounds: int = 3) -> np.ndarray:
    """Each label's mean over the texts where it is not the top label (after the current correction)."""
    o = e.mean(0)
    for _ in range(rounds):
        w = np.ones_like(e)
        w[np.arange(len(e)), (e - o).argmax(1)] = 0.0
        o = _weighted_mean(e, w)
    return _centre(o)


def est_posterior(e: np.ndarray, rounds: int = 5, prior: bool = False) -> np.ndarray:
    """Each label's mean weighted by 1 - its posterior (the text is background for it); with ``prior``, the
    posterior carries class priors re-estimated by EM (Saerens et al.), so a common class's texts leave its
    background sooner."""
    o, logpi = e.mean(0), np.zeros(e.shape[1])
    for _ in range(rounds * (2 if prior else 1)):
        p = _softmax(e - o + logpi)
        if prior:
            logpi = np.log(np.maximum(p.mean(0), 1e-6) * e.shape[1])
        o = _weighted_mean(e, 1 - p)
    return _centre(o)


def est_median(e: np.ndarray) -> np.ndarray:
    return _centre(np.median(e - e.mean(1, keepdims=True), axis=0))


def est_prior_matching(e: np.ndarray, rounds: int = 200) -> np.ndarray:
    """Offsets under which every label's mean softmax score is 1/K (assumes balanced classes)."""
    b = e.mean(0)
    for _ in range(rounds):
        b = b + 0.5 * np.log(_softmax(e - b).mean(0) * e.shape[1])
    return _centre(b)


def oracle_background(e: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """A reference, not a candidate (it reads the labels): each label's class-balanced background, the mean
    over the other classes present of that class's mean evidence for the label."""
    present = np.unique(truth)
    means = np.stack([e[truth == c].mean(0) for c in present])  # [classes present, labels]
    out = np.empty(e.shape[1])
    for i in range(e.shape[1]):
        out[i] = means[present != i, i].mean()
    return _centre(out)


def est_service(config: cal.CalibrationConfig) -> Callable[[np.ndarray], np.ndarray]:
    def fit(e: np.ndarray) -> np.ndarray:
        labels = [str(i) for i in range(e.shape[1])]
        found = cal.offsets(cal.fit(e, labels, config), replace(config, min_texts=0.0))
        return np.zeros(e.shape[1]) if found is None else found

    return fit


NO_DECAY = replace(CHOSEN, half_life=math.inf, min_texts=0.0)


def est_capped_corrected_winners(e: np.ndarray, rounds: int = 4) -> np.ndarray:
    """The chosen estimator, but with each text's top label taken after the current correction and a few
    rounds to a fixed point (what the service does not do: the over-corrected common class stops winning,
    so it stops being capped)."""
    k, shift = e.shape[1], np.zeros(e.shape[1])
    x = e - e.mean(1, keepdims=True)
    for _ in range(rounds):
        winners = (e - shift).argmax(1)
        share = np.bincount(winners, minlength=k)[winners] / len(e)
        w = np.minimum(1.0, max(CHOSEN.cap / k, CHOSEN.cap_floor) / share)
        mean = w @ x / w.sum()
        var = np.maximum(w @ x**2 / w.sum() - mean**2, 0.0) / w.sum()
        out = mean - mean.mean()
        tau2 = max(float(np.sum(out**2)) / (k - 1) - float(var.mean()), 0.0)
        shift = out * tau2 / (tau2 + var + 1e-300)
        shift = shift - shift.mean()
    return shift


CANDIDATES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "mean log-score (issue)": est_logprob_mean,
    "mean raw evidence": est_service(replace(NO_DECAY, cap=math.inf, shrink=False)),
    "leave winner out": est_leave_winner_out,
    "posterior-weighted": est_posterior,
    "posterior + EM prior": lambda e: est_posterior(e, prior=True),
    "median": est_median,
    "prior matching": est_prior_matching,
    "mean + shrink": est_service(replace(NO_DECAY, cap=math.inf)),
    "capped, no shrink": est_service(replace(NO_DECAY, shrink=False)),
    "capped, no 10% floor": est_service(replace(NO_DECAY, cap_floor=0.0)),
    "capped, corrected winners": est_capped_corrected_winners,
    "capped + shrink (service)": est_service(NO_DECAY),
}
SERVICE = "capped + shrink (service)"
ORACLE = "reference: class-balanced background (reads labels)"
REFERENCES = ("content-free", ORACLE)


# -- protocols ---------------------------------------------------------------------------------------------
def accuracy(e: np.ndarray, truth: np.ndarray, offsets: np.ndarray | None = None) -> float:
    return float(np.mean((e if offsets is None else e - offsets).argmax(1) == truth))


def _summary(gains: list[float]) -> dict:
    g = np.array(gains)
    return {"mean": float(g.mean()), "min": float(g.min()), "max": float(g.max()), "n": len(g),
            "never_worse": float(np.mean(g >= -1e-12))}  # fmt: skip


def protocols(case: Case, seeds: int, skews: int, ratios: tuple[int, ...]) -> dict:
    """Every candidate under half / skew / job / job-skew, as gains in accuracy over no correction."""
    e, y = case.evidence, case.data.truth
    gains: dict[str, dict[str, list[float]]] = {n: defaultdict(list) for n in [*CANDIDATES, *REFERENCES]}
    base: dict[str, list[float]] = defaultdict(list)
    cf = _centre(case.scale * case.content_free.mean(0))  # the content-free inputs' own evidence
    job_sets = []
    rng = random.Random(1000)
    for f in frequent_classes(np.arange(len(y)), y, rng, skews * 2):
        for ratio in ratios:
            job_sets.append(skewed(np.arange(len(y)), y, f, ratio, rng))
    for name, fn in CANDIDATES.items():
        gains[name]["job"].append(accuracy(e, y, fn(e)) - accuracy(e, y))
        for s in job_sets:
            gains[name]["job-skew"].append(accuracy(e[s], y[s], fn(e[s])) - accuracy(e[s], y[s]))
    gains["content-free"]["job"].append(accuracy(e, y, cf) - accuracy(e, y))
    gains[ORACLE]["job"].append(accuracy(e, y, oracle_background(e, y)) - accuracy(e, y))
    for s in job_sets:
        gains[ORACLE]["job-skew"].append(accuracy(e[s], y[s], oracle_background(e[s], y[s])) - accuracy(e[s], y[s]))
    base["all"].append(accuracy(e, y))
    for seed in range(seeds):
        rng = random.Random(seed)
        a, b = halves(y, rng)
        plain = accuracy(e[b], y[b])
        base["half"].append(plain)
        gains["content-free"]["half"].append(accuracy(e[b], y[b], cf) - plain)
        picks = [(f, r) for f in frequent_classes(a, y, rng, skews) for r in ratios]
        samples = [skewed(a, y, f, r, rng) for f, r in picks]
        for name, fn in CANDIDATES.items():
            gains[name]["half"].append(accuracy(e[b], y[b], fn(e[a])) - plain)
            for s in samples:
                gains[name]["skew"].append(accuracy(e[b], y[b], fn(e[s])) - plain)
        gains[ORACLE]["half"].append(accuracy(e[b], y[b], oracle_background(e[a], y[a])) - plain)
        for s in samples:
            gains[ORACLE]["skew"].append(accuracy(e[b], y[b], oracle_background(e[s], y[s])) - plain)
    out = {"accuracy_without": {k: float(np.mean(v)) for k, v in base.items()}, "candidates": {},
           "estimation_texts": {"half": len(y) // 2, "job": len(y)}}  # fmt: skip
    for name, by in gains.items():
        out["candidates"][name] = {p: _summary(v) for p, v in by.items()}
    return out


def streaming(case: Case, seeds: int, chunk: int = 16) -> dict:
    """The service's path: the estimation half fed through ``observe`` + ``merge`` in chunks of 16 (a
    replica's flush; each text's skew weight from the wins seen so far), then frozen, against the batch
    ``fit`` of the same half (every weight from the whole half's wins)."""
    e, y = case.evidence, case.data.truth
    labels = [str(i) for i in range(e.shape[1])]
    out = defaultdict(list)
    for seed in range(seeds):
        rng = random.Random(seed)
        a, b = halves(y, rng)
        order = a.copy()
        np.random.default_rng(seed).shuffle(order)
        plain = accuracy(e[b], y[b])
        for name, config in (
            ("stream, no decay", NO_DECAY),
            ("stream, default half-life", replace(CHOSEN, min_texts=0.0)),
        ):
            stats = cal.LabelStats.empty(labels)
            for start in range(0, len(order), chunk):
                delta = cal.observe(stats, e[order[start : start + chunk]], config)
                stats = cal.merge(stats, delta, config.half_life)
            out[name].append(accuracy(e[b], y[b], cal.offsets(stats, config)) - plain)
        out["batch fit"].append(accuracy(e[b], y[b], est_service(NO_DECAY)(e[a])) - plain)
    return {k: _summary(v) for k, v in out.items()}


def learning_curve(case: Case, sizes: list[int], seeds: int) -> dict:
    """Gain against the number of estimation texts: from the unlabelled pool (THUCNews), measured on the
    whole labelled sample; else from a random half, measured on the other half."""
    e, y = case.evidence, case.data.truth
    rows = []
    for n in sizes:
        by = defaultdict(list)
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            if case.pool is not None:
                if n > len(case.pool):
                    continue
                est, target, truth = case.scale * case.pool[rng.choice(len(case.pool), n, replace=False)], e, y
            else:
                a, b = halves(y, random.Random(seed))
                if n > len(a):
                    continue
                est, target, truth = e[rng.choice(a, n, replace=False)], e[b], y[b]
            plain = accuracy(target, truth)
            for name in ("mean raw evidence", SERVICE):
                by[name].append(accuracy(target, truth, CANDIDATES[name](est)) - plain)
        if by:
            rows.append({"texts": n, **{k: _summary(v) for k, v in by.items()}})
    return {"from": "pool" if case.pool is not None else "half", "rows": rows}


def prequential(
    e: np.ndarray, truth: np.ndarray, phase_of: np.ndarray, phases: list[str], half_lives: list[float], chunk: int = 16
) -> dict:
    """Every text answered with the offsets of everything before its chunk (16 texts: a replica's flush),
    then observed; accuracy per phase, per half-life, against no correction."""
    labels = [str(i) for i in range(e.shape[1])]
    raw_hits = accuracy_rows(e, truth, None)
    out = {"phases": phases, "without": [float(raw_hits[phase_of == p].mean()) for p in range(len(phases))],
           "runs": []}  # fmt: skip
    for h in half_lives:
        config = replace(CHOSEN, half_life=h)
        stats = cal.LabelStats.empty(labels)
        hits = np.zeros(len(e))
        calibrated = np.zeros(len(e), dtype=bool)
        for start in range(0, len(e), chunk):
            part = slice(start, start + chunk)
            shift = cal.offsets(stats, config)
            hits[part] = accuracy_rows(e[part], truth[part], shift)
            calibrated[part] = shift is not None
            stats = cal.merge(stats, cal.observe(stats, e[part], config), config.half_life)
        out["runs"].append({
            "half_life": None if math.isinf(h) else h,
            "accuracy": [float(hits[phase_of == p].mean()) for p in range(len(phases))],
            "first_calibrated_text": int(np.argmax(calibrated)) if calibrated.any() else None,
        })  # fmt: skip
    return out


def drift_mix(case: Case, half_lives: list[float], phase_texts: int, seed: int = 3) -> dict:
    """The class mix drifts, the bias does not: a stream drawn from the pool (its classes are known to the
    study, never to the estimator): balanced, then one class 10x as frequent as each other, then another,
    then balanced again."""
    pool_truth, e, k = case.pool_truth, case.scale * case.pool, case.pool.shape[1]
    rng = np.random.default_rng(seed)
    a, b = (int(c) for c in rng.choice(np.unique(pool_truth), 2, replace=False))
    plan = [("balanced", None), (f"class {a} x10", a), (f"class {b} x10", b), ("balanced again", None)]
    by_class = {c: np.flatnonzero(pool_truth == c) for c in range(k)}
    stream, phase_of = [], []
    for p, (_, frequent) in enumerate(plan):
        weights = np.ones(k)
        if frequent is not None:
            weights[frequent] = 10.0
        stream += [int(rng.choice(by_class[c])) for c in rng.choice(k, phase_texts, p=weights / weights.sum())]
        phase_of += [p] * phase_texts
    stream = np.array(stream)
    return prequential(e[stream], pool_truth[stream], np.array(phase_of), [n for n, _ in plan], half_lives)


def drift_bias(before: Case, after: Case, half_lives: list[float], phase_texts: int, seed: int = 4) -> dict:
    """The bias drifts: the same labels and traffic (balanced pool texts), but the evidence switches from one
    wording's to another's halfway (as a new model revision or another kind of text would move every
    label's background); the second part is reported in two halves to show how fast each half-life
    follows."""
    rng = np.random.default_rng(seed)
    stream = rng.choice(len(before.pool), 2 * phase_texts, replace=False)
    e = np.concatenate(
        [before.scale * before.pool[stream[:phase_texts]], after.scale * after.pool[stream[phase_texts:]]]
    )
    half = phase_texts // 2
    phase_of = np.repeat([0, 1, 2], [phase_texts, half, phase_texts - half])
    names = [before.wording, f"{after.wording}, first {half}", f"{after.wording}, next {phase_texts - half}"]
    return prequential(e, before.pool_truth[stream], phase_of, names, half_lives)


def accuracy_rows(e: np.ndarray, truth: np.ndarray, shift: np.ndarray | None) -> np.ndarray:
    return ((e if shift is None else e - shift).argmax(1) == truth).astype(float)


def thresholds(case: Case, seed: int = 0) -> dict:
    """Offsets from one half, on the other: single-label score levels (NLL of the true class, mean top
    score, share of texts whose top score passes 0.5) and multi-label ones (sigmoid(scale * (cos - bias)):
    labels per text above 0.5, mean score, macro-F1 of "above 0.5" against the one true label), before and
    after the correction."""
    e, y = case.evidence, case.data.truth
    a, b = halves(y, random.Random(seed))
    shift = est_service(NO_DECAY)(e[a])
    target, truth = e[b], y[b]
    out = {}
    for name, s in (("without", 0.0), ("with", shift)):
        p = softmax(target - s)
        multi = sigmoid(case.scale * (case.cos[b] - case.bias) - s)
        above = multi >= 0.5
        onehot = np.zeros_like(above)
        onehot[np.arange(len(truth)), truth] = True
        f1 = []
        for c in np.unique(truth):
            tp = np.sum(above[:, c] & onehot[:, c])
            denom = above[:, c].sum() + onehot[:, c].sum()
            f1.append(2 * tp / denom if denom else 0.0)
        out[name] = {
            "nll": float(-np.mean(np.log(np.maximum(p[np.arange(len(truth)), truth], 1e-300)))),
            "mean_top_score": float(p.max(1).mean()),
            "top_score_at_least_0.5": float(np.mean(p.max(1) >= 0.5)),
            "multi_mean_score": float(multi.mean()),
            "multi_labels_above_0.5": float(above.sum(1).mean()),
            "multi_macro_f1": float(np.mean(f1)),
            "multi_mean_logit": float((case.scale * (case.cos[b] - case.bias) - (0 if s is None else s)).mean()),
        }
    return out


# -- examples --------------------------------------------------------------------------------------------
def example_split(truth: np.ndarray, k: int, mode: str, rng: random.Random) -> tuple[dict[int, list[int]], np.ndarray]:
    """Per class, its examples (``upto``: min(k, rows - 1), so nearly every label carries some; ``exact``: k
    for the classes with more than k rows, none for the others) and the measured rest."""
    ex, rest = {}, []
    for c in range(int(truth.max()) + 1):
        idx = [int(i) for i in np.flatnonzero(truth == c)]
        rng.shuffle(idx)
        m = min(k, len(idx) - 1) if mode == "upto" else (k if len(idx) > k else 0)
        if m > 0:
            ex[c] = idx[:m]
        rest += idx[m:]
    return ex, np.array(sorted(rest))


def examples_study(data: LabelledSet, embedder: Embedder, wording: str, k: int, mode: str, seeds: int) -> dict:
    """Held-out accuracy of the ways examples join the wording, computed with the service's own functions
    (vectorised over texts; one seed is checked against ``task.score_texts`` text by text)."""
    from service.core.task import Task, label_side, score_texts

    spec = embedder.spec
    texts = embedder.texts(data.texts)
    wording_rows = embedder.labels(data.wordings[wording])
    y, n_labels = data.truth, len(data.classes)
    res = defaultdict(list)
    have_counts = []
    for seed in range(seeds):
        ex, test = example_split(y, k, mode, random.Random(500 + seed))
        have = sorted(ex)
        have_counts.append(len(have))
        counts = [len(ex[c]) for c in have]
        proto = np.stack([prompt_ensemble(texts[ex[c]]) for c in have])
        x = texts[test]
        cos = x @ wording_rows.T
        sim = x @ proto.T
        nearest = np.stack([(x @ texts[ex[c]].T).max(1) for c in have], axis=1)
        owner = np.repeat(np.arange(len(have)), counts)
        example_rows = np.concatenate([texts[ex[c]] for c in have])
        # the wording's offsets from the examples (each example is background for the other labels)
        owner_full = np.array([have[j] for j in owner])
        alpha = cal.leave_own_out_offsets(example_rows @ wording_rows.T, owner_full)
        truth = y[test]

        def add(name: str, ev: np.ndarray, truth: np.ndarray = truth) -> None:
            res[name].append(accuracy(ev, truth))

        def rule(base: np.ndarray, similarity: np.ndarray, name: str, weight, have: list[int] = have) -> np.ndarray:
            ev = base.copy()
            ev[:, have] = example_evidence(similarity, base[:, have], name, weight, spec.example_shift)
            return ev

        add("wording only", cos)
        plain = cos.copy()
        plain[:, have] = sim
        add("plain prototype", plain)
        add("service prototype", rule(cos, sim, "prototype", 0.0))
        add("service nearest", rule(cos, nearest, "nearest", 0.0))
        for w in (0.1, 0.2, 0.3):
            add(f"service blend {w}" + (" (default)" if w == spec.example_weight else ""), rule(cos, sim, "blend", w))
        shares = cal.blend_shares(spec.example_weight, counts)
        add("adaptive shares only", rule(cos, sim, "blend", shares))
        add("example-centred wording only", rule(cos - alpha, sim, "blend", spec.example_weight))
        add("proposal: adaptive + example-centred", rule(cos - alpha, sim, "blend", shares))
        # the service's rule: the proposal, a label's wording left out where its examples point elsewhere
        agrees = cal.wording_agrees(proto, wording_rows, have, counts, alpha)
        service = rule(cos - alpha, sim, "blend", shares * agrees)
        add("service: adaptive, example-centred, wording gated", service)
        # traffic calibration on top, estimated on the answered texts themselves ("job")
        scale = spec.logit_scale
        full = scale * rule(cos, sim, "blend", spec.example_weight)
        add("default blend, whole evidence calibrated", full / scale - est_service(NO_DECAY)(full) / scale)
        wording_shift = est_service(NO_DECAY)(scale * cos) / scale
        add("default blend, wording calibrated", rule(cos - wording_shift, sim, "blend", spec.example_weight))
        add("proposal, wording calibrated by traffic", rule(cos - wording_shift, sim, "blend", shares))
        if seed == 0:  # the vectorised maths is the service's: check it against task.score_texts
            examples = tuple(tuple(data.texts[i] for i in ex.get(c, [])) for c in range(n_labels))
            task = Task(("t",), tuple((h,) for h in data.wordings[wording]), examples=examples,
                        example_rule="blend", example_weight=spec.example_weight, example_adaptive=True)  # fmt: skip
            label_rows = np.concatenate([wording_rows, example_rows_in_label_order(texts, ex, n_labels)])
            side = label_side(task, label_rows)
            for j in range(0, len(test), max(1, len(test) // 40)):
                got = int(np.argmax(score_texts(spec, task, x[j : j + 1], side)))
                if got != int(np.argmax(service[j])):
                    raise AssertionError(f"the study's service rule differs from task.score_texts on text {test[j]}")
    out = {"set": data.name, "wording": wording, "k": k, "mode": mode, "seeds": seeds,
           "labels": n_labels, "labels_with_examples": float(np.mean(have_counts)), "measured": len(test)}  # fmt: skip
    base = np.array(res["plain prototype"])
    out["rules"] = {
        n: {**_summary(v), "vs_plain_prototype_min": float(np.min(np.array(v) - base))} for n, v in res.items()
    }
    return out


def example_rows_in_label_order(texts: np.ndarray, ex: dict[int, list[int]], n_labels: int) -> np.ndarray:
    rows = [texts[ex[c]] for c in range(n_labels) if c in ex]
    return np.concatenate(rows) if rows else np.zeros((0, texts.shape[1]))


# -- report ----------------------------------------------------------------------------------------------
def _pm(s: dict) -> str:
    return f"{s['mean']:+.3f} / {s['min']:+.3f}"


def report(results: dict) -> str:
    lines = [
        "# Label calibration: per-label offsets from unlabelled texts",
        "",
        f"{results['date']}, {results['seconds']:.0f} s; `{results['command']}`. Models: "
        + ", ".join(f"`{m}`" for m in results["models"])
        + ". In process, one thread; "
        "evidence = `logit_scale * cos` (the service's single-label logits).",
        "",
        "## Accuracy without and with the service's correction (capped + shrink)",
        "",
        "Top-1 accuracy without; then the gain as **mean / min** over seeds (half: offsets from a random "
        "stratified half, measured on the other half), over skewed estimation samples (one class 5x or 10x "
        "as frequent as each other), job (offsets from the answered texts) and job-skew (the answered texts "
        "themselves skewed, the hardest case: the frequent class is also most of what is scored).",
        "",
    ]
    rows = []
    minimum = results["config"]["min_texts"]
    for r in results["cases"]:
        c = r["protocols"]["candidates"][SERVICE]
        n = r["protocols"]["estimation_texts"]

        def served(s: dict, texts: int) -> str:
            return _pm(s) if texts >= minimum else f"{_pm(s)} (served: none, {texts} < {minimum:.0f} texts)"

        rows.append([r["model"].split(":")[0], r["case"], r["texts"], r["labels"],
                     f"{r['protocols']['accuracy_without']['all']:.3f}", served(c["half"], n["half"]),
                     _pm(c["skew"]), _pm(c["job"]) if n["job"] >= minimum else served(c["job"], n["job"]),
                     _pm(c["job-skew"])])  # fmt: skip
    lines += table(["model", "set / wording", "texts", "labels", "accuracy without", "half", "skew", "job",
                    "job-skew"], rows)  # fmt: skip
    lines += [
        "",
        f"The study applies the correction at any sample size; the service applies none below "
        f"`min_texts` = {minimum:.0f} texts (the English sets' halves: 30 and 16 texts, marked). "
        "Skewed samples of the English sets repeat the frequent class's few rows.",
        "",
    ]
    lines += ["", "## Candidates (gain, mean / min; default model)", ""]
    names = [*CANDIDATES, *REFERENCES]
    for proto in ("half", "skew", "job", "job-skew"):
        lines += [f"### {proto}", ""]
        rows = []
        for name in names:
            row = [name]
            for r in results["cases"]:
                if r["model"] != results["models"][0]:
                    continue
                s = r["protocols"]["candidates"][name].get(proto)
                row.append(_pm(s) if s else "—")
            rows.append(row)
        lines += table(
            ["candidate", *[r["case"] for r in results["cases"] if r["model"] == results["models"][0]]], rows
        )
        lines += [""]
    lines += ["## Streaming path against the batch fit (half protocol)", ""]
    rows = [[r["model"], r["case"], *[_pm(r["streaming"][k]) for k in ("batch fit", "stream, no decay",
             "stream, default half-life")]] for r in results["cases"]]  # fmt: skip
    lines += table(["model", "set", "batch fit", "stream (chunks of 16), no decay", "stream, half-life default"], rows)
    lines += ["", "## Learning curve (gain mean / min against estimation texts)", ""]
    for r in results["curves"]:
        lines += [f"**{r['model']} {r['case']}** (estimated from the {r['curve']['from']}):", ""]
        lines += table(["texts", "plain mean", "service"], [[row["texts"], _pm(row["mean raw evidence"]),
                       _pm(row[SERVICE])] for row in r["curve"]["rows"]])  # fmt: skip
        lines += [""]
    for d in results.get("drift", []):
        lines += [f"## Drift: {d['title']} (prequential, {d['case']}, {d['phase_texts']} texts per phase)", ""]
        rows = [["without", *[f"{v:.3f}" for v in d["result"]["without"]], "—"]]
        for run in d["result"]["runs"]:
            rows.append([f"half-life {run['half_life'] or 'none'}", *[f"{v:.3f}" for v in run["accuracy"]],
                         run["first_calibrated_text"]])  # fmt: skip
        lines += table(["", *d["result"]["phases"], "first corrected text"], rows) + [""]
    lines += ["## Do thresholds keep their meaning? (offsets from one half, the other half)", ""]
    rows = []
    for r in results["cases"]:
        t = r["thresholds"]
        rows.append([r["model"], r["case"], *[f"{t['without'][k]:.3f} → {t['with'][k]:.3f}" for k in
                     ("nll", "mean_top_score", "top_score_at_least_0.5", "multi_labels_above_0.5", "multi_mean_score",
                      "multi_macro_f1")]])  # fmt: skip
    lines += table(["model", "set", "NLL of the true class", "mean top score", "top score ≥ 0.5",
                    "multi: labels ≥ 0.5 per text", "multi: mean score", "multi: macro-F1"], rows)  # fmt: skip
    lines += ["", "## Examples (default model; held-out accuracy mean / min over seeds)", ""]
    for ex in results["examples"]:
        lines += [
            f"**{ex['set']}/{ex['wording']}, k = {ex['k']} ({ex['mode']}): {ex['labels_with_examples']:.0f} of "
            f"{ex['labels']} labels carry examples, {ex['measured']} texts measured, {ex['seeds']} seeds**",
            "",
        ]
        lines += table(["rule", "accuracy", "min over seeds", "worst seed vs plain prototype"],
                       [[n, f"{s['mean']:.3f}", f"{s['min']:.3f}", f"{s['vs_plain_prototype_min']:+.3f}"]
                        for n, s in ex["rules"].items()])  # fmt: skip
        lines += [""]
    return "\n".join(lines) + "\n"


def _rounded(value):
    """Four decimals are plenty for accuracies and keep summary.json small."""
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def chart(results: dict, path: Path) -> None:
    plt = pyplot()
    cases = [r for r in results["cases"] if r["model"] == results["models"][0]]
    protos = ("half", "skew", "job", "job-skew")
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, name in zip(axes, ("mean log-score (issue)", SERVICE)):
        width = 0.8 / len(protos)
        for j, p in enumerate(protos):
            vals = [r["protocols"]["candidates"][name][p]["mean"] for r in cases]
            lows = [r["protocols"]["candidates"][name][p]["min"] for r in cases]
            xs = np.arange(len(cases)) + j * width
            ax.bar(xs, vals, width, label=p)
            ax.scatter(xs, lows, marker="_", color="black", s=60)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(np.arange(len(cases)) + 0.4 - width / 2)
        ax.set_xticklabels([r["case"] for r in cases], rotation=30, ha="right", fontsize=8)
        ax.set_title(name)
    axes[0].set_ylabel("accuracy gain (bar: mean, tick: min)")
    axes[0].legend(fontsize=8)
    save(fig, path)


# -- main ------------------------------------------------------------------------------------------------
def build_cases(models: list[str], sets: list[LabelledSet], cache: Path) -> tuple[list[Case], dict[str, Embedder]]:
    cases, embedders = [], {}
    for model in models:
        embedder = Embedder(model, cache)
        embedders[model] = embedder
        english_only = embedder.spec.languages == ("en",)
        free = embedder.texts(list(CONTENT_FREE), "content-free")
        for data in sets:
            if english_only and data.lang != "en":
                continue  # at chance on Chinese (docs/evaluation.md)
            say(f"{model.split(':')[0]} {data.name}: embedding {len(data.texts)} texts (cached after the first run)")
            texts = embedder.texts(data.texts)
            pool = embedder.texts(data.extra, "pool") if data.extra else None
            for wording, hyps in data.wordings.items():
                labels = embedder.labels(hyps)
                spec = embedder.spec
                pool_cos = None if pool is None else pool @ labels.T
                cases.append(Case(model, data, wording, spec.logit_scale, spec.multi_label_bias, texts @ labels.T,
                                  pool_cos, data.extra_truth, free @ labels.T))  # fmt: skip
    return cases, embedders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="small samples, 2 seeds (~1 min)")
    parser.add_argument("--models", default="multilingual-e5-small,all-minilm-l6-v2")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--datasets", type=Path, default=SHARED)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="embeddings kept between runs")
    parser.add_argument("--out", type=Path, help="default results/label-calibration-<date>")
    args = parser.parse_args(argv)
    started = time.time()
    seeds = 2 if args.smoke else args.seeds
    skews = 2 if args.smoke else 4
    out = result_folder(args.out, "label-calibration", args.smoke)
    sets = load_sets(args.datasets, 30 if args.smoke else 200, 400 if args.smoke else 0)
    if args.smoke:
        sets[0].extra, sets[0].extra_truth = sets[0].extra[::8], sets[0].extra_truth[::8]  # sorted by class
    models = [m for m in args.models.split(",") if m]
    cases, embedders = build_cases(models, sets, args.cache)
    results: dict = {"date": time.strftime("%Y-%m-%d"), "command": "python -m bench.studies.label_calibration"
                     + (" --smoke" if args.smoke else ""), "models": [embedders[m].tag for m in models],
                     "config": asdict(CHOSEN), "cases": []}  # fmt: skip
    for case in cases:
        say(f"{case.model} {case.name}: candidates x protocols")
        results["cases"].append({
            "model": embedders[case.model].tag, "case": case.name, "texts": len(case.data.texts),
            "labels": len(case.data.classes),
            "protocols": protocols(case, seeds, skews, (5, 10)),
            "streaming": streaming(case, seeds),
            "thresholds": thresholds(case),
        })  # fmt: skip
        c = results["cases"][-1]["protocols"]["candidates"][SERVICE]
        say(
            f"  without {results['cases'][-1]['protocols']['accuracy_without']['all']:.3f}; service gain "
            f"half {_pm(c['half'])}, skew {_pm(c['skew'])}, job {_pm(c['job'])}, job-skew {_pm(c['job-skew'])}"
        )
    say("learning curves")
    results["curves"] = []
    default = models[0]
    for case in cases:
        if case.model == default and case.wording == "bare" and case.data.lang == "zh":
            sizes = [10, 20, 50, 100, 200, 500, 1000] + ([2000, 5000] if case.pool is not None else [])
            results["curves"].append({"model": embedders[default].tag, "case": case.name,
                                      "curve": learning_curve(case, sizes, seeds)})  # fmt: skip
    pooled = {c.wording: c for c in cases if c.model == default and c.data.name == "thucnews" and c.pool is not None}
    results["drift"] = []
    if "bare" in pooled:
        say("drift: prequential streams, half-lives")
        lives = [250, 500, 1000, 2000, 4000, 8000, math.inf]
        phase = 300 if args.smoke else 1500
        results["drift"].append({"title": "the class mix moves", "case": "thucnews/bare", "phase_texts": phase,
                                 "result": drift_mix(pooled["bare"], lives, phase)})  # fmt: skip
        if "template" in pooled:
            phase = 500 if args.smoke else 3000
            result = drift_bias(pooled["bare"], pooled["template"], lives, phase)
            results["drift"].append({"title": "the bias moves", "case": "thucnews bare -> template",
                                     "phase_texts": phase, "result": result})  # fmt: skip
    say("examples")
    results["examples"] = []
    by_name = {s.name: s for s in sets}
    plan = [("cic", "bare", 7, "upto"), ("cic", "bare", 7, "exact"), ("cic", "bare", 3, "upto"),
            ("cic", "no-buyer", 7, "upto"), ("thucnews", "bare", 3, "upto"),
            ("thucnews", "bare", 7, "upto")]  # fmt: skip
    for name, wording, k, mode in plan[: 2 if args.smoke else None]:
        say(f"  {name}/{wording} k={k} {mode}")
        results["examples"].append(examples_study(by_name[name], embedders[default], wording, k, mode,
                                                  2 if args.smoke else 10))  # fmt: skip
    results["seconds"] = time.time() - started
    (out / "summary.json").write_text(json.dumps(_rounded(results), ensure_ascii=False, separators=(",", ":")))
    (out / "summary.md").write_text(report(results))
    chart(results, out / "calibration.png")
    say(f"wrote {out}/summary.md ({results['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
