"""OpenAI's Decisions API against ``/classify``, through a served model: accuracy and requests/s.

    .venv/bin/python -m bench.decisions_eval            # ~10 min on 2 cores -> results/decisions-eval-<date>/
    .venv/bin/python -m bench.decisions_eval --smoke    # 30 texts a set, 5 s load steps (-smoke folder)

One replica of the default model (multilingual-e5-small; ``ZSC_MAX_LABELS=128`` so that ``/classify`` takes
CIC's 118 intents). Everything goes over HTTP:

- **accuracy**: each set's texts (THUCNews: 100 headlines per class, 10 classes; CIC: all 2,000 utterances,
  118 intents; the project's English news and support rows) asked as one **choice** question whose choices
  are the classes, with each of the set's two realistic instructions (``bench.decision_sets``), through
  the official ``openai`` SDK (``client.decisions.create``, one request per text, 8 threads); the same texts
  through ``/classify_batch`` with the same labels. Top-1 accuracy side by side.
- **requests/s**: ``/v1/decisions`` with one choice question over THUCNews' 10 classes against ``/classify``
  with the same labels, 32 closed-loop clients, every text distinct (no cache hit: the load is seeded
  afresh), the two alternated (three rounds each).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import openai

from bench.decision_sets import LabelledSet, load_sets
from harness.launchers import bento_serve
from harness.net import free_port
from harness.process import running
from harness.progress import say
from harness.report import result_folder, table, write_results
from harness.store import ensure_default
from loadtest.loadgen import add_load_options, run_load

MODEL = "multilingual-e5-small"
ENV = {
    "ZSC_MAX_LABELS": "128",  # CIC: 118 intents in one /classify request
    # a fixed in-flight bound, as bench.ab measures: the learned limit holds latency to its target by refusing
    # closed-loop clients (429s), and the two routes would be compared on how fast they are refused
    "ZSC_TARGET_LATENCY_MS": "-1",
}
BATCH = 32  # /classify_batch items per call


def question(data: LabelledSet, instruction: str) -> dict:
    return {"type": "choice", "instructions": instruction, "choices": [{"value": c} for c in data.classes]}


def through_sdk(url: str, data: LabelledSet, instruction: str) -> np.ndarray:
    """Each text's chosen class index, asked through the openai SDK."""
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=2, timeout=120)
    index = {c: i for i, c in enumerate(data.classes)}
    q = question(data, instruction)
    done = itertools.count(1)

    def ask(text: str) -> int:
        decision = client.decisions.create(model=MODEL, input=text, questions=[q])
        if (n := next(done)) % 250 == 0:
            say(f"  {data.name}: {n} of {len(data.texts)} asked")
        return index[decision.answers[0].choice]

    with ThreadPoolExecutor(8) as pool:
        return np.array(list(pool.map(ask, data.texts)))


def through_classify(url: str, data: LabelledSet) -> np.ndarray:
    """Each text's top label index, through /classify_batch with the bare class names."""
    index = {c: i for i, c in enumerate(data.classes)}
    out: list[int] = []
    with httpx.Client(base_url=url, timeout=300) as client:
        for start in range(0, len(data.texts), BATCH):
            items = [{"text": t, "labels": data.classes} for t in data.texts[start : start + BATCH]]
            r = client.post("/classify_batch", json={"items": items})
            r.raise_for_status()
            out += [index[a["labels"][0]] for a in r.json()["results"]]
    return np.array(out)


def accuracy(url: str, sets: list[LabelledSet]) -> list[dict]:
    rows = []
    for data in sets:
        classify = float(np.mean(through_classify(url, data) == data.labels))
        for instruction in data.instructions:
            sdk = float(np.mean(through_sdk(url, data, instruction) == data.labels))
            rows.append({"set": data.name, "texts": len(data.texts), "classes": len(data.classes),
                         "instruction": instruction, "classify": classify, "decisions": sdk})  # fmt: skip
            say(f"  {data.name} ({instruction}): /classify {classify:.3f}, /v1/decisions {sdk:.3f}")
    return rows


