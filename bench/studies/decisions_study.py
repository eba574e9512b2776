"""What OpenAI-shaped decision questions should do with an embedding model, measured in process (no server).

    .venv/bin/python -m bench.studies.decisions_study                      # both bundled models (~8 min on 1 thread)
    .venv/bin/python -m bench.studies.decisions_study --smoke              # a small sample, every step (~2 min)
    .venv/bin/python -m bench.studies.decisions_study --write-calibration  # also write the server's calibration file

``--write-calibration`` rewrites ``service/core/predicate_calibration.json``, the fitted values the server ships
(``bench.predicate_calibration`` writes the file).

Every text and every hypothesis is embedded once per model with the model's stored prefixes, on one CPU
thread; single-label scores are ``softmax(scale * cos)`` and a single label's ``sigmoid(scale * (cos -
bias))``, the service's own maths (checked against ``service.core.task.score`` on a sample at start). Three
studies, on THUCNews headlines and CIC customer-service utterances (``../shared/datasets``) and the
project's English rows (``loadtest/data/workload.jsonl``); a model is measured only on the sets in its
languages:

(a) **predicate calibration**: (text, statement, true/false) pairs, the statement naming one class
    ("这条新闻是关于体育的。", CIC's intent itself, "This news is about sports."); natural ratio (every
    class per text: 1 true to K-1 false) and balanced (the true class and one random other). Before: the
    model's multi-label sigmoid with its stored scale and bias. After: Platt scaling ``sigmoid(a * x + b)``
    of five features (the cosine; the cosine T-, Z- and S-normalised against cohorts, as speaker
    verification normalises scores; a yes/no contrast), fitted on one half of the texts of every set
    (pooled, each set weighted equally; balanced pairs) and measured on the other half (stratified, seeded);
    also fitted on natural pairs, per set (an upper bound: it needs the user's data), leaving each set out
    (how it carries to statements it never saw), moved to each set's base rate, and applied to the
    statements worded as questions ("...吗？", "Is this news about ...?"). ECE over 15 bins and ROC AUC,
    with bootstrap spreads over the held-out texts. The T-norm fit is what ships.
(b) **instructions** on choice questions over each set's classes, with two realistic instructions per
    set: ignored (= ``/classify`` with the bare labels), prepended to the text, prefixed to every
    hypothesis, a question/answer hypothesis (what ships: ``service.api.decisions.wordings``), the bare
    label and the prefixed one as an ensemble, and text and hypothesis both; on the sets whose labels have
    descriptions (a phrasings file), how a choice's value and description make its text. Then the choice
    probabilities themselves (NLL, ECE of the top probability) with the sharpening fitted on half the
    texts, and which ``confidence`` ranks right answers above wrong ones.
(c) **score questions**: ordered levels on ordinal data: CIC utterances grouped by sentiment (complaints,
    plain enquiries, praise and thanks: real labels, 3 levels) and English messages written for this
    study (5 levels of satisfaction, synthetic); levels worded as the label, the description, "label:
    description", both as an ensemble, with the instructions or without; accuracy of the top level, mean
    absolute error and Spearman's rho of the expected level.

Writes ``results/decisions-<date>/summary.md`` and ``summary.json`` (``--out`` to change); with
``--write-calibration`` ``service/core/predicate_calibration.json``: per model revision the shipped
predicate calibration (t-norm Platt, its cohort) and choice sharpening, with their held-out numbers.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.decision_sets import LabelledSet, load_sets
from bench.predicate_calibration import model_entry, predicate_fields, write_calibrations
from bench.studies.calibrate import fit_scale, halves
from harness.progress import say
from harness.report import result_folder, table
from harness.store import stored_model, use_home
from loadtest.workload import SHARED, WORKLOAD
from service.api.decisions.adapters import wordings
from service.api.decisions.protocol import ChoiceQuestion, ScoreQuestion
from service.api.questions import is_chinese, qa_hypothesis
from service.core.decisions import (
    CALIBRATION_FILE,
    PredicateProbabilityMap,
    confidence,
    expected_calibration_error,
    fit_platt,
    roc_auc,
    t_norm,
)
from service.core.scoring import prompt_ensemble

BUNDLED = ("multilingual-e5-small", "all-minilm-l6-v2")
BINS = 15
# Statements about anything, written for this study: the cohort a text's similarity to a statement is
# measured against (T-norm). Each language's half covers everyday topics, none of them a class of the sets.
COHORT_STATEMENTS = (
    "这段话与天气有关。",
    "这段文字在谈论美食。",
    "这段话提到了价格。",
    "说话人在抱怨。",
    "这是一个问题。",
    "这段话提到了时间。",
    "这是一则广告。",
    "这段文字与旅行有关。",
    "说话人表示感谢。",
    "这段话提到了家人。",
    "这段文字在描述一个地方。",
    "这段话与音乐有关。",
    "这段文字与动物有关。",
    "这段话提到了工作。",
    "这段文字在讲一个故事。",
    "这段话与交通有关。",
    "This text is about the weather.",
    "The text talks about food.",
    "The text mentions a price.",
    "The speaker is complaining.",
    "This is a question.",
    "The text mentions a date or time.",
    "This is an advertisement.",
    "The text is about travel.",
    "The speaker says thank you.",
    "The text mentions family.",
    "The text describes a place.",
    "The text is about music.",
    "The text is about animals.",
    "The text mentions a job.",
    "The text tells a story.",
    "The text is about traffic.",
)


# -- (c) ordinal data ---------------------------------------------------------------------------------------
CIC_SENTIMENT = {  # CIC intents by the buyer's mood: 0 upset, 1 matter-of-fact, 2 pleased
    0: ("买家表达不满/生气", "买家抱怨商品涨价了", "买家表示伤心难过"),
    1: (
        "买家咨询发货时间",
        "买家咨询商品重量",
        "买家咨询发什么快递",
        "买家咨询快递单号",
        "买家咨询商品的材质/面料",
        "买家咨询商品价格",
    ),
    2: ("买家表达赞美/满意", "买家表示麻烦卖家，表达感谢"),
}
CIC_LEVELS = (
    ("不满", "买家生气、抱怨或失望"),
    ("平静", "买家只是询问或说明情况"),
    ("满意", "买家称赞、感谢或表示满意"),
)
CIC_SCORE_INSTRUCTIONS = "买家的情绪如何？"

# Written for this study (synthetic): customer messages at five levels of satisfaction, 6 each.
EN_SATISFACTION = {
    0: [
        "This is the worst service I have ever had, I am cancelling everything today",
        "Absolutely furious, third broken order in a row and nobody answers",
        "You people are useless, I want my money back right now",
        "Disgusting experience, I will report you to consumer protection",
        "Never again. Rude staff, broken product, wasted week",
        "I am livid, you charged me twice and then hung up on me",
    ],
    1: [
        "The parcel came two days late, which was a bit annoying",
        "I am disappointed that the colour is different from the photo",
        "Not great: the manual is confusing and setup took an hour",
        "The app keeps logging me out, it is getting frustrating",
        "I expected better quality for this price",
        "Support took a while to reply and did not really help",
    ],
    2: [
        "What are your opening hours on Sunday?",
        "Please update the delivery address on order 4411",
        "Does this charger work with the older model?",
        "I would like a copy of my invoice for March",
        "Can I pay by bank transfer?",
        "How many days does shipping to Norway take?",
    ],
    3: [
        "Thanks, the replacement arrived and works fine",
        "Good service, the refund came through quickly",
        "The jacket fits well, I am happy with it",
        "Delivery was on time and the packaging was neat",
        "Nice product, does what it says",
        "Thank you for the quick answer, that solved it",
    ],
    4: [
        "Absolutely amazing, best purchase I have made in years!",
        "Your support team is fantastic, I will recommend you to everyone",
        "I love it! Perfect quality and it arrived the next morning",
        "Outstanding service from start to finish, thank you so much",
        "Wow, exceeded every expectation, five stars without a doubt",
        "Brilliant, I am thrilled, I already ordered a second one",
    ],
}
EN_LEVELS = (
    ("very unhappy", "furious, insulting or threatening to leave"),
    ("unhappy", "complaining or disappointed"),
    ("neutral", "asking or stating facts without feeling"),
    ("happy", "pleased or thankful"),
    ("delighted", "enthusiastic praise"),
)
EN_SCORE_INSTRUCTIONS = "How satisfied is the customer?"


@dataclass
class OrdinalSet:
    name: str
    lang: str
    texts: list[str]
    levels: np.ndarray  # the true level of each text
    wording: tuple[tuple[str, str], ...]  # (label, description) per level, lowest first
    instructions: str
    synthetic: bool


def ordinal_sets(seed: int, smoke: bool) -> list[OrdinalSet]:
    rows = [json.loads(line) for line in (SHARED / "cic_test_public.jsonl").read_text(encoding="utf-8").splitlines()]
    rng = random.Random(seed)
    texts, levels = [], []
    for level, intents in CIC_SENTIMENT.items():
        picked = [r["sentence"] for r in rows if r["label_des"] in intents]
        rng.shuffle(picked)
        picked = picked[: (12 if smoke else 80)]  # the largest group has 73: at most 80 each keeps them comparable
        texts += picked
        levels += [level] * len(picked)
    cic = OrdinalSet("cic-sentiment", "zh", texts, np.array(levels), CIC_LEVELS, CIC_SCORE_INSTRUCTIONS, False)
    en_texts = [t for level in sorted(EN_SATISFACTION) for t in EN_SATISFACTION[level]]
    en_levels = np.array([level for level in sorted(EN_SATISFACTION) for _ in EN_SATISFACTION[level]])
    en = OrdinalSet("en-satisfaction", "en", en_texts, en_levels, EN_LEVELS, EN_SCORE_INSTRUCTIONS, True)
    return [cic, en]


# -- the model --------------------------------------------------------------------------------------------
class Embedder:
    """A stored model's normalised embeddings, each distinct input computed once."""

    def __init__(self, name: str, threads: int) -> None:
        from service.backends import load_backend
        from service.core.model_spec import ModelSpec
        from service.engine.engine import Engine
        from service.engine.tokenization import Tokenizer

        stored = stored_model(name)
        self.tag = stored.tag
        self.spec = ModelSpec.from_metadata(stored.metadata)
        if self.spec.kind != "embedding":
            raise SystemExit(f"{name} is an NLI model: this study fits embedding models (NLI: entailment as is)")
        backend = load_backend(stored.path, self.spec, "auto", "cpu", threads)
        self.engine = Engine(self.spec, Tokenizer.load(stored.path, self.spec.max_length), backend, 8192, 256)
        self.memo: dict[str, np.ndarray] = {}
        self.encoded = 0

    def _rows(self, inputs: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(s for s in inputs if s not in self.memo))
        for start in range(0, len(missing), 512):  # progress on long sets; the engine batches inside
            chunk = missing[start : start + 512]
            rows, _ = self.engine.encode([(s, None) for s in chunk])
            self.memo.update(zip(chunk, np.asarray(rows, dtype=np.float64)))
            self.encoded += len(chunk)
        return np.stack([self.memo[s] for s in inputs])

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        return self._rows([self.spec.text_prefix + t for t in texts])

    def labels(self, phrasings: Sequence[Sequence[str]]) -> np.ndarray:
        """One vector per label: its phrasings' normalised mean (the service's prompt ensemble)."""
        flat = [self.spec.label_prefix + h for group in phrasings for h in group]
        rows = iter(self._rows(flat))
        return np.stack([prompt_ensemble(np.stack([next(rows) for _ in group])) for group in phrasings])


