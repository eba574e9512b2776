"""Accuracy of models as served: ``zsc evaluate`` and ``zsc tune`` against a live ``bentoml serve`` per model,
on the project's English sample and stratified subsets of ``../shared/datasets`` (docs/evaluation.md).

    .venv/bin/python -m bench.accuracy                                   # both bundled models
    .venv/bin/python -m bench.accuracy --model my-structbert --cases thucnews,cic --limit 300

Per model it starts one replica (its own port and BentoML home; the model from the store), runs every case
through the same commands a user runs (the command lines are in the report), and writes into ``--out``:
``<model>/<case>/report.{md,json}`` and ``confusion.png`` from ``zsc evaluate``, ``<model>/tune-<case>/``
from ``zsc tune``, then ``summary.md``, ``summary.json`` and ``accuracy.png`` across models.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness import ROOT
from harness.launchers import bento_serve, tool
from harness.net import free_port
from harness.process import HarnessError, run_command, running
from harness.progress import say
from harness.report import pyplot, save, table
from harness.store import ensure_default
from loadtest.workload import SHARED, WORKLOAD

DATA = ROOT / "loadtest" / "data"
BUNDLED = ("multilingual-e5-small", "all-minilm-l6-v2")


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    data: Path
    read: tuple[str, ...]  # how `zsc evaluate` / `zsc tune` read the file
    templates: tuple[str | None, ...] = (None,)  # evaluated with each (None: the model's own)
    tune: tuple[str, ...] = ()  # extra `zsc tune` options (phrasings, language)
    sampled: bool = False  # --limit applies


def cases(label_names: Path) -> list[Case]:
    thucnews_read = ("--no-header", "--text-column", "0", "--label-column", "1",
                     "--label-names", str(SHARED / "thucnews_classes.txt"))  # fmt: skip
    return [
        Case("en-news", "English news (project, 60 sentences, 6 classes)", WORKLOAD,
             ("--where", "lang=en", "--where", "domain=news"), (None, "This is a news article about {}."),
             ("--language", "en", "--phrasings", str(DATA / "news-phrasings.yaml"))),
        Case("en-support", "English support (project, 32 messages, 6 classes)", WORKLOAD,
             ("--where", "lang=en", "--where", "domain=support"), (None, "The customer writes about {}."),
             ("--language", "en", "--phrasings", str(DATA / "support-phrasings.yaml"))),
        Case("thucnews", "THUCNews headlines (10 classes)", SHARED / "thucnews_test.tsv", thucnews_read,
             (None, "这是一条关于{}的新闻"), ("--language", "zh", "--phrasings", str(DATA / "thucnews-phrasings.yaml")),
             sampled=True),
        Case("cic", "CIC customer-service intents (118 intents)", SHARED / "cic_test_public.jsonl",
             ("--text-column", "sentence", "--label-column", "label_des", "--label-names", str(label_names)),
             (None,), ("--language", "zh"), sampled=True),
    ]  # fmt: skip


def write_cic_label_names(path: Path) -> None:
    """All 118 CIC intents in id order (the candidate list; a sample may lack some), one per line."""
    records = [json.loads(line) for line in (SHARED / "cic_labels.json").read_text(encoding="utf-8").splitlines()]
    path.write_text("\n".join(r["label_des"] for r in sorted(records, key=lambda r: int(r["label"]))) + "\n")


@dataclass
class Run:
    model: str
    case: str
    command: str
    result: dict = field(default_factory=dict)


def zsc(args: list[str], timeout: float) -> str:
    run_command([*tool("zsc", "service.cli"), *args], timeout=timeout, what=f"zsc {args[0]}", capture=False)
    return ("zsc " + shlex.join(args)).replace(f"{ROOT}/", "")  # paths as written from the repository root


def evaluate_model(model: str, chosen: list[Case], args: argparse.Namespace) -> list[Run]:
    port = free_port()
    env = {"ZSC_MODEL": model, "ZSC_LABEL_SETS": "", "ZSC_MAX_LABELS": "128"}  # CIC has 118 intents
    runs: list[Run] = []
    if model in BUNDLED:  # imported on first use (a minute); other models must be in the store already
        say(f"{model}: in the model store?")
        ensure_default({**os.environ, "ZSC_MODEL": model})
    member = bento_serve(f"serve-{model}", port, args.out / "logs" / model, env)
    with running(member, ready_timeout=600) as server:
        for case in chosen:
            limit = ("--limit", str(args.limit), "--seed", str(args.seed)) if case.sampled else ()
            common = [str(case.data), "--url", server.url, *case.read, *limit]
            for template in case.templates:
                key = case.name if template is None else f"{case.name}-template"
                out = args.out / model / key
                say(f"{model}: evaluate {key}")
                extra = ["--template", template] if template else []
                command = zsc(["evaluate", *common, *extra, "--out", str(out)], args.timeout)
                report = json.loads((out / "report.json").read_text())
                runs.append(Run(model, key, command, {"template": template, **report}))
            if args.tune:
                out = args.out / model / f"tune-{case.name}"
                say(f"{model}: tune {case.name}")
                command = zsc(["tune", *common, *case.tune, "--name", case.name, "--out", str(out)], args.timeout)
                runs.append(Run(model, f"tune-{case.name}", command, json.loads((out / "ranking.json").read_text())))
    return runs


def headline(run: Run) -> dict:
    """A run's numbers without its per-item and per-class detail (that is in its own report)."""
    r = run.result
    if run.case.startswith("tune-"):
        numbers = {k: r[k] for k in ("best", "baseline", "threshold", "thresholds", "ranking", "model", "revision")}
    else:
        metrics = {k: r["metrics"][k] for k in ("items", "accuracy", "macro_f1", "abstain_rate")}
        numbers = {k: r[k] for k in ("template", "model", "revision", "items_per_s", "seconds")} | {"metrics": metrics}
    return {"model": run.model, "case": run.case, "command": run.command, **numbers}


