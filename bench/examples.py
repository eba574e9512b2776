"""Label examples: held-out accuracy against examples per label, and what they cost at 32 clients.

    .venv/bin/python -m bench.examples                 # ~6 min on 2 cores -> results/examples-<date>/
    .venv/bin/python -m bench.examples --smoke         # ~1.5 min: k = 0, 3; 5 s per load step

Accuracy: ``zsc tune`` through a served default model, once per k (k = 0: zero-shot wording tuning alone;
k > 0: ``--examples k``, up to k texts per label drawn from the tuning part and never scored). THUCNews:
1,000 headlines sampled stratified, half to tune on; CIC: all 2,000 utterances against its 118 intents, 80%
to tune on (its intents have 1-129 rows; a smaller share leaves most with fewer than 8 examples). Each
row reports the held-out accuracy and macro-F1 with the examples and without them (the same tuned wording).

Cost: a replica holding the k = 8 label sets and the same sets with their examples taken out, each
warmed once (its examples are then cached), ``/classify`` with ``label_set`` from 32 closed-loop clients,
every text distinct (a fresh seed), the two sets alternated twice in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

import httpx
import yaml

from bench.accuracy import write_cic_label_names, zsc
from harness import ROOT
from harness.launchers import bento_serve
from harness.net import free_port
from harness.process import running
from harness.progress import say
from harness.report import pyplot, result_folder, save, table, write_results
from harness.store import ensure_default
from loadtest.loadgen import add_load_options, run_load
from loadtest.workload import SHARED

CASES = {
    "thucnews": {
        "data": SHARED / "thucnews_test.tsv",
        "read": [
            "--no-header",
            "--text-column",
            "0",
            "--label-column",
            "1",
            "--label-names",
            str(SHARED / "thucnews_classes.txt"),
            "--limit",
            "1000",
        ],  # fmt: skip
        "tune": ["--phrasings", str(ROOT / "loadtest" / "data" / "thucnews-phrasings.yaml")],
    },
    "cic": {
        "data": SHARED / "cic_test_public.jsonl",
        "read": ["--text-column", "sentence", "--label-column", "label_des"],  # + --label-names, written below
        "tune": ["--tune-share", "0.8"],
    },
}


def accuracy(url: str, out: Path, ks: list[int], timeout: float) -> tuple[list[dict], dict[str, Path]]:
    rows, sets = [], {}
    names = out / "cic_labels.txt"
    write_cic_label_names(names)
    CASES["cic"]["read"] = [*CASES["cic"]["read"], "--label-names", str(names)]
    for case, c in CASES.items():
        for k in ks:
            folder = out / "tune" / f"{case}-k{k}"
            extra = ["--examples", str(k)] if k else []
            say(f"{case}: zsc tune, k = {k}")
            command = zsc(["-q", "tune", str(c["data"]), "--url", url, *c["read"], *c["tune"], *extra,
                           "--name", f"{case}-k{k}", "--out", str(folder)], timeout)  # fmt: skip
            result = json.loads((folder / "ranking.json").read_text())
            best = result["best"]
            without = best.get("held_out_without_examples") or best["held_out"]
            rows.append({
                "case": case, "k": k, "command": command,
                "accuracy": best["held_out"]["accuracy"], "macro_f1": best["held_out"]["macro_f1"],
                "without_accuracy": without["accuracy"], "without_macro_f1": without["macro_f1"],
                "examples": best.get("examples"), "held_out_items": len(result["held_out_rows"]),
                "threshold": result["threshold"], "at_threshold": best.get("held_out_at_threshold"),
            })  # fmt: skip
            say(f"  held out: accuracy {rows[-1]['accuracy']:.3f} (without examples {without['accuracy']:.3f})")
            sets[f"{case}-k{k}"] = folder / f"{case}-k{k}.yaml"
    return rows, sets


def without_examples(path: Path, target: Path) -> str:
    """The same label set with its examples (and example fields) taken out, under another name."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["name"] = data["name"] + "-no-examples"
    data.pop("example_rule", None)
    data.pop("example_weight", None)
    for label in data["labels"]:
        if isinstance(label, dict):
            label.pop("examples", None)
    target.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return data["name"]