def check_against_service(model: Embedder, data: LabelledSet, n: int = 8) -> None:
    """The study's scores are the service's: ``service.core.task.score`` on a few texts gives the same."""
    from service.core.task import Task, score, sequences_for

    classes = data.classes[:6]
    for text in data.texts[:n]:
        for multi in (False, True):
            task = Task.of(text, classes, "{}", multi_label=multi)
            rows = np.stack([model._rows([s])[0] for s, _ in sequences_for(model.spec, task)])
            served = np.array(score(model.spec, task, rows))
            cos = model.labels([[c] for c in classes]) @ model.texts([text])[0]
            mine = (
                sigmoid(model.spec.logit_scale * (cos - model.spec.multi_label_bias))
                if multi
                else softmax(model.spec.logit_scale * cos)
            )
            assert np.allclose(served, mine, atol=1e-9), (text, multi, served, mine)


def softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -500, 500)))


# -- (a) predicate calibration -----------------------------------------------------------------------------
# What a statement's evidence is (each then Platt-scaled): the cosine itself, or the cosine normalised
# against a cohort, as speaker verification normalises scores: T-norm by the text's similarity to the cohort
# statements (its mean and spread: some texts are close to everything), Z-norm by the statement's similarity
# to cohort texts (some statements are close to every text: CIC's "买家..." intents), S-norm their mean; or a
# contrast: the statement as a question answered yes against the same answered no.
FEATURES = ("cosine", "T-norm", "Z-norm", "S-norm", "yes/no contrast")
SHIPPED = "T-norm"  # what --write-calibration writes: the best calibrated over every set at once, and the one
# whose fit carries to new wordings and to other base rates (the report's table (a))
YES_NO = {"zh": ("是", "否"), "en": ("yes", "no")}


