"""Benchmark harness: ceiling vs engine vs service vs naive baseline, per model and runtime, in ONE run.

    make bench                       # full run (about 12 minutes on 2 cores), writes results/bench-<time>/
    make bench-smoke                 # a 1-2 minute version (CI runs it)
    .venv/bin/python -m bench.suite --help

What it measures, on the same machine, side by side:
- ceiling: the runtime's raw forward pass on pre-tokenized, length-sorted batches, best batch size;
- engine: tokenization + de-duplication + token-budget planning + padding + forward, in process;
- service: end to end over HTTP through `bentoml serve` at several concurrencies (closed loop);
- naive: transformers' zero-shot pipeline (or, for embeddings, encode text + labels per request)
  behind a single-threaded HTTP server, one request at a time.
Throughput is counted in model sequences per second: (text, label) pairs for NLI models; texts for the
embedding model (its label embeddings are computed once and reused, so each request costs one text).

Models: the bundled all-MiniLM-L6-v2 (real weights); a MiniLM-L6-H384-shaped NLI cross-encoder and a
StructBERT-base-shaped (12 x 768, vocab 21128) NLI cross-encoder with RANDOM weights: the same compute
as the trained checkpoints, which cannot be downloaded here; their scores mean nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# the same OpenMP setting the service's torch backend uses (see service/backends/torch_backend.py);
# set before anything imports torch so the in-process measurements match the service
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from harness import ROOT  # noqa: E402
from harness.launchers import QUIET_ENV, bento_serve, naive_server  # noqa: E402
from harness.machine import machine_info, versions  # noqa: E402
from harness.net import free_port  # noqa: E402
from harness.process import running  # noqa: E402
from harness.progress import say  # noqa: E402
from harness.report import pyplot, save  # noqa: E402
from harness.store import StoredModel, use_home  # noqa: E402
from loadtest.loadgen import run_load  # noqa: E402
from loadtest.models import MODELS, BenchModel, ensure_imported  # noqa: E402
from loadtest.workload import load_rows, request_body  # noqa: E402

RUNTIMES = {
    "torch": ("torch", "fp32"),
    "onnx-fp32": ("onnx", "fp32"),
    "onnx-int8": ("onnx", "int8"),
    "openvino-fp32": ("openvino", "fp32"),
    "openvino-bf16": ("openvino", "bf16"),
    "openvino-fp16": ("openvino", "fp16"),
}


def runs_here(rt: str) -> bool:
    """Whether this machine runs the runtime natively (OpenVINO's bf16 and fp16 need the CPU's flags: the
    same rule ZSC_RUNTIME=auto applies, ``core.runtime_choice.candidates``)."""
    from service.core.runtime_choice import NATIVE
    from service.engine.runtime_memory import cpu_info

    runtime, precision = RUNTIMES[rt]
    if runtime != "openvino" or precision == "fp32":
        return True
    return any(flag in cpu_info()[1] for flag in NATIVE[precision])


# -- workload ------------------------------------------------------------------------------------------
def make_bodies(n: int, n_labels: int, seed: int = 1) -> list[dict]:
    rows = load_rows(extra_datasets=True)
    rng = random.Random(seed)
    pools: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        pools.setdefault((r.lang, r.domain), [])
        if r.label not in pools[(r.lang, r.domain)]:
            pools[(r.lang, r.domain)].append(r.label)
    rng.shuffle(rows)
    bodies = []
    for i in range(n):
        body = request_body(rows[i % len(rows)], pools, rng, n_labels)
        if i >= len(rows):  # keep texts unique: a repeated text would be free for the engine
            body["text"] = f"{body['text']} ({i // len(rows)})"
        bodies.append(body)
    return bodies


# -- in-process measurements ---------------------------------------------------------------------------
def sequences_for(bodies: list[dict], spec, template: str) -> tuple[list[str], list[str] | None]:
    if spec.kind == "nli":
        firsts = [b["text"] for b in bodies for _ in b["labels"]]
        seconds = [template.format(label) for b in bodies for label in b["labels"]]
        return firsts, seconds
    return [b["text"] for b in bodies], None


def measure_ceiling(backend, tokenizer, spec, bodies, template, budget_s: float, overhead: int = 64) -> dict:
    from service.core.microbatch import pad, plan_micro_batches

    firsts, seconds = sequences_for(bodies, spec, template)
    enc = tokenizer.encode_pairs(firsts, seconds) if seconds else tokenizer.encode_texts(firsts)
    order = np.argsort([len(s) for s in enc.ids], kind="stable")
    ids = [enc.ids[i] for i in order]
    types = [enc.type_ids[i] for i in order] if enc.type_ids else None
    rng = random.Random(0)

    def rate(cuts: list[range]) -> float:
        """Sequences/s over these batches in shuffled order (a fair mix of lengths), within a share of the budget."""
        batches = [
            pad(ids[r.start : r.stop], types[r.start : r.stop] if types else None, tokenizer.pad_id) for r in cuts
        ]
        rng.shuffle(batches)
        backend.forward(batches[0])  # warm up
        done, t0 = 0, time.perf_counter()
        for batch in batches[1:]:
            backend.forward(batch)
            done += batch.rows
            if time.perf_counter() - t0 > budget_s / 4:
                break
        return done / (time.perf_counter() - t0)

    results: dict[int | str, float] = {}
    for bs in (8, 32, 128):
        if results and bs / max(results.values()) > budget_s / 6:
            break  # one batch of this size would take longer than its share of the budget
        results[bs] = rate([range(i, min(i + bs, len(ids))) for i in range(0, len(ids), bs)])
    # the engine's own planner over the whole pool, sorted globally: what the engine could reach with
    # perfect length grouping and no tokenization, so the ceiling bounds the engine from above
    results["planned"] = rate(plan_micro_batches([len(x) for x in ids], 8192, 256, overhead))
    best = max(results, key=results.get)
    return {
        "sequences_per_s": results[best],
        "best_batch": best,
        "by_batch": results,
        "mean_tokens": float(np.mean([len(s) for s in ids])),
    }


def measure_engine(engine, spec, bodies, template, budget_s: float, merged: int = 32) -> dict:
    """The service's own in-process path (cached scorer + engine), fed merged batches of ``merged`` requests:
    cache tiers as in the service (labels kept, texts unique so they always miss), no HTTP."""
    import asyncio

    from service.core.task import Task
    from service.engine.batcher import with_tokens
    from service.pipeline.cache import LocalTier
    from service.pipeline.scorer import CachedScorer

    counted = {"sequences": 0}

    async def submit(seqs):
        rows, stats = engine.encode(seqs)
        counted["sequences"] += stats.sequences
        return with_tokens(rows, stats.tokens)  # as the batcher returns them

    scorer = CachedScorer(spec, submit, LocalTier(0, 0), LocalTier(65536, 2**30))
    tasks = [Task.of(b["text"], tuple(b["labels"]), template) for b in bodies]
    if spec.kind == "embedding":  # label embeddings are computed once per process, as in the service
        labels = tuple(sorted({lab for b in bodies for lab in b["labels"]}))
        asyncio.run(scorer.scores([Task.of("warm", labels, template)]))
    counted["sequences"] = done_req = 0
    t0 = time.perf_counter()
    for i in range(0, len(tasks), merged):
        asyncio.run(scorer.scores(tasks[i : i + merged]))
        done_req += len(tasks[i : i + merged])
        if time.perf_counter() - t0 > budget_s:
            break
    dt = time.perf_counter() - t0
    return {"sequences_per_s": counted["sequences"] / dt, "requests_per_s": done_req / dt, "merged_requests": merged}


# -- processes -----------------------------------------------------------------------------------------
def well_formed(_status: int, payload: dict) -> bool:
    return isinstance(payload, dict) and len(payload.get("labels", [])) == len(payload.get("scores", [])) > 0


@dataclass(frozen=True)
class Load:
    """A closed-loop load at several concurrencies, for one server."""

    bodies: list[dict]
    levels: list[int]
    duration: float
    warmup: float

    def against(self, url: str, who: str) -> list[dict]:
        out = []
        for c in self.levels:
            r = run_load(f"{url}/classify", self.bodies, c, self.duration, self.warmup, check=well_formed)
            say(
                f"    {who} c={c}: {r.requests_per_s:.1f} req/s, p50 {r.p50_ms:.0f} ms, p95 {r.p95_ms:.0f} ms,"
                f" failures {r.failures} {r.statuses}"
            )
            out.append(r.as_dict())
        return out


def measure_service(env: dict[str, str], model: BenchModel, runtime: tuple[str, str], load: Load, logs: Path):
    # the text tier off: the stream repeats across concurrency levels and must cost the model every time
    # (label embeddings stay cached, as in production; the cache is measured on its own in cache_bench)
    senv = {
        **env,
        "ZSC_MODEL": model.name,
        "ZSC_RUNTIME": runtime[0],
        "ZSC_PRECISION": runtime[1],
        "ZSC_CACHE_LOCAL_ENTRIES": "0",
        "ZSC_REDIS_URL": "",
    }
    name = f"serve-{model.name}-{runtime[0]}-{runtime[1]}"
    with running(bento_serve(name, free_port(), logs / name, senv, log=logs / f"{name}.log")) as server:
        return load.against(server.url, "service")


def measure_naive(stored: StoredModel, load: Load, logs: Path, template: str, env: dict[str, str]):
    name = f"naive-{stored.tag.split(':')[0]}"
    with running(naive_server(name, free_port(), logs, stored.path, stored.kind, template, env)) as server:
        return load.against(server.url, "naive")


# -- the run -------------------------------------------------------------------------------------------
@dataclass
class Plan:
    models: list[str]
    runtimes: list[str]
    levels: dict[str, list[int]]  # per model
    duration: dict[str, float]
    warmup: dict[str, float]
    inproc_s: float
    naive_levels: list[int]
    merged: dict[str, int]  # requests per in-process engine batch (what adaptive batching merges under load)
    n_labels: int
    cache_duration: float = 8
    cache_requests: int = 500  # distinct requests the fully cached runs repeat


FULL = Plan(
    models=list(MODELS),
    runtimes=list(RUNTIMES),
    levels={
        "e5-emb": [1, 8, 32, 64],
        "minilm-emb": [1, 8, 32, 64],
        "minilm-nli": [1, 8, 32, 64],
        "structbert-base": [1, 32],
    },
    duration={"e5-emb": 6, "minilm-emb": 6, "minilm-nli": 6, "structbert-base": 15},
    warmup={"e5-emb": 2, "minilm-emb": 2, "minilm-nli": 2, "structbert-base": 8},
    inproc_s=6,
    naive_levels=[1, 32],
    merged={"e5-emb": 32, "minilm-emb": 32, "minilm-nli": 32, "structbert-base": 8},
    n_labels=5,
)
SMOKE = Plan(
    models=["minilm-emb", "minilm-nli"],
    runtimes=["torch", "onnx-fp32", "openvino-fp32"],
    levels={"minilm-emb": [1, 8], "minilm-nli": [1, 8]},
    duration={"minilm-emb": 3, "minilm-nli": 3},
    warmup={"minilm-emb": 1, "minilm-nli": 1},
    inproc_s=1.5,
    naive_levels=[8],
    merged={"minilm-emb": 32, "minilm-nli": 32},
    n_labels=5,
    cache_duration=2,
    cache_requests=100,
)


def machine() -> dict:
    return {
        **machine_info(),
        **versions(("torch", "onnxruntime", "openvino", "transformers", "bentoml"), servers=False),
    }


def bench_env(work: Path) -> dict[str, str]:
    """The environment of every process of a run: its own model store under ``work``; this process reads
    the same store (``use_home``)."""
    home = work / "bentoml_home"
    use_home(home)
    return {**os.environ, **QUIET_ENV, "BENTOML_HOME": str(home)}


def run(plan: Plan, out_dir: Path, work: Path) -> dict:
    from service.backends import load_backend
    from service.backends.files import onnx_path
    from service.core.model_spec import ModelSpec
    from service.engine.engine import Engine
    from service.engine.tokenization import Tokenizer

    logs = out_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = bench_env(work)
    results: dict = {"machine": machine(), "plan": plan.__dict__, "models": {}, "started": time.time()}
    bodies = make_bodies(4000, plan.n_labels)
    for name in plan.models:
        model = MODELS[name]
        stored = ensure_imported(model, work, env)
        path, spec = stored.path, ModelSpec.from_metadata(stored.metadata)
        template = spec.default_template if spec.kind == "nli" else "This text is about {}."
        tokenizer = Tokenizer.load(path, spec.max_length)
        entry = results["models"][name] = {
            "description": model.description,
            "kind": model.kind,
            "random_weights": model.random_weights,
            "runtimes": {},
        }
        seq_per_req = plan.n_labels if spec.kind == "nli" else 1
        say(f"{name}: {model.description}")
        for rt in [rt for rt in plan.runtimes if runs_here(rt)]:
            runtime = RUNTIMES[rt]
            if runtime[0] == "onnx" and not onnx_path(path, runtime[1]).is_file():
                continue  # a graph this model was not exported with
            backend = load_backend(path, spec, runtime[0], "cpu", 0, runtime[1], work / "openvino")
            engine = Engine(spec, tokenizer, backend, token_budget=8192, max_rows=256)
            overhead = engine.measure_overhead()  # as the service does at start-up
            ceiling = measure_ceiling(backend, tokenizer, spec, bodies[:512], template, plan.inproc_s, overhead)
            eng = measure_engine(engine, spec, bodies[512:], template, plan.inproc_s, plan.merged[name])
            say(
                f"  {rt}: ceiling {ceiling['sequences_per_s']:.1f} seq/s (batch {ceiling['best_batch']}), "
                f"engine {eng['sequences_per_s']:.1f} seq/s"
            )
            del engine, backend
            # the service gets the label-free template the request does not override: its default
            load = Load(
                [{**b, "hypothesis_template": template} for b in bodies[1024:]],
                plan.levels[name],
                plan.duration[name],
                plan.warmup[name],
            )
            service = measure_service(env, model, runtime, load, logs)
            for s in service:
                s["sequences_per_s"] = s["requests_per_s"] * seq_per_req
            entry["runtimes"][rt] = {
                "overhead_tokens": overhead,
                "ceiling": ceiling,
                "engine": eng,
                "service": service,
                "sequences_per_request": seq_per_req,
            }
        say(f"  naive baseline ({'pipeline' if spec.kind == 'nli' else 'encode text + labels per request'})")
        load = Load(bodies[2048:], plan.naive_levels, plan.duration[name], plan.warmup[name])
        naive = measure_naive(stored, load, logs, template, env)
        for s in naive:
            s["sequences_per_s"] = s["requests_per_s"] * seq_per_req
        entry["naive"] = naive
        results["agreement"] = results.get("agreement", {})
        if "onnx-int8" in plan.runtimes:
            english = [b for b in bodies if b["text"].isascii()][:300]
            results["agreement"][name] = int8_agreement(path, spec, tokenizer, bodies[:300] + english, template)
            say(f"  int8 top-1 agreement with fp32: {results['agreement'][name]}")
    if "minilm-nli" in plan.models and plan.cache_duration:
        from bench import cache as cache_bench

        say("cache: echo ceiling, fully cached requests, Zipf-repeated stream with cache on/off (minilm-nli)")
        results["cache"] = cache_bench.run(
            env, "minilm-nli", bodies, logs, duration=plan.cache_duration, cached=plan.cache_requests
        )
    results["finished"] = time.time()
    return results


def int8_agreement(path, spec, tokenizer, bodies, template) -> dict:
    """Top-1 label agreement of int8 with fp32 on the same requests, overall, on English texts and on the
    others (Chinese): an English-only encoder ranks Chinese text near randomly, so its flips there say
    little about quantization, while the multilingual one is meant to hold on both."""
    from service.backends import load_backend
    from service.core.task import Task
    from service.engine.engine import Engine

    tasks = [Task.of(b["text"], tuple(b["labels"]), template) for b in bodies]
    english = np.array([b["text"].isascii() for b in bodies])
    out = {}
    for variant in ("fp32", "int8"):
        engine = Engine(spec, tokenizer, load_backend(path, spec, "onnx", "cpu", 0, variant), 8192, 256)
        out[variant] = np.array([int(np.argmax(s)) for s in engine.scores(tasks)])
    same = out["fp32"] == out["int8"]
    return {
        "top1_agreement": float(same.mean()),
        "requests": len(tasks),
        "english_top1_agreement": float(same[english].mean()) if english.any() else None,
        "english_requests": int(english.sum()),
        "other_top1_agreement": float(same[~english].mean()) if (~english).any() else None,
        "other_requests": int((~english).sum()),
    }


# -- report --------------------------------------------------------------------------------------------
def summarize(results: dict) -> list[dict]:
    rows = []
    for name, entry in results["models"].items():
        naive = entry["naive"]
        naive_best = max(naive, key=lambda s: s["requests_per_s"])
        torch_ceiling = entry["runtimes"].get("torch", {}).get("ceiling", {}).get("sequences_per_s")
        for rt, r in entry["runtimes"].items():
            ceiling = r["ceiling"]["sequences_per_s"]
            svc = {s["concurrency"]: s for s in r["service"]}
            top = svc.get(32) or svc[max(svc)]
            rows.append(
                {
                    "model": name,
                    "runtime": rt,
                    "ceiling": ceiling,
                    "engine": r["engine"]["sequences_per_s"],
                    "engine_ratio": r["engine"]["sequences_per_s"] / ceiling,
                    "service_c": top["concurrency"],
                    "service": top["sequences_per_s"],
                    "service_rps": top["requests_per_s"],
                    "service_ratio": top["sequences_per_s"] / ceiling,
                    "p50": top["p50_ms"],
                    "p95": top["p95_ms"],
                    "p99": top["p99_ms"],
                    "failures": top["failures"],
                    "vs_torch": ceiling / torch_ceiling if torch_ceiling else None,
                    "vs_naive": top["requests_per_s"] / naive_best["requests_per_s"],
                    "naive_rps": naive_best["requests_per_s"],
                    "naive_p95": naive_best["p95_ms"],
                }
            )
    return rows


def markdown(results: dict) -> str:
    from bench import cache as cache_bench

    m = results["machine"]
    lines = [
        f"Machine: {m['cpu']}, {m['cpus']} cores; Python {m['python']}, torch {m['torch']}, "
        f"onnxruntime {m['onnxruntime']}, openvino {m.get('openvino', '-')}, transformers {m['transformers']}, "
        f"BentoML {m['bentoml']}. CPU flags of note: {' '.join(m.get('cpu_flags', [])) or 'none'}. "
        f"Load generator on the same cores. Run took {(results['finished'] - results['started']) / 60:.1f} min.",
        "",
        "Throughput in model sequences/s ((text, label) pairs for NLI, texts for the embedding model); "
        "service = `bentoml serve`, 1 worker, closed-loop clients, 5 labels per request.",
        "",
        "| model | runtime | ceiling | engine (× ceiling) | service c | service seq/s (× ceiling) | req/s | "
        "p50 / p95 / p99 ms | × torch ceiling | × naive req/s | naive req/s, p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in summarize(results):
        vs_torch = f"{r['vs_torch']:.2f}" if r["vs_torch"] else "—"
        lines.append(
            f"| {r['model']} | {r['runtime']} | {r['ceiling']:.1f} | {r['engine']:.1f} ({r['engine_ratio']:.2f}) | "
            f"{r['service_c']} | {r['service']:.1f} ({r['service_ratio']:.2f}) | {r['service_rps']:.1f} | "
            f"{r['p50']:.0f} / {r['p95']:.0f} / {r['p99']:.0f} | {vs_torch} | {r['vs_naive']:.1f} | "
            f"{r['naive_rps']:.1f}, {r['naive_p95']:.0f} |"
        )
    lines += [
        "",
        "Service by concurrency (requests/s, p95 ms):",
        "",
        "| model | runtime | " + " | ".join(f"c={c}" for c in (1, 8, 32, 64)) + " |",
        "|---|---|---|---|---|---|",
    ]
    for name, entry in results["models"].items():
        for rt, r in entry["runtimes"].items():
            cells = {s["concurrency"]: f"{s['requests_per_s']:.1f}, {s['p95_ms']:.0f}" for s in r["service"]}
            lines.append(f"| {name} | {rt} | " + " | ".join(cells.get(c, "—") for c in (1, 8, 32, 64)) + " |")
        cells = {s["concurrency"]: f"{s['requests_per_s']:.1f}, {s['p95_ms']:.0f}" for s in entry["naive"]}
        lines.append(f"| {name} | naive | " + " | ".join(cells.get(c, "—") for c in (1, 8, 32, 64)) + " |")
    if results.get("agreement"):
        lines += ["", "int8 vs fp32 top-1 label agreement (same requests):", ""]
        for name, a in results["agreement"].items():
            note = " (random weights: near-ties decided by noise)" if MODELS[name].random_weights else ""
            en = a.get("english_top1_agreement")
            en_text = f"; English texts only: {en:.3f} over {a['english_requests']}" if en is not None else ""
            if a.get("other_top1_agreement") is not None:
                en_text += f"; Chinese texts: {a['other_top1_agreement']:.3f} over {a['other_requests']}"
            lines.append(f"- {name}: {a['top1_agreement']:.3f} over {a['requests']} requests{en_text}{note}")
    if results.get("cache"):
        lines += ["", cache_bench.markdown(results["cache"])]
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    plt = pyplot()

    names = list(results["models"])
    fig, axes = plt.subplots(1, len(names), figsize=(6 * len(names), 4.5), squeeze=False)
    for ax, name in zip(axes[0], names):
        entry = results["models"][name]
        rts = list(entry["runtimes"])
        x = np.arange(len(rts))
        series = {
            "ceiling": [entry["runtimes"][rt]["ceiling"]["sequences_per_s"] for rt in rts],
            "engine": [entry["runtimes"][rt]["engine"]["sequences_per_s"] for rt in rts],
            "service (best c)": [max(s["sequences_per_s"] for s in entry["runtimes"][rt]["service"]) for rt in rts],
        }
        for i, (label, vals) in enumerate(series.items()):
            ax.bar(x + (i - 1) * 0.25, vals, 0.25, label=label)
        naive = max(s["sequences_per_s"] for s in entry["naive"])
        ax.axhline(naive, color="red", linestyle="--", label=f"naive baseline ({naive:.0f})")
        ax.set_xticks(x, rts)
        ax.set_title(entry["description"], fontsize=9)
        ax.set_ylabel("sequences / s")
        ax.legend(fontsize=8)
    fig.suptitle(f"Zero-shot throughput on {results['machine']['cpus']} CPU cores (higher is better)")
    save(fig, path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="a 1-2 minute version (CI)")
    parser.add_argument("--models", help=f"comma-separated subset of {','.join(MODELS)}")
    parser.add_argument("--runtimes", help=f"comma-separated subset of {','.join(RUNTIMES)}")
    parser.add_argument("--out", type=Path, help="result directory (default results/bench-<time>)")
    parser.add_argument("--work", type=Path, default=ROOT / ".bench", help="checkpoints and model store (reused)")
    parser.add_argument("--cache-only", action="store_true", help="only the cache benchmark (minilm-nli)")
    args = parser.parse_args(argv)
    if args.cache_only:
        return cache_only(args)
    plan = SMOKE if args.smoke else FULL
    if args.models:
        plan.models = [m for m in args.models.split(",") if m]
    if args.runtimes:
        plan.runtimes = [r for r in args.runtimes.split(",") if r]
    for kind, chosen, known in (("model", plan.models, MODELS), ("runtime", plan.runtimes, RUNTIMES)):
        if unknown := sorted(set(chosen) - set(known)):
            parser.error(f"unknown {kind}(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    out = args.out or ROOT / "results" / time.strftime("bench-%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    say(f"benchmark ({'smoke' if args.smoke else 'full'}) -> {out}")
    results = run(plan, out, args.work)
    (out / "bench.json").write_text(json.dumps(results, indent=2))
    (out / "bench.md").write_text(markdown(results))
    chart(results, out / "bench.png")
    say(f"wrote {out / 'bench.json'}, {out / 'bench.md'}, {out / 'bench.png'}")
    print(markdown(results))
    return 0


def cache_only(args) -> int:
    from bench import cache as cache_bench

    out = args.out or ROOT / "results" / time.strftime("cache-%Y%m%d-%H%M%S")
    (out / "logs").mkdir(parents=True, exist_ok=True)
    env = bench_env(args.work)
    ensure_imported(MODELS["minilm-nli"], args.work, env)
    results = cache_bench.run(env, "minilm-nli", make_bodies(4000, 5), out / "logs")
    (out / "cache.json").write_text(json.dumps(results, indent=2))
    (out / "cache.md").write_text(cache_bench.markdown(results))
    print(cache_bench.markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
