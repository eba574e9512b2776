"""How a traffic record's decay follows drift: prequential streams per half-life, with the service's rule (a record
forgets nothing until it has seen a half-life of texts, ``core.calibration.age``) beside decay from the first text.

    .venv/bin/python -m bench.studies.calibration_drift          # ~3 min after the embeddings are cached

The streams are ``bench.studies.label_calibration``'s, on THUCNews' pool with the default model: **the class mix
moves** (balanced, one class 10x as frequent, another, balanced again; 1,500 texts a phase) and **the bias moves**
(the same balanced traffic, the evidence switching from the bare names' to the template's after 3,000 texts, as
another kind of text would move every label's background). Every text is answered with the offsets of everything
before its chunk of 16, then observed; accuracy per phase and its mean over the phases, per half-life and rule.
"""

from __future__ import annotations

import argparse
import contextlib
import math
from unittest import mock

import numpy as np

from bench.calibration_sets import load_sets
from bench.studies import label_calibration as study
from bench.studies.calibration_estimators import DEFAULT_CACHE, SHARED
from harness.report import table
from service.core import calibration as cal

HALF_LIVES = (500.0, 1000.0, 2000.0, 4000.0, 8000.0, math.inf)
SERVICE = "service: nothing fades for a half-life"
FROM_FIRST = "decay from the first text"


def decay_from_the_first_text() -> contextlib.AbstractContextManager:
    """The rule before 2026-12-04: a record's age grows from its first text (every decay reads ``cal.age``)."""
    return mock.patch.object(cal, "age", lambda texts, half_life: np.asarray(texts, dtype=np.float64) / half_life)


def runs(pooled: dict) -> list[tuple[str, str, dict]]:
    out = []
    for rule, context in ((SERVICE, contextlib.nullcontext), (FROM_FIRST, decay_from_the_first_text)):
        with context():
            out.append(("the class mix moves", rule, study.drift_mix(pooled["bare"], list(HALF_LIVES), 1500)))
            bias = study.drift_bias(pooled["bare"], pooled["template"], list(HALF_LIVES), 3000)
            out.append(("the bias moves", rule, bias))
    return out


def report(results: list[tuple[str, str, dict]]) -> str:
    lines = []
    for title in dict.fromkeys(t for t, _, _ in results):
        mine = [(rule, r) for t, rule, r in results if t == title]
        phases, without = mine[0][1]["phases"], mine[0][1]["without"]
        best = max(float(np.mean(run["accuracy"])) for _, r in mine for run in r["runs"])
        rows = [["without", "", *[f"{v:.3f}" for v in without], f"{np.mean(without):.4f}", ""]]
        for rule, r in mine:
            for run in r["runs"]:
                mean = float(np.mean(run["accuracy"]))
                life = f"{run['half_life']:g}" if run["half_life"] else "none"
                rows.append([rule, life, *[f"{v:.3f}" for v in run["accuracy"]], f"{mean:.4f}", f"{mean - best:+.4f}"])
        lines += [f"## {title}", "", *table(["rule", "half-life", *phases, "mean", "against the best"], rows), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="the label calibration study's embeddings")
    args = parser.parse_args(argv)
    sets = [s for s in load_sets(SHARED) if s.name == "thucnews"]
    cases, _ = study.build_cases(["multilingual-e5-small"], sets, args.cache)
    pooled = {c.wording: c for c in cases if c.pool is not None}
    print(report(runs(pooled)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