@dataclass
class Pairs:
    x: np.ndarray  # the feature per pair
    y: np.ndarray
    text: np.ndarray  # index of the pair's text (the bootstrap resamples texts)


@dataclass
class PairIndex:
    rows: np.ndarray
    cols: np.ndarray
    y: np.ndarray

    def of(self, matrix: np.ndarray) -> Pairs:
        return Pairs(matrix[self.rows, self.cols], self.y, self.rows)


def pair_index(k: int, truth: np.ndarray, rows: np.ndarray, balanced: bool, rng: np.random.Generator) -> PairIndex:
    """(text, class) pairs of the texts ``rows``: every class (natural) or the true one and one other."""
    if balanced:
        other = (truth[rows] + rng.integers(1, k, size=rows.size)) % k  # uniform over the K-1 false classes
        return PairIndex(
            np.concatenate([rows, rows]),
            np.concatenate([truth[rows], other]),
            np.concatenate([np.ones(rows.size), np.zeros(rows.size)]),
        )
    cols = np.tile(np.arange(k), rows.size)
    return PairIndex(np.repeat(rows, k), cols, (cols == np.repeat(truth[rows], k)).astype(float))


def measure(p: np.ndarray, pr: Pairs, boot: int, rng: np.random.Generator) -> dict:
    out = {
        "ece": expected_calibration_error(p, pr.y, BINS),
        "auc": roc_auc(p, pr.y),
        "pairs": int(pr.y.size),
        "positive_rate": float(pr.y.mean()),
        "mean_p": float(p.mean()),
    }
    if boot:
        order = np.argsort(pr.text, kind="mergesort")
        texts, starts = np.unique(pr.text[order], return_index=True)
        index = np.split(order, starts[1:])
        eces, aucs = [], []
        for _ in range(boot):
            pick = np.concatenate([index[j] for j in rng.integers(0, texts.size, texts.size)])
            if 0 < pr.y[pick].sum() < pick.size:
                eces.append(expected_calibration_error(p[pick], pr.y[pick], BINS))
                aucs.append(roc_auc(p[pick], pr.y[pick]))
        # the spread, not a percentile interval: ECE is biased upwards on resamples (repeated texts fill
        # fewer bins), so its percentile interval can miss the estimate itself
        out["ece_sd"], out["auc_sd"] = float(np.std(eces)), float(np.std(aucs))
    return out


def fit_pooled(parts: Sequence[Pairs]) -> PredicateProbabilityMap:
    """Platt scaling on several sets' pairs, each set weighted equally (CIC has 20x THUCNews' pairs)."""
    x = np.concatenate([p.x for p in parts])
    y = np.concatenate([p.y for p in parts])
    w = np.concatenate([np.full(p.y.size, 1.0 / p.y.size) for p in parts])
    slope, intercept = fit_platt(x, y, w * x.size / len(parts))
    return PredicateProbabilityMap(slope, intercept, "similarity")