def throughput(url: str, data: LabelledSet, clients: int, step_s: float, rounds: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    q = question(data, data.instructions[0])
    rows = []
    for round_ in range(1, rounds + 1):
        for route in ("classify", "decisions"):
            texts = [f"{rng.choice(data.texts)} ({seed}-{round_}-{route}-{i})" for i in range(20_000)]
            if route == "classify":
                target, bodies = f"{url}/classify", [{"text": t, "labels": data.classes} for t in texts]
            else:
                target = f"{url}/v1/decisions"
                bodies = [{"model": MODEL, "input": t, "questions": [q]} for t in texts]
            rows.append(measured(route, round_, target, bodies, clients, step_s))
    return rows


def measured(route: str, round_: int, target: str, bodies: list[dict], clients: int, step_s: float) -> dict:
    """One load step's row: requests answered 200 per second, latency, failures."""
    r = run_load(target, bodies, clients, step_s)
    answered = r.answered_per_s
    say(f"  {route}: {answered:.1f} answered/s, p95 {r.p95_ms:.0f} ms, statuses {r.statuses}")
    return {"route": route, "round": round_, "requests_per_s": answered, "p50_ms": r.p50_ms,
            "p95_ms": r.p95_ms, "failures": r.failures, "statuses": r.statuses}  # fmt: skip


def report(results: dict) -> str:
    lines = [f"## Top-1 accuracy: one choice question through the openai SDK against /classify ({MODEL})", ""]
    lines += table(
        ["set", "texts", "classes", "instruction", "/classify (bare labels)", "/v1/decisions (SDK)", "difference"],
        [[r["set"], r["texts"], r["classes"], r["instruction"], f"{r['classify']:.3f}", f"{r['decisions']:.3f}",
          f"{100 * (r['decisions'] - r['classify']):+.1f} points"] for r in results["accuracy"]],
    )  # fmt: skip
    t = results["throughput"]
    rps = {k: float(np.mean([r["requests_per_s"] for r in t if r["route"] == k])) for k in ("classify", "decisions")}
    lines += ["", f"## Requests/s: {results['clients']} clients, {results['step_s']:g} s per round, alternated", ""]
    lines += table(
        ["route", "answered/s per round", "mean", "p95 ms (worst round)", "failures"],
        [[k, ", ".join(f"{r['requests_per_s']:.1f}" for r in t if r["route"] == k), f"{rps[k]:.1f}",
          f"{max(r['p95_ms'] for r in t if r['route'] == k):.0f}",
          str(sum(r["failures"] for r in t if r["route"] == k))] for k in rps],
    )  # fmt: skip
    lines += ["", f"Ratio /v1/decisions / /classify: **{rps['decisions'] / rps['classify']:.3f}**"]
    return "\n".join(lines) + "\n"


def load_options(parser: argparse.ArgumentParser, rounds: int) -> None:
    """The load's options, shared with ``bench.systemone_eval``."""
    add_load_options(parser)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--no-accuracy", action="store_true")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="30 texts a set, 5 s load steps, one round")
    load_options(parser, rounds=3)
    parser.add_argument("--throughput-only", action="store_true", help="measure requests/s again into an earlier run")
    parser.add_argument("--out", type=Path, help="result folder (default results/decisions-eval-<date>)")
    args = parser.parse_args(argv)
    out = result_folder(args.out, "decisions-eval", args.smoke)
    started = time.monotonic()
    ensure_default(dict(os.environ))
    sets = load_sets(per_class=100, cic_per_intent=None, seed=7)  # the study's THUCNews sample and seed
    if args.smoke:
        args.step_s, args.rounds = 5, 1
        sets = [LabelledSet(**{**d.__dict__, "texts": d.texts[:30], "labels": d.labels[:30]}) for d in sets]
    results: dict = {"clients": args.clients, "step_s": args.step_s, "seed": args.seed}
    if args.throughput_only:
        results["accuracy"] = json.loads((out / "decisions.json").read_text())["accuracy"]
    with running(bento_serve("decisions", free_port(), out / "logs", ENV), ready_timeout=600) as server:
        if not args.throughput_only:
            results["accuracy"] = [] if args.no_accuracy else accuracy(server.url, sets)
        thucnews = next(d for d in sets if d.name == "thucnews")
        results["throughput"] = throughput(server.url, thucnews, args.clients, args.step_s, args.rounds, args.seed)
    results["minutes"] = round((time.monotonic() - started) / 60, 1)
    path = write_results(out, "decisions", results, report, lambda results, path: None)
    (out / "command.txt").write_text("python -m bench.decisions_eval " + " ".join(argv or []) + "\n")
    say(f"wrote {path}")
    print(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