def summary(runs: list[Run], chosen: list[Case], out: Path, started: float) -> str:
    models = list(dict.fromkeys(r.model for r in runs))
    by = {(r.model, r.case): r for r in runs}
    lines = [
        "# Accuracy as served",
        "",
        f"{time.strftime('%Y-%m-%d')}, {time.time() - started:.0f} s; `python -m bench.accuracy` (each row's "
        "command is in summary.json). Top-1 accuracy and macro-F1; items/s is what `zsc evaluate` achieved "
        "against one replica on this machine (a data set's first run; later runs of the same texts reuse their "
        "embeddings from the cache).",
        "",
    ]
    rows = []
    for case in chosen:
        for key in (case.name, f"{case.name}-template"):
            if not any((m, key) in by for m in models):
                continue
            first = next(by[(m, key)] for m in models if (m, key) in by)
            template = first.result["template"] or "(the model's)"
            cells = [f"{case.title}, {first.result['metrics']['items']} items", f"`{template}`"]
            for m in models:
                r = by.get((m, key))
                met = r.result["metrics"] if r else None
                cells.append(
                    f"{met['accuracy']:.3f} / {met['macro_f1']:.3f} ({r.result['items_per_s']:.0f}/s)" if r else "—"
                )
            rows.append(cells)
    lines += table(["data", "template", *[f"{m}: accuracy / macro-F1 (items/s)" for m in models]], rows)
    tuned = [
        (case, m, by[(m, f"tune-{case.name}")].result)
        for case in chosen
        for m in models
        if (m, f"tune-{case.name}") in by
    ]
    if tuned:
        lines += ["", "## Tuning (`zsc tune`): held-out macro-F1, plain default vs the chosen wording", ""]
        lines += table(
            ["data", "model", "held out: default", "held out: tuned", "chosen", "tuning items / held out"],
            [tuning_row(case, m, t) for case, m, t in tuned],
        )
    lines += ["", "![accuracy](accuracy.png)", ""]
    chart(runs, models, out / "accuracy.png")
    return "\n".join(lines)


def tuning_row(case: Case, model: str, t: dict) -> tuple[str, ...]:
    best = t["best"]
    return (
        case.title,
        model,
        f"{t['baseline']['held_out']['macro_f1']:.3f}",
        f"{best['held_out']['macro_f1']:.3f}",
        f"`{best['template'] or '(model)'}`, {best['strategy']}",
        f"{len(t['tuning_rows'])} / {len(t['held_out_rows'])}",
    )


def chart(runs: list[Run], models: list[str], path: Path) -> None:
    plt = pyplot()
    keys = list(dict.fromkeys(r.case for r in runs if not r.case.startswith("tune-")))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(keys)), 4))
    width = 0.8 / max(1, len(models))
    for i, m in enumerate(models):
        values = [
            next((r.result["metrics"]["accuracy"] for r in runs if r.model == m and r.case == k), 0) for k in keys
        ]
        ax.bar([x + i * width for x in range(len(keys))], values, width, label=m)
    ax.set_xticks([x + width * (len(models) - 1) / 2 for x in range(len(keys))], keys, rotation=30, ha="right")
    ax.set_ylabel("top-1 accuracy")
    ax.set_ylim(0, 1)
    ax.legend()
    save(fig, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", help="a model in the store (repeatable; default: both bundled)")
    parser.add_argument("--cases", default="en-news,en-support,thucnews,cic", help="comma-separated")
    parser.add_argument("--limit", type=int, default=1000, help="stratified sample of the shared datasets")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-tune", dest="tune", action="store_false", help="evaluate only")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per command")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / f"accuracy-{time.strftime('%Y%m%d')}")
    args = parser.parse_args()
    (args.out / "logs").mkdir(parents=True, exist_ok=True)
    started = time.time()
    wanted = args.cases.split(",")
    cic_names = args.out / "logs" / "cic_label_names.txt"  # from ../shared/datasets: not kept with the results
    chosen = [c for c in cases(cic_names) if c.name in wanted]
    if len(chosen) != len(wanted):
        parser.error(f"--cases: choose from {[c.name for c in cases(Path())]}")
    if any(c.data.parent == SHARED for c in chosen) and not SHARED.is_dir():
        parser.error(f"{SHARED} is missing: run with --cases en-news,en-support")
    if any(c.name == "cic" for c in chosen):
        write_cic_label_names(cic_names)
    runs: list[Run] = []
    try:
        for model in args.model or BUNDLED:
            runs += evaluate_model(model, chosen, args)
    except HarnessError as exc:
        say(f"stopped: {exc}")
        return 1
    (args.out / "summary.json").write_text(json.dumps([headline(r) for r in runs], indent=1, ensure_ascii=False))
    (args.out / "summary.md").write_text(summary(runs, chosen, args.out, started))
    say(f"wrote {args.out / 'summary.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