def cohort_texts(exclude: Sequence[str]) -> list[str]:
    """The project's own sentences (workload.jsonl: English and Chinese news and support, written for the
    project) as the cohort of texts, less any text being measured."""
    rows = [json.loads(line)["text"] for line in WORKLOAD.read_text(encoding="utf-8").splitlines() if line]
    skip = set(exclude)
    return [t for t in rows if t not in skip]


def features(
    cos: np.ndarray, text_cohort: np.ndarray, statement_cohort: np.ndarray, contrast: np.ndarray
) -> dict[str, np.ndarray]:
    """``cos`` [texts, statements]; ``text_cohort`` [texts, cohort statements]: each text's cosine to the
    cohort statements; ``statement_cohort`` [cohort texts, statements]: each statement's to cohort texts;
    ``contrast`` [texts, statements]: cos to "statement? yes" minus cos to "statement? no"."""
    t = t_norm(cos, text_cohort)  # the service's own function
    z = (cos - statement_cohort.mean(axis=0, keepdims=True)) / statement_cohort.std(axis=0, keepdims=True)
    return {"cosine": cos, "T-norm": t, "Z-norm": z, "S-norm": (t + z) / 2, "yes/no contrast": contrast}


def study_predicates(model: Embedder, sets: Sequence[LabelledSet], seed: int, boot: int) -> dict:
    spec = model.spec
    rng = np.random.default_rng(seed)
    statements_cohort = model.labels([[s] for s in COHORT_STATEMENTS])
    feats, split = {}, {}
    for data in sets:
        text_vecs = model.texts(data.texts)
        to_statements = text_vecs @ statements_cohort.T
        others = model.texts(cohort_texts(data.texts))
        yes, no = YES_NO[data.lang]
        chinese = is_chinese([yes, no])
        for form in ("statement", "question"):
            wording = getattr(data, form)
            statement_vecs = model.labels([[wording.format(c)] for c in data.classes])
            contrast = (
                text_vecs
                @ (
                    model.labels([[qa_hypothesis(wording.format(c), yes, chinese)] for c in data.classes])
                    - model.labels([[qa_hypothesis(wording.format(c), no, chinese)] for c in data.classes])
                ).T
            )
            feats[data.name, form] = features(
                text_vecs @ statement_vecs.T, to_statements, others @ statement_vecs.T, contrast
            )
        split[data.name] = halves(len(data.texts), list(data.labels), seed)
        say(f"  (a) {data.name}: {len(data.texts)} texts x {len(data.classes)} statements embedded")
    names = [d.name for d in sets]
    index = {
        (d.name, part, bal): pair_index(len(d.classes), d.labels, split[d.name][part], bal, rng)
        for d in sets
        for part in (0, 1)
        for bal in (True, False)
    }

    def fit_pairs(n: str, feature: str, bal: bool = True) -> Pairs:
        return index[n, 0, bal].of(feats[n, "statement"][feature])

    def test_pairs(n: str, feature: str, bal: bool, form: str = "statement") -> Pairs:
        return index[n, 1, bal].of(feats[n, form][feature])

    fitted = {f: fit_pooled([fit_pairs(n, f) for n in names]) for f in FEATURES}
    fitted_natural = {f: fit_pooled([fit_pairs(n, f, False) for n in names]) for f in ("cosine", "T-norm")}
    truth_share = {n: float(index[n, 0, False].y.mean()) for n in names}  # the base rate, from the fit half

    def with_prior(calibration: PredicateProbabilityMap, n: str) -> Callable[[np.ndarray], np.ndarray]:
        """The balanced fit moved to a known base rate: its prior odds (1:1) replaced by the set's."""
        return calibration.with_base_rate(truth_share[n]).apply

    def before(x: np.ndarray) -> np.ndarray:
        return sigmoid(spec.logit_scale * (x - spec.multi_label_bias))

    # (method, feature, calibration): every method on every set's held-out half
    methods: list[tuple[str, str, Callable[[str], Callable[[np.ndarray], np.ndarray]]]] = [
        ("before: stored sigmoid(scale (cos - bias))", "cosine", lambda n: before),
        (
            "Platt on cosine, this set's own fit (oracle)",
            "cosine",
            lambda n: fit_pooled([fit_pairs(n, "cosine")]).apply,
        ),
    ]
    for f in FEATURES:
        methods.append((f"Platt on {f}", f, lambda n, f=f: fitted[f].apply))
        if len(names) > 1:
            methods.append(
                (
                    f"Platt on {f}, fitted without this set",
                    f,
                    lambda n, f=f: fit_pooled([fit_pairs(m, f) for m in names if m != n]).apply,
                )
            )
    for f, calibration in fitted_natural.items():
        methods.append((f"Platt on {f}, natural-ratio fit", f, lambda n, c=calibration: c.apply))
        methods.append(
            (f"Platt on {f} + the set's base rate (natural ratio only)", f, lambda n, f=f: with_prior(fitted[f], n))
        )
    rows = []
    for n in names:
        for method, feature, calibration in methods:
            apply = calibration(n)
            for bal in (True, False):
                if bal and "base rate" in method:
                    continue
                pr = test_pairs(n, feature, bal)
                main = method.startswith("before") or method == f"Platt on {feature}"
                rows.append(
                    {
                        "set": n,
                        "wording": "statement",
                        "ratio": "balanced" if bal else "natural",
                        "method": method,
                        "feature": feature,
                        **measure(apply(pr.x), pr, boot if main else 0, rng),
                    }
                )
                if main:  # the statements worded as questions, with the calibration fitted on statements
                    pq = test_pairs(n, feature, bal, "question")
                    rows.append(
                        {
                            "set": n,
                            "wording": "question",
                            "ratio": "balanced" if bal else "natural",
                            "method": method,
                            "feature": feature,
                            **measure(apply(pq.x), pq, 0, rng),
                        }
                    )
    # every set's held-out half at once: one threshold for every wording (CIC dominates the natural ratio)
    for method, feature, calibration in methods:
        if not (method.startswith("before") or method in {f"Platt on {f}" for f in FEATURES}):
            continue
        apply = calibration("")
        for bal in (True, False):
            parts = [test_pairs(n, feature, bal) for n in names]
            pooled = Pairs(
                np.concatenate([p.x for p in parts]),
                np.concatenate([p.y for p in parts]),
                np.concatenate([p.text + 10**7 * i for i, p in enumerate(parts)]),
            )
            rows.append(
                {
                    "set": "all sets",
                    "wording": "statement",
                    "ratio": "balanced" if bal else "natural",
                    "method": method,
                    "feature": feature,
                    **measure(apply(pooled.x), pooled, boot, rng),
                }
            )
    shipped = PredicateProbabilityMap(fitted[SHIPPED].slope, fitted[SHIPPED].intercept, "t-norm", COHORT_STATEMENTS)
    held = {
        (r["set"], r["ratio"]): r for r in rows if r["method"] == f"Platt on {SHIPPED}" and r["wording"] == "statement"
    }
    return {
        "fitted": {f: {"slope": v.slope, "intercept": v.intercept} for f, v in fitted.items()},
        "fitted_natural": {f: {"slope": v.slope, "intercept": v.intercept} for f, v in fitted_natural.items()},
        "stored": {"logit_scale": spec.logit_scale, "multi_label_bias": spec.multi_label_bias},
        "rows": rows,
        "calibration": {
            "model": model.tag.split(":")[0],
            "tag": model.tag,
            **predicate_fields(shipped),
            "text_prefix": spec.text_prefix,
            "label_prefix": spec.label_prefix,
            "fitted_on": f"balanced (text, statement) pairs of half of the texts of {', '.join(names)} (seed {seed}), "
            "each set weighted equally",
            "held_out": {
                n: {
                    ratio: {"ece": round(held[n, ratio]["ece"], 4), "auc": round(held[n, ratio]["auc"], 4)}
                    for ratio in ("balanced", "natural")
                }
                for n in [*names, "all sets"]
            },
        },
    }


