"""The scoring maths written out independently of service/ (plain loops, no shared helpers), for tests
to compare the service's answers with."""

from __future__ import annotations

import math


def softmax(xs):
    m = max(xs)
    e = [math.exp(x - m) for x in xs]
    return [v / sum(e) for v in e]


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def expected_nli(rows, windows, sizes, pairwise, how, ent=2, con=0):
    """Per window and label: the phrasing with the largest entailment logit; its entailment logit, or
    entailment - contradiction when pairwise; max or mean over windows; softmax or sigmoid."""
    per_label = [[] for _ in sizes]
    i = 0
    for _ in range(windows):
        for label, n in enumerate(sizes):
            phrasings = [rows[i + k] for k in range(n)]
            i += n
            best = max(phrasings, key=lambda r: r[ent])
            per_label[label].append(best[ent] - best[con] if pairwise else best[ent])
    agg = [max(v) if how == "max" else sum(v) / len(v) for v in per_label]
    return [sigmoid(x) for x in agg] if pairwise else softmax(agg)


def expected_embedding(rows, windows, sizes, scale, bias, pairwise, how):
    texts, labels = rows[:windows], rows[windows:]
    vectors, i = [], 0
    for n in sizes:
        group = labels[i : i + n]
        i += n
        if n == 1:
            vectors.append(group[0])
        else:
            mean = [sum(col) / n for col in zip(*group)]
            norm = math.sqrt(sum(x * x for x in mean))
            vectors.append([x / norm for x in mean])
    cos = [[sum(a * b for a, b in zip(t, v)) for t in texts] for v in vectors]
    agg = [max(c) if how == "max" else sum(c) / len(c) for c in cos]
    return [sigmoid(scale * (c - bias)) for c in agg] if pairwise else softmax([scale * c for c in agg])
