"""Which wording of the labels works best on your data, measured honestly, kept as a label set.

The labelled data is split (stratified) into a tuning part and a held-out part. Every combination of a
hypothesis template (built-in sets for English and Chinese, plus your own) and a label phrasing strategy
(the bare names; the i-th candidate phrasing of every label; all candidates as one ensemble) is scored on
the tuning part through the running service (its cache computes a pair shared by two combinations once);
the best one is then scored on the held-out part, which is the result reported, next to the held-out
score of the plain default (bare names, the model's template). A decision threshold is fitted on the
tuning part: for a target precision (the lowest threshold whose answered items reach it), else the one
with the best macro-F1; per label when multi-label. The result is written as a label set (label_sets.py).

With examples (``zsc tune --examples K``, embedding models): up to K texts per label are drawn from the
tuning part (at most all but one of a label's rows, so every label keeps one to be scored on), or read from
a file; the rest of the tuning part (the selection part) ranks the wordings, then every example rule and
weight (``RULES``) on the best wording, and fits the threshold on the winner. An example is never scored:
the drawn rows leave the selection part, and the held-out part is untouched. The label set keeps the
examples, the rule and the weight; the report gives the held-out score with and without the examples.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from service.config import model_name
from service.pipeline.label_sets import LabelSet
from service.quality.evaluation import Metrics, Remote, score_multi, score_single
from service.quality.labelled import Labelled, by_class

# the rules and weights tried with examples: (example_rule, example_weight)
RULES = (("prototype", 0.0), ("nearest", 0.0), ("blend", 0.1), ("blend", 0.2), ("blend", 0.3), ("blend", 0.5))

TEMPLATES = {
    "en": ("{}", "This text is about {}.", "This example is {}.", "The topic of this text is {}."),
    "zh": ("{}", "这是一条关于{}的新闻", "这段文字的主题是{}", "这句话是关于{}的"),
}


@dataclass(frozen=True)
class Combination:
    template: str | None  # None: the model's default
    strategy: str  # "names" | "phrasing <i>" | "ensemble"
    rule: tuple[str, float] | None = None  # with examples: (example_rule, example_weight)

    def labels(
        self, classes: list[str], phrasings: dict[str, list[str]], examples: dict[str, list[str]] | None = None
    ) -> list[str | dict]:
        worded = self._worded(classes, phrasings)
        if self.rule is None or not examples:
            return worded
        out: list[str | dict] = []
        for c, label in zip(classes, worded):
            if examples.get(c):
                label = {"name": label} if isinstance(label, str) else dict(label)
                label["examples"] = list(examples[c])
            out.append(label)
        return out

    def _worded(self, classes: list[str], phrasings: dict[str, list[str]]) -> list[str | dict]:
        if self.strategy == "names":
            return list(classes)
        out: list[str | dict] = []
        for c in classes:
            candidates = phrasings.get(c) or []
            if self.strategy == "ensemble":
                out.append(
                    {"name": c, "description": candidates if len(candidates) > 1 else candidates[0]}
                    if candidates
                    else c
                )
            else:
                i = int(self.strategy.split()[1])
                out.append({"name": c, "description": candidates[i]} if i < len(candidates) else c)
        return out

    def describe(self) -> str:
        out = f"template {self.template!r}, {self.strategy}" if self.template else f"model template, {self.strategy}"
        if self.rule is not None:
            out += f", examples {self.rule[0]}" + (f" {self.rule[1]:g}" if self.rule[0] == "blend" else "")
        return out

    def fields(self) -> dict[str, Any]:
        """The request fields besides the labels."""
        out: dict[str, Any] = {"hypothesis_template": self.template} if self.template else {}
        if self.rule is not None:
            out |= {"example_rule": self.rule[0], "example_weight": self.rule[1]}
        return out


def combinations(templates: list[str], phrasings: dict[str, list[str]]) -> list[Combination]:
    most = max((len(v) for v in phrasings.values()), default=0)
    strategies = ["names"] + [f"phrasing {i}" for i in range(most)] + (["ensemble"] if most > 1 else [])
    return [Combination(t, s) for t in dict.fromkeys(templates) for s in strategies]


@dataclass
class Scored:
    combination: Combination
    metrics: Metrics
    answers: list[dict] = field(repr=False, default_factory=list)


def bodies(
    data: Labelled,
    combo: Combination,
    phrasings: dict[str, list[str]],
    multi_label: bool,
    examples: dict[str, list[str]] | None = None,
) -> list[dict]:
    common: dict[str, Any] = {"labels": combo.labels(data.classes, phrasings, examples), "multi_label": multi_label}
    common |= combo.fields()
    return [{"text": t, **common} for t in data.texts]


def draw_examples(tuning: Labelled, k: int, seed: int = 7) -> tuple[dict[str, list[str]], Labelled]:
    """Up to ``k`` example texts per label from the tuning part (at most all but one of its rows), and the
    tuning part without them (what is scored)."""
    rng = random.Random(seed)
    examples: dict[str, list[str]] = {}
    drawn: set[int] = set()
    for label, indices in by_class(tuning).items():
        take = rng.sample(indices, min(k, len(indices) - 1)) if len(indices) > 1 else []
        if take:
            examples[label] = [tuning.texts[i] for i in take]
            drawn.update(take)
    return examples, tuning.subset([i for i in range(len(tuning)) if i not in drawn])


def evaluate(
    remote: Remote,
    data: Labelled,
    combo: Combination,
    phrasings: dict[str, list[str]],
    examples: dict[str, list[str]] | None = None,
) -> Scored:
    answers = remote.classify(bodies(data, combo, phrasings, data.multi_label, examples), desc=combo.describe())
    if data.multi_label:
        metrics = score_multi(data.labels, [a["predicted"] or [] for a in answers], data.classes)
    else:
        metrics = score_single([row[0] for row in data.labels], [a["labels"][0] for a in answers], data.classes)
    return Scored(combo, metrics, answers)


def metric_of(metrics: Metrics, name: str) -> float:
    return metrics.accuracy if name == "accuracy" else metrics.macro_f1


# -- thresholds ------------------------------------------------------------------------------------------
def fit_threshold(data: Labelled, answers: list[dict], target_precision: float | None) -> dict[str, Any]:
    """Single-label: the top score under which to abstain. With a target precision: the lowest threshold
    at which the accuracy of the answered items reaches it (most coverage); else the one with the best
    macro-F1 (abstentions count as misses)."""
    truth = [row[0] for row in data.labels]
    tops = [(a["labels"][0], a["scores"][0]) for a in answers]
    candidates = sorted({0.0, *(round(s, 6) for _, s in tops)})
    best: tuple[float, float, float] | None = None  # (key, threshold, coverage)
    for t in candidates:
        predicted = [label if s >= t else None for label, s in tops]
        m = score_single(truth, predicted, data.classes)
        if target_precision is not None:
            if m.answered and (m.answered_accuracy or 0) >= target_precision:
                return {"threshold": t, "coverage": 1 - m.abstain_rate, "precision": m.answered_accuracy}
            continue
        key = m.macro_f1
        if best is None or key > best[0] + 1e-12:
            best = (key, t, 1 - m.abstain_rate)
    if target_precision is not None:
        return {"threshold": None, "reason": f"no threshold reaches precision {target_precision} on the tuning part"}
    assert best is not None
    return {"threshold": best[1], "coverage": best[2], "macro_f1": best[0]}


def fit_thresholds(data: Labelled, answers: list[dict], target_precision: float | None) -> dict[str, float]:
    """Multi-label: per label, the threshold with the best F1 for it (or the lowest reaching the target
    precision)."""
    out = {}
    for c in data.classes:
        truth = [c in row for row in data.labels]
        scores = [dict(zip(a["labels"], a["scores"]))[c] for a in answers]
        best = None
        for t in sorted({round(s, 6) for s in scores}):
            tp = sum(1 for y, s in zip(truth, scores) if y and s >= t)
            fp = sum(1 for y, s in zip(truth, scores) if not y and s >= t)
            fn = sum(1 for y, s in zip(truth, scores) if y and s < t)
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / (tp + fn) if tp + fn else 0.0
            if target_precision is not None:
                if tp and p >= target_precision:
                    best = (t, 0)
                    break
                continue
            f1 = 2 * p * r / (p + r) if p + r else 0.0
            if best is None or f1 > best[1] + 1e-12:
                best = (t, f1)
        if best is not None:
            out[c] = best[0]
    return out


# -- the whole run --------------------------------------------------------------------------------------
@dataclass
class TuneResult:
    ranking: list[dict[str, Any]]
    best: dict[str, Any]
    baseline: dict[str, Any]
    threshold: dict[str, Any]
    thresholds: dict[str, float]
    tuning_rows: list[int]
    held_out_rows: list[int]
    model: str
    revision: str
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe_threshold(self) -> str:
        if self.thresholds:
            return "per label: " + ", ".join(f"{k} {v:.3f}" for k, v in self.thresholds.items())
        t = self.threshold
        if t.get("threshold") is None:
            return t.get("reason", "none")
        fit = f"precision {t['precision']:.3f}" if "precision" in t else f"macro-F1 {t['macro_f1']:.3f}"
        held = self.best.get("held_out_at_threshold")
        held_text = (
            f"; held out: answers {1 - held['abstain_rate']:.0%}, accuracy on those {held['answered_accuracy']:.3f}"
            if held and held.get("answered_accuracy") is not None
            else ""
        )
        return f"{t['threshold']:.3f} (tuning: answers {t['coverage']:.0%}, {fit}{held_text})"


def tune(
    remote: Remote,
    tuning: Labelled,
    held_out: Labelled,
    templates: list[str],
    phrasings: dict[str, list[str]],
    metric: str = "macro_f1",
    target_precision: float | None = None,
    say=print,
    examples: dict[str, list[str]] | None = None,
) -> tuple[TuneResult, Combination]:
    """``tuning`` is what is scored to choose (with drawn examples: the tuning part without them)."""
    t0 = time.perf_counter()
    combos = combinations(templates, phrasings)
    say(f"{len(combos)} combinations on {len(tuning)} tuning items; {len(held_out)} held out")
    scored = []
    for k, combo in enumerate(combos, start=1):
        s = evaluate(remote, tuning, combo, phrasings)
        scored.append(s)
        say(f"  [{k}/{len(combos)}] {combo.describe()}: {metric} {metric_of(s.metrics, metric):.3f}")
    scored.sort(key=lambda s: metric_of(s.metrics, metric), reverse=True)
    wording = scored[0]
    if examples:
        count = sum(map(len, examples.values()))
        say(f"examples: {count} for {len(examples)} labels; {len(RULES)} rules on {wording.combination.describe()}")
        tried = []
        for k, rule in enumerate(RULES, start=1):
            s = evaluate(remote, tuning, replace(wording.combination, rule=rule), phrasings, examples)
            tried.append(s)
            say(f"  [{k}/{len(RULES)}] {s.combination.describe()}: {metric} {metric_of(s.metrics, metric):.3f}")
        # one ranking: the wording alone stays the answer when no rule beats it on the tuning part
        scored = sorted(tried + scored, key=lambda s: metric_of(s.metrics, metric), reverse=True)
    best = scored[0]
    say(f"best on the tuning part: {best.combination.describe()}; scoring it on the held-out part")
    best_held = evaluate(remote, held_out, best.combination, phrasings, examples)
    baseline = evaluate(remote, held_out, Combination(None, "names"), phrasings)
    with_examples = best.combination.rule is not None
    zero_shot = evaluate(remote, held_out, wording.combination, phrasings) if with_examples else best_held
    if tuning.multi_label:
        threshold, thresholds = {}, fit_thresholds(tuning, best.answers, target_precision)
    else:
        threshold, thresholds = fit_threshold(tuning, best.answers, target_precision), {}
    best_held_out = {"accuracy": best_held.metrics.accuracy, "macro_f1": best_held.metrics.macro_f1}
    at_threshold = None
    if threshold.get("threshold") is not None:  # what the fitted threshold does to unseen items
        tops = [(a["labels"][0], a["scores"][0]) for a in best_held.answers]
        predicted = [label if score >= threshold["threshold"] else None for label, score in tops]
        m = score_single([row[0] for row in held_out.labels], predicted, held_out.classes)
        at_threshold = {"abstain_rate": m.abstain_rate, "answered_accuracy": m.answered_accuracy}
    model = best.answers[0]["model"] if best.answers else "?"
    revision = best.answers[0]["revision"] if best.answers else "?"
    result = TuneResult(
        ranking=[
            {
                "template": s.combination.template,
                "strategy": s.combination.strategy,
                "examples": s.combination.rule and {"rule": s.combination.rule[0], "weight": s.combination.rule[1]},
                metric: metric_of(s.metrics, metric),
                "accuracy": s.metrics.accuracy,
                "macro_f1": s.metrics.macro_f1,
            }
            for s in scored
        ],  # fmt: skip
        best={
            "template": best.combination.template,
            "strategy": best.combination.strategy,
            "examples": best.combination.rule
            and {
                "rule": best.combination.rule[0],
                "weight": best.combination.rule[1],
                "labels": len(examples or {}),
                "texts": sum(map(len, (examples or {}).values())),
                "most_per_label": max(map(len, (examples or {}).values()), default=0),
            },
            "tuning": {"accuracy": best.metrics.accuracy, "macro_f1": best.metrics.macro_f1},
            "held_out": best_held_out,
            "held_out_without_examples": {
                "accuracy": zero_shot.metrics.accuracy,
                "macro_f1": zero_shot.metrics.macro_f1,
            },
            "held_out_at_threshold": at_threshold,
        },
        baseline={"held_out": {"accuracy": baseline.metrics.accuracy, "macro_f1": baseline.metrics.macro_f1}},
        threshold=threshold,
        thresholds=thresholds,
        tuning_rows=tuning.rows,
        held_out_rows=held_out.rows,
        model=model,
        revision=revision,
        seconds=time.perf_counter() - t0,
    )
    return result, best.combination


def label_set(
    name: str,
    result: TuneResult,
    combo: Combination,
    data: Labelled,
    phrasings: dict[str, list[str]],
    meta: dict,
    examples: dict[str, list[str]] | None = None,
) -> LabelSet:
    """The tuned wording (and examples) as a label set the service loads."""
    return LabelSet.model_validate(
        {
            "name": name,
            "description": f"tuned by zsc tune on {data.source}"
            + "".join(f", {k}={v}" for k, v in (meta.get("where") or {}).items()),
            "labels": combo.labels(data.classes, phrasings, examples),
            "hypothesis_template": combo.template,
            "example_rule": combo.rule[0] if combo.rule else None,
            "example_weight": combo.rule[1] if combo.rule else None,
            "multi_label": data.multi_label,
            "threshold": result.threshold.get("threshold"),
            "thresholds": result.thresholds,
            "model": model_name(result.model),
            "revision": result.revision,
            "tuning": {
                **meta,
                "strategy": combo.strategy,
                "tuning_items": len(result.tuning_rows),
                "held_out_items": len(result.held_out_rows),
                "held_out": result.best["held_out"],
                "held_out_without_examples": result.best["held_out_without_examples"],
                "baseline_held_out": result.baseline["held_out"],
            },
        },
        context={"limits": False},  # the service's, checked when it loads the set
    )