# -- (b) instructions ----------------------------------------------------------------------------------------
def shipped_choice(
    model: Embedder, instruction: str, classes: Sequence[str], descriptions: dict[str, str]
) -> np.ndarray:
    """The label vectors of a choice question over ``classes`` as the service words it
    (``service.api.decisions.wordings``)."""
    question = ChoiceQuestion.model_validate(
        {
            "type": "choice",
            "instructions": instruction,
            "choices": [
                {"value": c, **({"description": descriptions[c]} if c in descriptions else {})} for c in classes
            ],
        }
    )
    return model.labels([w.phrasings for w in wordings(question, model.spec.kind)])


def joined(instruction: str, label: str) -> str:
    # Chinese runs on without a space; English needs one
    return f"{instruction}{label}" if instruction.endswith(("？", "。", "：")) else f"{instruction} {label}"


def nll(p: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean(-np.log(np.maximum(p[np.arange(truth.size), truth], 1e-300))))


def study_instructions(model: Embedder, sets: Sequence[LabelledSet], seed: int) -> dict:
    rows, confidence_rows = [], []
    cases: list[tuple[str, str, str, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]] = []
    for data in sets:
        truth = data.labels
        bare = model.labels([[c] for c in data.classes])
        plain = model.texts(data.texts)

        def accuracy(text_vecs: np.ndarray, label_vecs: np.ndarray, truth: np.ndarray = truth) -> float:
            return float(np.mean((text_vecs @ label_vecs.T).argmax(axis=1) == truth))

        baseline = accuracy(plain, bare)
        rows.append(
            {
                "set": data.name,
                "instruction": "—",
                "variant": "ignored (= /classify, bare labels)",
                "accuracy": baseline,
                "delta": 0.0,
            }
        )
        chinese = is_chinese(data.classes)
        split = halves(len(data.texts), list(truth), seed)
        cases.append((data.name, "—", "bare labels (= /classify)", plain @ bare.T, truth, split))
        for instruction in data.instructions:
            prefixed_texts = model.texts([f"{instruction}\n{t}" for t in data.texts])
            qa_cos = plain @ shipped_choice(model, instruction, data.classes, {}).T
            cases.append((data.name, instruction, "question/answer", qa_cos, truth, split))
            variants = {
                "prepended to the text": (prefixed_texts, bare),
                "prefixed to each hypothesis": (plain, model.labels([[joined(instruction, c)] for c in data.classes])),
                "question/answer hypothesis (shipped)": (plain, shipped_choice(model, instruction, data.classes, {})),
                "ensemble: bare label + prefixed": (
                    plain,
                    model.labels([[c, joined(instruction, c)] for c in data.classes]),
                ),
                "text and hypothesis both": (
                    prefixed_texts,
                    model.labels([[joined(instruction, c)] for c in data.classes]),
                ),
            }
            for variant, (t, lab) in variants.items():
                acc = accuracy(t, lab)
                rows.append(
                    {
                        "set": data.name,
                        "instruction": instruction,
                        "variant": variant,
                        "accuracy": acc,
                        "delta": acc - baseline,
                    }
                )
            say(
                f"  (b) {data.name}, {instruction!r}: baseline {baseline:.3f}, "
                + ", ".join(f"{r['variant'].split(' ')[0]} {r['accuracy']:.3f}" for r in rows[-len(variants) :])
            )
        if data.descriptions:
            desc = [data.descriptions[c] for c in data.classes]
            wordings_ = {
                "value alone (bare label)": [[c] for c in data.classes],
                "description alone (= /classify label object)": [[d] for d in desc],
                "value: description": [
                    [f"{c}: {d}" if data.lang == "en" else f"{c}：{d}"] for c, d in zip(data.classes, desc)
                ],
                "ensemble: value + description": [[c, d] for c, d in zip(data.classes, desc)],
                "instruction + description": [[joined(data.instructions[0], d)] for d in desc],
                "question/answer: value": [[qa_hypothesis(data.instructions[0], c, chinese)] for c in data.classes],
                "question/answer: description": [[qa_hypothesis(data.instructions[0], d, chinese)] for d in desc],
            }
            for variant, phrasings in wordings_.items():
                rows.append(
                    {
                        "set": data.name,
                        "instruction": "with descriptions",
                        "variant": variant,
                        "accuracy": accuracy(plain, model.labels(phrasings)),
                        "delta": None,
                    }
                )
            rows.append(
                {
                    "set": data.name,
                    "instruction": "with descriptions",
                    "variant": "question/answer: ensemble value + description (shipped)",
                    "accuracy": accuracy(
                        plain, shipped_choice(model, data.instructions[0], data.classes, data.descriptions)
                    ),
                    "delta": None,
                }
            )
        # which confidence ranks right answers above wrong ones (the baseline's distributions)
        p = softmax(model.spec.logit_scale * (plain @ bare.T))
        right = (p.argmax(axis=1) == truth).astype(float)
        if 0 < right.sum() < right.size:
            top = np.sort(p, axis=1)
            confidence_rows.append(
                {
                    "set": data.name,
                    "classes": len(data.classes),
                    "accuracy": baseline,
                    "entropy (1 - H/ln K)": roc_auc([confidence(x) for x in p], right),
                    "top probability": roc_auc(top[:, -1], right),
                    "margin (top - second)": roc_auc(top[:, -1] - top[:, -2], right),
                    "mean entropy confidence": float(np.mean([confidence(x) for x in p])),
                    "mean top probability": float(top[:, -1].mean()),
                }
            )
    return {"rows": rows, "confidence": confidence_rows, **choice_probabilities(model, cases)}


