"""The runtime ``auto`` chose against ONNX Runtime fp32, through HTTP: two replicas of the same model, one with
the default settings and one pinned to ``ZSC_RUNTIME=onnx ZSC_PRECISION=fp32``, asked the same texts with the
same labels; per data set the top-1 agreement of their answers, the mean and largest absolute score
difference, and each one's accuracy.

    .venv/bin/python -m bench.runtime_agreement                      # English sets, THUCNews, CIC (300 each)
    .venv/bin/python -m bench.runtime_agreement --limit 1000 --cpus 0 --env ZSC_PRECISION=bf16

The issue's bar: agreement >= 0.99, mean absolute score difference <= 0.01, accuracy within 0.5 points.
Writes ``agreement.json`` and ``agreement.md`` into ``--out`` and prints the table, with the CPU and its flags.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from bench.accuracy import write_cic_label_names
from harness import ROOT
from harness.cpus import parse_cpus
from harness.launchers import bento_serve
from harness.machine import cpu_flags, machine_info
from harness.net import free_port
from harness.process import running
from harness.progress import say
from harness.report import table
from harness.store import ensure_default
from loadtest.workload import SHARED, WORKLOAD
from service.quality.evaluation import Remote, score_answers
from service.quality.labelled import Labelled, read, stratified_sample

REFERENCE = {"ZSC_RUNTIME": "onnx", "ZSC_PRECISION": "fp32"}
COMMON = {"ZSC_LABEL_SETS": "", "ZSC_MAX_LABELS": "128", "ZSC_CACHE_LOCAL_ENTRIES": "0"}  # CIC: 118 intents


def data_sets(limit: int, seed: int, names: Path) -> dict[str, Labelled]:
    write_cic_label_names(names)
    thucnews_names = (SHARED / "thucnews_classes.txt").read_text(encoding="utf-8").split()
    sets = {
        "en-news": read(WORKLOAD, where={"lang": "en", "domain": "news"}),
        "en-support": read(WORKLOAD, where={"lang": "en", "domain": "support"}),
        "thucnews": read(SHARED / "thucnews_test.tsv", "0", "1", thucnews_names, header=False),
        "cic": read(SHARED / "cic_test_public.jsonl", "sentence", "label_des", names.read_text().split("\n")[:-1]),
    }
    return {k: stratified_sample(v, limit, seed) if len(v) > limit else v for k, v in sets.items()}


def compare(a: list[dict], b: list[dict]) -> dict:
    """Top-1 agreement and score differences of two answer lists to the same bodies (labels aligned by name)."""
    same, diffs = 0, []
    for x, y in zip(a, b):
        same += x["labels"][0] == y["labels"][0]
        theirs = dict(zip(y["labels"], y["scores"]))
        diffs += [abs(s - theirs[label]) for label, s in zip(x["labels"], x["scores"])]
    return {"top1_agreement": same / len(a), "mean_abs_diff": sum(diffs) / len(diffs), "max_abs_diff": max(diffs)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--limit", type=int, default=300, help="items per data set (stratified sample)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--cpus", help="CPUs for the servers (default: all)")
    p.add_argument("--env", action="append", default=[], metavar="ZSC_X=V", help="a setting of the default side")
    p.add_argument("--out", type=Path, default=ROOT / "results" / f"runtime-agreement-{time.strftime('%Y%m%d-%H%M%S')}")
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    ensure_default(os.environ)
    sets = data_sets(a.limit, a.seed, a.out / "cic-label-names.txt")
    cpus = parse_cpus(a.cpus) if a.cpus else None
    sides = {"default": {**COMMON, **dict(kv.split("=", 1) for kv in a.env)}, "onnx-fp32": {**COMMON, **REFERENCE}}
    answers: dict[str, dict[str, list[dict]]] = {}
    chosen = {}
    for side, env in sides.items():
        member = bento_serve(side, free_port(), a.out / "servers" / side, env, cpus=cpus)
        with running(member, 600) as server:
            import httpx

            [model] = httpx.get(f"{server.url}/models", timeout=30).json()["models"]
            chosen[side] = f"{model['runtime']} {model['precision']} ({model['runtime_choice']['how']})"
            say(f"{side}: {chosen[side]}")
            remote = Remote(server.url, progress=False)
            answers[side] = {
                name: remote.classify([{"text": t, "labels": data.classes} for t in data.texts], name)
                for name, data in sets.items()
            }
    rows, results = [], {}
    for name, data in sets.items():
        r = compare(answers["default"][name], answers["onnx-fp32"][name])
        acc = {side: score_answers(data, answers[side][name]).accuracy for side in sides}
        r |= {"items": len(data), "accuracy": acc, "accuracy_change_points": 100 * (acc["default"] - acc["onnx-fp32"])}
        results[name] = r
        rows.append([name, len(data), f"{r['top1_agreement']:.4f}", f"{r['mean_abs_diff']:.5f}",
                     f"{r['max_abs_diff']:.4f}", f"{100 * acc['default']:.1f}", f"{100 * acc['onnx-fp32']:.1f}",
                     f"{r['accuracy_change_points']:+.1f}"])  # fmt: skip
    info = machine_info()
    flags = " ".join(cpu_flags())
    lines = [
        "# The default runtime against ONNX Runtime fp32, through HTTP",
        "",
        f"{time.strftime('%Y-%m-%d')}; {info['cpu']}, {info['cpus']} CPUs; flags of note: {flags or 'none'}",
        f"default: {chosen['default']}; reference: {chosen['onnx-fp32']}; `python -m bench.runtime_agreement "
        f"--limit {a.limit}`",
        "",
        *table(
            [
                "data set",
                "items",
                "top-1 agreement",
                "mean abs diff",
                "max abs diff",
                "accuracy default %",
                "accuracy onnx fp32 %",
                "change (points)",
            ],
            rows,
        ),  # fmt: skip
    ]
    (a.out / "agreement.json").write_text(json.dumps({"chosen": chosen, "cpu": info, "sets": results}, indent=2))
    (a.out / "agreement.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
