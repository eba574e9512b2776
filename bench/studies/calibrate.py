"""Accuracy and score calibration of an embedding model on labelled data, in process (no server).

    .venv/bin/python -m bench.studies.calibrate --model multilingual-e5-small          # fit, then report
    .venv/bin/python -m bench.studies.calibrate --model all-minilm-l6-v2 --no-fit

For each labelled set it embeds every text and every class name once (with the model's stored prefixes,
or the ones given) and computes the cosine of each text with each class, then:

- accuracy: top-1 over the classes (softmax is monotone, so the scale does not change it), for the
  hypothesis templates given per set;
- the score scale: the ``s`` that minimises the mean negative log-likelihood of the true class under
  ``softmax(s * cos)`` (temperature scaling) on the fitting half of the sets;
- the multi-label bias: the cosine ``b`` where ``sigmoid(s * (cos - b))`` crosses 0.5 that best separates
  true from false (text, class) pairs on the fitting half, by balanced accuracy (the mean of the true-
  and false-pair rates: a set with 118 classes has 117 false pairs per true one).

The halves are disjoint (stratified by class, seeded); what is reported is measured on the other half.
Data: THUCNews headlines and CIC customer-service utterances from ``../shared/datasets`` (read, not
copied; THUCNews is sorted by class, so it is sampled stratified) and the project's English rows in
``loadtest/data/workload.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.decision_sets import stratified
from harness.progress import say
from harness.report import table
from harness.store import stored_model, use_home
from loadtest.workload import SHARED, WORKLOAD

ZH_NEWS_TEMPLATE = "这是一条关于{}的新闻"


@dataclass
class Labelled:
    name: str
    texts: list[str]
    labels: list[int]  # index into classes
    classes: list[str]
    templates: tuple[str, ...]  # the first is the one fitted and reported as the model's default


def labelled(name: str, rows: list[tuple[str, str]], templates: tuple[str, ...]) -> Labelled:
    classes = sorted({label for _, label in rows})
    return Labelled(name, [t for t, _ in rows], [classes.index(c) for _, c in rows], classes, templates)


def load_sets(per_class: int, seed: int, datasets: Path) -> list[Labelled]:
    out = []
    thuc = datasets / "thucnews_test.tsv"
    if thuc.is_file():
        names = (datasets / "thucnews_classes.txt").read_text(encoding="utf-8").split()
        rows = [line.rsplit("\t", 1) for line in thuc.read_text(encoding="utf-8").splitlines() if line]
        rows = [(t, names[int(i)]) for t, i in rows]
        out.append(labelled("THUCNews (zh, 10 classes)", stratified(rows, per_class, seed), ("{}", ZH_NEWS_TEMPLATE)))
    cic = datasets / "cic_test_public.jsonl"
    if cic.is_file():
        rows = [json.loads(line) for line in cic.read_text(encoding="utf-8").splitlines() if line]
        rows = [(r["sentence"], r["label_des"]) for r in rows]
        out.append(labelled("CIC (zh, 118 intents)", stratified(rows, 10, seed), ("{}",)))
    workload = [json.loads(line) for line in WORKLOAD.read_text(encoding="utf-8").splitlines() if line]
    for domain in ("news", "support"):
        rows = [(r["text"], r["label"]) for r in workload if r["lang"] == "en" and r["domain"] == domain]
        template = "This is a news article about {}." if domain == "news" else "The customer writes about {}."
        out.append(labelled(f"workload en {domain} ({len({c for _, c in rows})} classes)", rows, ("{}", template)))
    return out


def cosines(engine, spec, data: Labelled, template: str, text_prefix: str, label_prefix: str) -> np.ndarray:
    texts = [(text_prefix + t, None) for t in data.texts]
    labels = [(label_prefix + template.format(c), None) for c in data.classes]
    rows, _ = engine.encode(texts + labels)
    return rows[: len(texts)] @ rows[len(texts) :].T


def fit_scale(cos: np.ndarray, truth: np.ndarray) -> float:
    """Temperature scaling: argmin over s of the mean NLL of softmax(s * cos) at the true class."""

    def nll(s: float) -> float:
        z = s * cos
        z = z - z.max(axis=1, keepdims=True)
        return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(len(truth)), truth]))

    lo, hi = np.log(1.0), np.log(1000.0)  # golden-section search over log s
    g = (np.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if nll(np.exp(a)) < nll(np.exp(b)):
            hi = b
        else:
            lo = a
    return float(np.exp((lo + hi) / 2))


def fit_bias(cos: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """(b, balanced accuracy): the cosine threshold separating true from false pairs best."""
    positive = np.zeros_like(cos, dtype=bool)
    positive[np.arange(len(truth)), truth] = True
    pos, neg = np.sort(cos[positive]), np.sort(cos[~positive])
    candidates = np.unique(np.round(cos, 4))
    tpr = 1 - np.searchsorted(pos, candidates, side="left") / len(pos)
    tnr = np.searchsorted(neg, candidates, side="left") / len(neg)
    best = int(np.argmax((tpr + tnr) / 2))
    return float(candidates[best]), float((tpr[best] + tnr[best]) / 2)


def balanced_accuracy(cos: np.ndarray, truth: np.ndarray, bias: float) -> float:
    positive = np.zeros_like(cos, dtype=bool)
    positive[np.arange(len(truth)), truth] = True
    above = cos >= bias
    return float((above[positive].mean() + (~above[~positive]).mean()) / 2)


def nll_at(cos: np.ndarray, truth: np.ndarray, s: float) -> float:
    z = s * cos
    z = z - z.max(axis=1, keepdims=True)
    return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(len(truth)), truth]))


def halves(n: int, labels: list[int], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint fitting / reporting halves, stratified by class."""
    rng = random.Random(seed + 1)
    fit, rest = [], []
    by_class: dict[int, list[int]] = defaultdict(list)
    for i, c in enumerate(labels):
        by_class[c].append(i)
    for idx in by_class.values():
        rng.shuffle(idx)
        fit += idx[: len(idx) // 2]
        rest += idx[len(idx) // 2 :]
    return np.array(sorted(fit)), np.array(sorted(rest))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="multilingual-e5-small", help="a model in the store (embedding)")
    parser.add_argument("--home", type=Path, help="BentoML home (default $BENTOML_HOME or ~/bentoml)")
    parser.add_argument("--per-class", type=int, default=100, help="THUCNews headlines per class")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--datasets", type=Path, default=SHARED, help="folder with THUCNews and CIC")
    parser.add_argument("--text-prefix", help="default: the model's stored prefix")
    parser.add_argument("--label-prefix", help="default: the model's stored prefix")
    parser.add_argument("--no-fit", action="store_true", help="report with the stored scale and bias")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    if args.home:
        use_home(args.home)

    from service.backends import load_backend
    from service.core.model_spec import ModelSpec
    from service.engine.engine import Engine
    from service.engine.tokenization import Tokenizer

    stored = stored_model(args.model)
    spec = ModelSpec.from_metadata(stored.metadata)
    if spec.kind != "embedding":
        raise SystemExit(f"{args.model} is an NLI model: this calibrates embedding models")
    text_prefix = spec.text_prefix if args.text_prefix is None else args.text_prefix
    label_prefix = spec.label_prefix if args.label_prefix is None else args.label_prefix
    engine = Engine(
        spec, Tokenizer.load(stored.path, spec.max_length), load_backend(stored.path, spec, "auto", "cpu", 0), 8192, 256
    )
    sets = load_sets(args.per_class, args.seed, args.datasets)
    say(f"{stored.tag}: prefixes {text_prefix!r} / {label_prefix!r}; sets: {', '.join(d.name for d in sets)}")

    results, fit_cos, report_cos = [], [], []
    for data in sets:
        truth = np.array(data.labels)
        fit_idx, report_idx = halves(len(truth), data.labels, args.seed)
        for k, template in enumerate(data.templates):
            cos = cosines(engine, spec, data, template, text_prefix, label_prefix)
            acc = float(np.mean(cos.argmax(axis=1) == truth))
            true_cos = cos[np.arange(len(truth)), truth]
            false_cos = (cos.sum(1) - true_cos) / (cos.shape[1] - 1)
            results.append({"set": data.name, "template": template, "texts": len(truth), "classes": len(data.classes),
                            "accuracy": acc, "mean_cos_true": float(true_cos.mean()),
                            "mean_cos_false": float(false_cos.mean())})  # fmt: skip
            say(f"  {data.name}, template {template!r}: accuracy {acc:.3f}")
            if k == 0:  # the bare class name: what the scale and bias are fitted on
                fit_cos.append((cos[fit_idx], truth[fit_idx]))
                report_cos.append((cos[report_idx], truth[report_idx]))
    scale, bias = spec.logit_scale, spec.multi_label_bias
    fitted = {}
    if not args.no_fit:
        # one scale for every set: the mean NLL over sets, each set weighted equally
        scales = [fit_scale(c, t) for c, t in fit_cos]
        scale = float(np.exp(np.mean(np.log(scales))))
        biases = [fit_bias(c, t)[0] for c, t in fit_cos]
        bias = float(np.mean(biases))
        fitted = {"scale_per_set": scales, "bias_per_set": biases}
        say(f"fitted: scale {scale:.1f} (per set {', '.join(f'{s:.1f}' for s in scales)}), bias {bias:.3f} "
            f"(per set {', '.join(f'{b:.3f}' for b in biases)})")  # fmt: skip
    held_out = [
        {"set": d.name, "nll": nll_at(c, t, scale), "balanced_accuracy": balanced_accuracy(c, t, bias)}
        for d, (c, t) in zip(sets, report_cos)
    ]
    lines = [f"Model `{stored.tag}`, prefixes {text_prefix!r} / {label_prefix!r}.", ""]
    lines += table(
        ["set", "template", "texts", "classes", "top-1 accuracy", "mean cos true / false"],
        [[r["set"], f"`{r['template']}`", r["texts"], r["classes"], f"{r['accuracy']:.3f}",
          f"{r['mean_cos_true']:.3f} / {r['mean_cos_false']:.3f}"] for r in results],
    )  # fmt: skip
    lines += ["", f"Scale {scale:.1f}, multi-label bias {bias:.3f}; on the held-out halves:", ""]
    lines += table(
        ["set", "NLL of the true class", "multi-label balanced accuracy at the bias"],
        [[h["set"], f"{h['nll']:.3f}", f"{h['balanced_accuracy']:.3f}"] for h in held_out],
    )
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps({"model": stored.tag, "text_prefix": text_prefix, "label_prefix": label_prefix,
                                         "scale": scale, "bias": bias, "fitted": fitted, "accuracy": results,
                                         "held_out": held_out}, indent=2, ensure_ascii=False))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