def cost(sets: dict[str, Path], out: Path, clients: int, step_s: float, seed: int) -> list[dict]:
    folder = out / "sets"
    folder.mkdir(parents=True, exist_ok=True)
    pairs = []
    for case in CASES:
        source = sets[max((s for s in sets if s.startswith(f"{case}-k")), key=lambda s: int(s.rsplit("k", 1)[1]))]
        name = yaml.safe_load(source.read_text())["name"]
        (folder / source.name).write_text(source.read_text())
        pairs.append((case, name, without_examples(source, folder / f"{name}-no-examples.yaml")))
    texts = [line.split("\t")[0] for line in (SHARED / "thucnews_test.tsv").read_text().splitlines()[::7]]
    texts += [json.loads(line)["sentence"] for line in (SHARED / "cic_test_public.jsonl").read_text().splitlines()]
    rng = random.Random(seed)
    env = {"ZSC_LABEL_SETS": str(folder), "ZSC_MAX_LABELS": "128"}
    rows = []
    member = bento_serve("cost", free_port(), out / "logs" / "cost", env)
    with running(member, ready_timeout=600) as server:
        for case, with_set, plain_set in pairs:
            for label_set in (with_set, plain_set):  # compute and cache each set's labels and examples once
                httpx.post(f"{server.url}/classify", json={"text": "warm up", "label_set": label_set}, timeout=120)
            for round_ in (1, 2):
                for label_set in (plain_set, with_set):
                    bodies = [{"text": f"{rng.choice(texts)} ({seed}-{round_}-{i})", "label_set": label_set}
                              for i in range(20_000)]  # fmt: skip
                    r = run_load(f"{server.url}/classify", bodies, clients, step_s)
                    rows.append({"case": case, "label_set": label_set, "examples": label_set == with_set,
                                 "round": round_, "requests_per_s": r.requests_per_s, "p50_ms": r.p50_ms,
                                 "p95_ms": r.p95_ms, "failures": r.failures})  # fmt: skip
                    say(f"  {label_set}: {r.requests_per_s:.1f} req/s, p95 {r.p95_ms:.0f} ms, failures {r.failures}")
    return rows


def report(results: dict) -> str:
    lines = ["## Held-out accuracy against examples per label (multilingual-e5-small, through the service)", ""]
    lines += table(
        ["data", "k", "accuracy", "macro-F1", "without examples (acc / F1)", "examples", "held out"],
        [[r["case"], str(r["k"]), f"{r['accuracy']:.3f}", f"{r['macro_f1']:.3f}",
          f"{r['without_accuracy']:.3f} / {r['without_macro_f1']:.3f}",
          (f"{r['examples']['texts']} for {r['examples']['labels']} labels, {r['examples']['rule']} "
           f"{r['examples']['weight']:g}") if r["examples"] else "-", str(r["held_out_items"])]
         for r in results["accuracy"]],
    )  # fmt: skip
    lines += ["", f"## Cost: /classify with a cached label set, {results['clients']} clients, {results['step_s']:g} s"
              " per step", ""]  # fmt: skip
    summary = []
    for case in CASES:
        mine = [r for r in results["cost"] if r["case"] == case]
        if not mine:
            continue
        rps = {flag: sum(r["requests_per_s"] for r in mine if r["examples"] == flag) / 2 for flag in (False, True)}
        p95 = {flag: max(r["p95_ms"] for r in mine if r["examples"] == flag) for flag in (False, True)}
        summary.append([case, f"{rps[False]:.1f}", f"{rps[True]:.1f}", f"{rps[True] / rps[False]:.3f}",
                        f"{p95[False]:.0f} / {p95[True]:.0f}",
                        str(sum(r["failures"] for r in mine))])  # fmt: skip
    lines += table(["label set", "req/s without examples", "with examples", "ratio", "p95 ms (worst round)",
                    "failures"], summary)  # fmt: skip
    lines += ["", "Commands:", "", *[f"    {r['command']}" for r in results["accuracy"]]]
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for case in CASES:
        mine = sorted((r for r in results["accuracy"] if r["case"] == case), key=lambda r: r["k"])
        ax.plot([r["k"] for r in mine], [r["accuracy"] for r in mine], marker="o", label=f"{case}: with examples")
        ax.plot([r["k"] for r in mine], [r["without_accuracy"] for r in mine], ls="--", marker=".",
                label=f"{case}: tuned wording alone")  # fmt: skip
    ax.set_xlabel("examples per label (k)")
    ax.set_ylabel("held-out accuracy")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("multilingual-e5-small: label examples, held out")
    save(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="k = 0, 3 and 5 s load steps")
    parser.add_argument("--ks", default="0,1,3,5,8", help="examples per label to measure")
    add_load_options(parser)
    parser.add_argument("--timeout", type=float, default=900, help="seconds per zsc run")
    parser.add_argument("--out", type=Path, help="result folder (default results/examples-<date>)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.ks, args.step_s = "0,3", 5
    ks = [int(k) for k in args.ks.split(",")]
    out = result_folder(args.out, "examples")
    started = time.monotonic()
    say("model: making sure the default is in the store")
    ensure_default(dict(os.environ))
    member = bento_serve("tune", free_port(), out / "logs" / "tune", {"ZSC_MAX_LABELS": "128", "ZSC_LABEL_SETS": ""})
    with running(member, ready_timeout=600) as server:
        rows, sets = accuracy(server.url, out, ks, args.timeout)
    results = {"accuracy": rows, "clients": args.clients, "step_s": args.step_s, "seed": args.seed}
    say(f"cost: {args.clients} clients, label sets with and without examples")
    results["cost"] = cost(sets, out, args.clients, args.step_s, args.seed)
    results["minutes"] = round((time.monotonic() - started) / 60, 1)
    write_results(out, "examples", results, report, chart, show=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