def choice_probabilities(model: Embedder, cases: Sequence[tuple]) -> dict:
    """How good the choice probabilities are, not just the top choice: a question/answer hypothesis shares
    the instructions' words with every other choice, so the cosines draw together and the model's softmax
    scale (fitted on bare labels) gives flat distributions. The sharpening ``t`` (probabilities to the power
    t, renormalised: the softmax at t times the scale) is fitted on the fitting halves (temperature
    scaling, the geometric mean over sets and instructions, as bench/studies/calibrate.py fits the scale) and every
    distribution is measured on the other halves: NLL of the true choice, ECE of the top probability
    (15 bins), mean top probability and confidence."""
    scale = model.spec.logit_scale
    fitted = {
        wording: float(np.exp(np.mean([np.log(fit_scale(c[f], t[f]) / scale) for _, _, w, c, t, (f, _) in cases
                                       if w == wording])))
        for wording in ("bare labels (= /classify)", "question/answer")
    }  # fmt: skip
    sharpen = fitted["question/answer"]
    rows = []
    for name, instruction, wording, cos, truth, (_, held) in cases:
        variants = [(wording, 1.0)] + ([(f"question/answer, sharpened x{sharpen:.2f} (shipped)", sharpen)]
                                       if wording == "question/answer" else [])  # fmt: skip
        for label, t in variants:
            p = softmax(t * scale * cos[held])
            right = (p.argmax(axis=1) == truth[held]).astype(float)
            rows.append({"set": name, "instruction": instruction, "wording": label, "accuracy": float(right.mean()),
                         "nll": nll(p, truth[held]), "top_ece": expected_calibration_error(p.max(axis=1), right, BINS),
                         "mean_top": float(p.max(axis=1).mean()),
                         "mean_confidence": float(np.mean([confidence(x) for x in p]))})  # fmt: skip
    return {"sharpen": sharpen, "fitted_scale_factor": fitted, "probability_rows": rows}


# -- (c) score questions ------------------------------------------------------------------------------------
def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = (np.argsort(np.argsort(x, kind="mergesort"), kind="mergesort").astype(float) for x in (a, b))
    # ties get the mean rank (the truth has few distinct values)
    for r, x in ((ra, a), (rb, b)):
        for v in np.unique(x):
            r[x == v] = r[x == v].mean()
    return float(np.corrcoef(ra, rb)[0, 1])


