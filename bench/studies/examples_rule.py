"""Label examples against a plain prototype: the service's rules through HTTP, the prototype in process.

    .venv/bin/python -m bench.studies.examples_rule               # ~6 min on 2 cores -> results/examples-rule-<date>/
    .venv/bin/python -m bench.studies.examples_rule --seeds 2026  # the acceptance split alone

CIC (all 2,000 utterances, 118 intents): per seed, up to 7 examples per intent drawn from its rows (at most all
but one, so every intent keeps a row to be measured: ``bench.studies.label_calibration.example_split``, "upto"), the
rest measured; the same with 3, and THUCNews (2,000 headlines, 10 classes) with 7 and 3. Top-1 accuracy of:

- **plain prototype** (in process, the reference the issue names): each text's cosine to the normalised mean
  of a label's examples, the label's wording for labels without any; the service's own embeddings;
- **service default** (HTTP): the labels with their examples, no rule named: the model's blend (0.2), which
  gives each label's wording the share n0 / (n0 + k) where it agrees with the label's examples, none where it
  does not, after centring every wording on the other labels' examples (``core.task``);
- **service prototype** (HTTP): ``example_rule: "prototype"``;
- **default + job calibration** (HTTP): the measured texts as a job with ``calibration: "job"``: examples and
  calibration combined (the wording calibrated on the job's own texts, then blended).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import httpx
import numpy as np

from bench.calibration_sets import load_sets
from bench.studies.label_calibration import DEFAULT_CACHE, Embedder, example_split
from harness.launchers import bento_serve
from harness.net import free_port
from harness.process import running
from harness.progress import say
from harness.report import result_folder, table, write_results
from harness.store import ensure_default
from loadtest.workload import SHARED
from service.core.scoring import prompt_ensemble

ENV = {"ZSC_MAX_LABELS": "128", "ZSC_MAX_PAIRS_PER_REQUEST": "300000", "ZSC_MAX_BODY_MB": "64",
       "ZSC_BODY_BUFFER_MB": "256", "ZSC_JOB_CHUNK_ITEMS": "128"}  # fmt: skip
CASES = (("cic", 7), ("cic", 3), ("thucnews", 7), ("thucnews", 3))


def labels_with(classes: list[str], texts: list[str], ex: dict[int, list[int]]) -> list:
    return [{"name": c, "examples": [texts[i] for i in ex[j]]} if j in ex else c for j, c in enumerate(classes)]


def served(client: httpx.Client, texts: list[str], labels: list, **fields) -> list[str]:
    out = []
    for start in range(0, len(texts), 32):
        items = [{"text": t, "labels": labels, **fields} for t in texts[start : start + 32]]
        r = client.post("/classify_batch", json={"items": items})
        r.raise_for_status()
        out += [a["labels"][0] for a in r.json()["results"]]
    return out


def job(client: httpx.Client, texts: list[str], labels: list) -> list[str]:
    r = client.post("/jobs", json={"texts": texts, "labels": labels, "calibration": "job"})
    r.raise_for_status()
    job_id = r.json()["id"]
    while client.get(f"/jobs/{job_id}").json()["state"] != "done":
        time.sleep(0.3)
    return [a["labels"][0] for a in client.get(f"/jobs/{job_id}/results", params={"limit": 10000}).json()["results"]]


def plain_prototype(embedder: Embedder, data, ex: dict[int, list[int]], test: np.ndarray) -> np.ndarray:
    texts = embedder.texts(data.texts)
    cos = texts[test] @ embedder.labels(data.wordings["bare"]).T
    for c, rows in ex.items():
        cos[:, c] = texts[test] @ prompt_ensemble(texts[rows])
    return cos.argmax(1)


def run(client: httpx.Client, embedder: Embedder, data, k: int, seed: int) -> dict:
    ex, test = example_split(data.truth, k, "upto", random.Random(seed))
    texts = [data.texts[i] for i in test]
    truth = data.truth[test]
    labels = labels_with(data.classes, data.texts, ex)

    def acc(names: list[str]) -> float:
        return float(np.mean([data.classes.index(n) == t for n, t in zip(names, truth)]))

    row = {"set": data.name, "k": k, "seed": seed, "measured": len(test), "labels_with_examples": len(ex),
           "plain prototype": float(np.mean(plain_prototype(embedder, data, ex, test) == truth)),
           "service default": acc(served(client, texts, labels)),
           "service prototype": acc(served(client, texts, labels, example_rule="prototype")),
           "default + job calibration": acc(job(client, texts, labels))}  # fmt: skip
    say(
        f"  {data.name} k={k} seed {seed}: " + ", ".join(f"{n} {v:.3f}" for n, v in row.items() if isinstance(v, float))
    )
    return row


RULES = ("plain prototype", "service default", "service prototype", "default + job calibration")


def report(results: dict) -> str:
    lines = ["## Examples against a plain prototype (multilingual-e5-small; the prototype in process, the rest "
             "through the service)", "", "Top-1 accuracy on the texts not drawn as examples.", ""]  # fmt: skip
    rows = [[r["set"], str(r["k"]), str(r["seed"]), str(r["labels_with_examples"]), str(r["measured"]),
             *(f"{r[n]:.3f}" for n in RULES)] for r in results["runs"]]  # fmt: skip
    lines += table(["set", "k", "seed", "labels with examples", "measured", *RULES], rows)
    lines += ["", "Mean over seeds, and the worst seed against the plain prototype:", ""]
    summary = []
    for name, k in CASES:
        mine = [r for r in results["runs"] if r["set"] == name and r["k"] == k]
        if mine:
            base = np.array([r["plain prototype"] for r in mine])
            summary.append([name, str(k), str(len(mine)), *(
                f"{np.mean([r[n] for r in mine]):.3f} ({np.min(np.array([r[n] for r in mine]) - base):+.3f})"
                for n in RULES)])  # fmt: skip
    lines += table(["set", "k", "seeds", *RULES], summary)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="2026,2027,2028,2029,2030", help="comma-separated split seeds")
    parser.add_argument("--cases", default=",".join(f"{n}:{k}" for n, k in CASES))
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="in-process embeddings")
    parser.add_argument("--out", type=Path, help="result folder (default results/examples-rule-<date>)")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    cases = [(c.split(":")[0], int(c.split(":")[1])) for c in args.cases.split(",")]
    out = result_folder(args.out, "examples-rule")
    ensure_default(dict(os.environ))
    sets = {s.name: s for s in load_sets(SHARED, thucnews_per_class=200)}
    embedder = Embedder("multilingual-e5-small", args.cache)
    results: dict = {"runs": [], "seeds": seeds}
    with running(bento_serve("examples", free_port(), out / "logs" / "examples", ENV), ready_timeout=600) as server:
        with httpx.Client(base_url=server.url, timeout=600) as client:
            for name, k in cases:
                for seed in seeds:
                    results["runs"].append(run(client, embedder, sets[name], k, seed))
    write_results(out, "examples-rule", results, report, show=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
