"""The System One API against OpenAI's Decisions API and ``/classify``, through a served model: accuracy and
requests/s.

    .venv/bin/python -m bench.systemone_eval            # ~3 min on 2 cores -> results/systemone-eval-<date>/
    .venv/bin/python -m bench.systemone_eval --smoke    # 100 headlines, 5 s load steps, one round

One replica of the default model (multilingual-e5-small), the settings of ``bench.decisions_eval`` (a fixed
in-flight bound). Everything goes over HTTP:

- **accuracy**: THUCNews (100 headlines per class, 10 classes; ``bench.decision_sets``' sample) asked as one System One
  **choice** whose criteria are the classes, through ``typesafe-sdk`` (8 threads), bare and with each of the
  set's two instructions; the same texts through ``/classify_batch`` with the same labels. A **noul** on
  CIC's upset and pleased buyers (``loadtest.workload.cic_moods``: real customer messages): its ROC AUC.
- **requests/s**: ``/v1/systemone`` and ``/v1/decisions`` asking the same question (one choice over
  THUCNews' 10 classes, the first instruction), 32 closed-loop clients, every text distinct, the two
  alternated (``--rounds`` each).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import typesafe_sdk as ts

from bench.decision_sets import LabelledSet, load_sets
from bench.decisions_eval import ENV, MODEL, load_options, measured, question, through_classify
from harness.launchers import bento_serve
from harness.net import free_port
from harness.process import running
from harness.progress import say
from harness.report import result_folder, table, write_results
from harness.store import ensure_default
from loadtest.workload import cic_moods
from service.core.decisions import roc_auc

NOUL = "买家很满意。"


def ask_all(url: str, texts: list[str], questions: dict) -> list[ts.SystemOneResponse]:
    with ts.TypeSafeClient(base_url=url, api_key="unused", timeout=120) as client:
        with ThreadPoolExecutor(8) as pool:
            return list(pool.map(lambda t: client.system_one(state=t, questions=questions, model=MODEL), texts))


def accuracy(url: str, data: LabelledSet) -> list[dict]:
    classify = float(np.mean(through_classify(url, data) == data.labels))
    index = {c: i for i, c in enumerate(data.classes)}
    rows = []
    for instruction in (None, *data.instructions):
        q = {"topic": ts.Choice(instructions=instruction, criteria=dict.fromkeys(data.classes))}
        picked = np.array([index[a.choices["topic"].choice] for a in ask_all(url, data.texts, q)])
        got = float(np.mean(picked == data.labels))
        rows.append({"instruction": instruction or "(none)", "classify": classify, "systemone": got})
        say(f"  thucnews ({instruction}): /classify {classify:.3f}, /v1/systemone {got:.3f}")
    return rows


def noul_auc(url: str) -> dict:
    texts, truth = cic_moods()
    answers = ask_all(url, texts, {"pleased": ts.Noul(instructions=NOUL)})
    auc = roc_auc([a.nouls["pleased"].noul for a in answers], truth)
    say(f"  CIC moods, noul {NOUL}: AUC {auc:.3f} ({len(texts)} texts)")
    return {"texts": len(texts), "instructions": NOUL, "auc": auc}


def throughput(url: str, data: LabelledSet, clients: int, step_s: float, rounds: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    instruction = data.instructions[0]
    decision_q = question(data, instruction)
    system_one_q = {"type": "choice", "instructions": instruction, "criteria": dict.fromkeys(data.classes)}
    rows = []
    for round_ in range(1, rounds + 1):
        for route in ("systemone", "decisions") if round_ % 2 else ("decisions", "systemone"):
            texts = [f"{rng.choice(data.texts)} ({seed}-{round_}-{route}-{i})" for i in range(20_000)]
            if route == "decisions":
                bodies = [{"model": MODEL, "input": t, "questions": [decision_q]} for t in texts]
            else:
                bodies = [{"model": MODEL, "state": t, "questions": {"topic": system_one_q}} for t in texts]
            rows.append(measured(route, round_, f"{url}/v1/{route}", bodies, clients, step_s))
    return rows


def report(results: dict) -> str:
    lines = ["# System One against the Decisions API and /classify", ""]
    if results.get("accuracy"):
        rows = [[r["instruction"], f"{r['classify']:.3f}", f"{r['systemone']:.3f}",
                 f"{100 * (r['systemone'] - r['classify']):+.1f}"] for r in results["accuracy"]]  # fmt: skip
        lines += table(["THUCNews instruction", "/classify", "/v1/systemone", "points"], rows) + [""]
    if results.get("noul"):
        lines += [f"noul AUC on CIC's upset and pleased buyers: {results['noul']['auc']:.3f}", ""]
    mean = {
        route: float(np.mean([r["requests_per_s"] for r in results["throughput"] if r["route"] == route]))
        for route in ("systemone", "decisions")
    }
    rows = [[r["route"], r["round"], f"{r['requests_per_s']:.1f}", f"{r['p95_ms']:.0f}", r["failures"]]
            for r in results["throughput"]]  # fmt: skip
    lines += table(["route", "round", "answered/s", "p95 ms", "failures"], rows)
    lines += ["", f"mean: /v1/systemone {mean['systemone']:.1f}, /v1/decisions {mean['decisions']:.1f}, "
              f"ratio {mean['systemone'] / mean['decisions']:.3f}"]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="100 headlines, 5 s load steps, one round")
    load_options(parser, rounds=2)
    parser.add_argument("--out", type=Path, help="result folder (default results/systemone-eval-<date>)")
    args = parser.parse_args(argv)
    out = result_folder(args.out, "systemone-eval", args.smoke)
    ensure_default(dict(os.environ))
    thucnews = next(d for d in load_sets(per_class=100, cic_per_intent=None, seed=7) if d.name == "thucnews")
    if args.smoke:
        args.step_s, args.rounds = 5, 1
        thucnews = LabelledSet(**{**thucnews.__dict__, "texts": thucnews.texts[::10], "labels": thucnews.labels[::10]})
    results: dict = {"clients": args.clients, "step_s": args.step_s, "seed": args.seed, "cpu": _cpu()}
    with running(bento_serve("systemone", free_port(), out / "logs", ENV), ready_timeout=600) as server:
        if not args.no_accuracy:
            results["accuracy"], results["noul"] = accuracy(server.url, thucnews), noul_auc(server.url)
        results["throughput"] = throughput(server.url, thucnews, args.clients, args.step_s, args.rounds, args.seed)
    path = write_results(out, "systemone", results, report, lambda results, path: None)
    given = sys.argv[1:] if argv is None else argv
    (out / "command.txt").write_text("python -m bench.systemone_eval " + " ".join(given) + "\n")
    say(f"wrote {path}")
    print(report(results))
    return 0


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return f"{line.split(':', 1)[1].strip()} x{os.cpu_count()}"
    return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