def study_scores(model: Embedder, data: Sequence[OrdinalSet]) -> list[dict]:
    rows = []
    for od in data:
        texts = model.texts(od.texts)
        sep = "：" if od.lang == "zh" else ": "
        wordings_ = {
            "label": [[label] for label, _ in od.wording],
            "description": [[d] for _, d in od.wording],
            "label: description": [[f"{label}{sep}{d}"] for label, d in od.wording],
            "ensemble: label + description": [[label, d] for label, d in od.wording],
            "instruction + label": [[joined(od.instructions, label)] for label, _ in od.wording],
            "question/answer: label": [
                [qa_hypothesis(od.instructions, label, od.lang == "zh")] for label, _ in od.wording
            ],
            "question/answer: ensemble label + description": [
                [qa_hypothesis(od.instructions, x, od.lang == "zh") for x in (label, d)] for label, d in od.wording
            ],
            "the service's wording (shipped)": [
                w.phrasings
                for w in wordings(
                    ScoreQuestion.model_validate(
                        {
                            "type": "score",
                            "instructions": od.instructions,
                            "levels": [{"label": label, "description": d} for label, d in od.wording],
                        }
                    ),
                    model.spec.kind,
                )
            ],
        }
        for variant, phrasings in wordings_.items():
            p = softmax(model.spec.logit_scale * (texts @ model.labels(phrasings).T))
            expected = p @ np.arange(p.shape[1])
            right = (p.argmax(axis=1) == od.levels).astype(float)
            conf = np.array([confidence(x) for x in p])
            close = (np.abs(expected - od.levels) < 0.5).astype(float)
            rows.append(
                {
                    "set": od.name,
                    "synthetic": od.synthetic,
                    "texts": len(od.texts),
                    "levels": len(od.wording),
                    "variant": variant,
                    "accuracy": float(right.mean()),
                    "mae": float(np.mean(np.abs(expected - od.levels))),
                    "spearman": spearman(expected, od.levels),
                    "mean_confidence": float(conf.mean()),
                    "confidence_auc": roc_auc(conf, close) if 0 < close.sum() < close.size else None,
                }
            )
        say(
            f"  (c) {od.name}: " + ", ".join(f"{r['variant']} rho {r['spearman']:.2f}" for r in rows[-len(wordings_) :])
        )
    return rows


# -- the report ------------------------------------------------------------------------------------------------
def ci(r: dict, key: str) -> str:
    v = f"{r[key]:.3f}"
    return f"{v} ± {r[key + '_sd']:.3f}" if key + "_sd" in r else v


def report(results: dict, args: argparse.Namespace, took: float) -> str:
    lines = [
        f"# Decisions study ({time.strftime('%Y-%m-%d')})",
        "",
        f"`python -m bench.studies.decisions_study{' --smoke' if args.smoke else ''}` — {took / 60:.1f} min on "
        f"{args.threads} CPU thread(s); models: {', '.join(results)}; seed {args.seed}. "
        "The method: `bench/studies/decisions_study.py`'s docstring.",
        "",
    ]
    for r in results.values():
        a, b = r["predicates"], r["instructions"]
        lines += [
            f"## {r['tag']}",
            "",
            "### (a) Predicate calibration (held-out half of the texts)",
            "",
            f"Stored: scale {a['stored']['logit_scale']}, bias {a['stored']['multi_label_bias']}. Fitted on "
            "balanced pairs, every set pooled: "
            + "; ".join(f"{f} `sigmoid({v['slope']:.3f} x + {v['intercept']:.3f})`" for f, v in a["fitted"].items())
            + "; on natural pairs: "
            + "; ".join(
                f"{f} `sigmoid({v['slope']:.3f} x + {v['intercept']:.3f})`" for f, v in a["fitted_natural"].items()
            )
            + f". Shipped: {a['calibration']['on']}.",
            "",
        ]
        sets = list(dict.fromkeys(x["set"] for x in a["rows"]))
        for wording in ("statement", "question"):
            for ratio in ("balanced", "natural"):
                rows = [x for x in a["rows"] if x["wording"] == wording and x["ratio"] == ratio]
                methods = list(dict.fromkeys(x["method"] for x in rows))
                cell = {(x["method"], x["set"]): f"{x['ece']:.3f} / {x['auc']:.3f}" for x in rows}
                share = {x["set"]: f"{x['pairs']} pairs, {x['positive_rate']:.3f} true" for x in rows}
                lines += [f"ECE / AUC, statements worded as {wording}s, {ratio} ratio:", ""]
                lines += table(
                    ["method", *[f"{s} ({share.get(s, '')})" for s in sets if s in share]],
                    [[m, *[cell.get((m, s), "") for s in sets if s in share]] for m in methods],
                )
                lines.append("")
        lines += ["With the bootstrap standard deviation (held-out texts resampled):", ""]
        lines += table(
            ["set", "ratio", "method", "ECE", "AUC", "mean p"],
            [
                [x["set"], x["ratio"], x["method"], ci(x, "ece"), ci(x, "auc"), f"{x['mean_p']:.3f}"]
                for x in a["rows"]
                if "ece_sd" in x and x["wording"] == "statement"
            ],
        )
        lines.append("")
        lines += ["### (b) Instructions on choice questions (accuracy, all texts)", ""]
        lines += table(
            ["set", "instruction", "variant", "accuracy", "vs ignored"],
            [
                [
                    x["set"],
                    x["instruction"],
                    x["variant"],
                    f"{x['accuracy']:.3f}",
                    "" if x["delta"] is None else f"{x['delta']:+.3f}",
                ]
                for x in b["rows"]
            ],
        )
        factors = b["fitted_scale_factor"]
        lines += [
            "",
            "Choice probabilities on the held-out halves (the sharpening fitted on the other halves, as a factor on "
            f"the model's scale: bare labels x{factors['bare labels (= /classify)']:.2f}, question/answer "
            f"x{b['sharpen']:.2f}):",
            "",
        ]
        lines += table(
            ["set", "instruction", "wording", "accuracy", "NLL of the true choice", "top-probability ECE",
             "mean top probability", "mean confidence"],
            [[x["set"], x["instruction"], x["wording"], f"{x['accuracy']:.3f}", f"{x['nll']:.3f}",
              f"{x['top_ece']:.3f}", f"{x['mean_top']:.3f}", f"{x['mean_confidence']:.3f}"]
             for x in b["probability_rows"]],
        )  # fmt: skip
        lines += [
            "",
            "Confidence: ROC AUC of each definition for telling right top choices from wrong ones "
            "(the bare labels' distributions):",
            "",
        ]
        lines += table(
            [
                "set",
                "classes",
                "accuracy",
                "entropy (1 - H/ln K)",
                "top probability",
                "margin",
                "mean entropy confidence",
                "mean top probability",
            ],
            [
                [
                    x["set"],
                    x["classes"],
                    f"{x['accuracy']:.3f}",
                    f"{x['entropy (1 - H/ln K)']:.3f}",
                    f"{x['top probability']:.3f}",
                    f"{x['margin (top - second)']:.3f}",
                    f"{x['mean entropy confidence']:.3f}",
                    f"{x['mean top probability']:.3f}",
                ]
                for x in b["confidence"]
            ],
        )
        if r["scores"]:
            lines += ["", "### (c) Score questions: how levels are worded", ""]
            lines += table(
                [
                    "set",
                    "texts",
                    "levels",
                    "level wording",
                    "top-level accuracy",
                    "MAE of the score",
                    "Spearman rho",
                    "mean confidence",
                    "confidence AUC (|score - truth| < 0.5)",
                ],
                [
                    [
                        x["set"] + (" (synthetic)" if x["synthetic"] else ""),
                        x["texts"],
                        x["levels"],
                        x["variant"],
                        f"{x['accuracy']:.3f}",
                        f"{x['mae']:.3f}",
                        f"{x['spearman']:.3f}",
                        f"{x['mean_confidence']:.3f}",
                        "—" if x["confidence_auc"] is None else f"{x['confidence_auc']:.3f}",
                    ]
                    for x in r["scores"]
                ],
            )
        lines.append("")
    return "\n".join(lines)


def write_calibration(results: dict, path: Path) -> None:
    """Each model's shipped predicate calibration and choice sharpening into the server's file at ``path``."""
    entries = {}
    for r in results.values():
        b = r["instructions"]
        shipped = [x for x in b["probability_rows"] if x["wording"].endswith("(shipped)")]
        entries[r["revision"]] = model_entry(r["predicates"]["calibration"], b["sharpen"], shipped)
    write_calibrations(entries, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--model", action="append", help=f"a model in the store (repeat; default: {', '.join(BUNDLED)})"
    )
    parser.add_argument("--home", type=Path, help="BentoML home (default $BENTOML_HOME or ~/bentoml)")
    parser.add_argument("--smoke", action="store_true", help="a small sample of every set, every step (~2 min)")
    parser.add_argument("--per-class", type=int, default=100, help="THUCNews headlines per class")
    parser.add_argument("--cic-per-intent", type=int, default=0, help="CIC utterances per intent (0: all 2,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for the intervals")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for the model (the machine is shared)")
    parser.add_argument("--out", type=Path, help="default results/decisions-<date>")
    parser.add_argument("--write-calibration", action="store_true", help=f"write {CALIBRATION_FILE.name}")
    args = parser.parse_args(argv)
    if args.home:
        use_home(args.home)
    if args.smoke:
        args.per_class, args.cic_per_intent, args.bootstrap = 8, 3, 20
    out = result_folder(args.out, "decisions", args.smoke)
    started = time.monotonic()
    every = load_sets(args.per_class, args.cic_per_intent or None, args.seed)
    ordinal = ordinal_sets(args.seed, args.smoke)
    results = {}
    for name in args.model or BUNDLED:
        model = Embedder(name, args.threads)
        langs = set(model.spec.languages)
        sets = [d for d in every if not langs or d.lang in langs]
        say(f"{model.tag} ({model.spec.revision}): sets {', '.join(d.name for d in sets)}")
        check_against_service(model, sets[0])
        say("  the study's scores match service.core.task.score")
        results[name] = {
            "tag": model.tag,
            "revision": model.spec.revision,
            "sets": {d.name: {"texts": len(d.texts), "classes": len(d.classes)} for d in sets},
            "predicates": study_predicates(model, sets, args.seed, args.bootstrap),
            "instructions": study_instructions(model, sets, args.seed),
            "scores": study_scores(model, [o for o in ordinal if not langs or o.lang in langs]),
        }
        say(f"  {model.encoded} distinct inputs embedded, {time.monotonic() - started:.0f} s so far")
    took = time.monotonic() - started
    (out / "summary.md").write_text(report(results, args, took), encoding="utf-8")
    (out / "summary.json").write_text(
        json.dumps(
            {"args": {k: str(v) for k, v in vars(args).items()}, "seconds": took, "models": results},
            indent=2,
            ensure_ascii=False,
        )
    )
    if args.write_calibration:
        write_calibration(results, CALIBRATION_FILE)
        say(f"wrote {CALIBRATION_FILE}")
    say(f"wrote {out / 'summary.md'} and summary.json ({took / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
