"""GPU benchmark in one run: parity, ceiling, the service at 1/2/4/8 workers, the naive pipeline.

    make gpu-wheels                 # here: the wheels the GPU machine lacks -> .gpu-wheels/ (git-ignored)
    make bench-gpu                  # there (build/bench-gpu.sh): -> $OUT (or results/gpu-<time>)
    ZSC_DEVICE=cpu make bench-gpu   # the dry run on a CPU with tiny sizes (CI runs it)

On the lent H200, through the device tool, with the wheels carried:

    run(command="bash build/bench-gpu.sh", carry=[".gpu-wheels"], timeout_s=600)

What it measures, for a StructBERT-base-shaped NLI cross-encoder (12 x 768, vocab 21128, random weights:
the compute of the real checkpoint, which cannot be downloaded), with the workload's real texts and 5
labels per request:

- parity: torch fp16 (SDPA) on the GPU vs torch fp32 on the CPU, for a tiny model and the base model:
  largest score difference and top-label agreement over the same requests;
- ceiling: the raw fp16 forward pass over the workload's pairs, pre-tokenized and sorted by length, at
  256 / 512 / 1024 rows and in the engine's own planned micro-batches (the best of them);
- service: ``bentoml serve`` on the GPU with 1, 2, 4 and 8 workers (each its own model copy):
  ``/classify`` at rising concurrency and ``/classify_batch`` with 64 items per call; pairs/s,
  p50/p95/p99, GPU utilisation and memory (nvidia-smi, sampled every 200 ms);
- naive: transformers' zero-shot pipeline in fp16 on the same GPU, one request at a time.

Writes ``bench-gpu.json`` and ``bench-gpu.md``. The run stops starting steps when its time budget
(default 8 minutes) is spent, and says which it skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

# the same OpenMP setting the service's torch backend uses; before anything imports torch
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from bench.suite import make_bodies, well_formed  # noqa: E402
from harness import ROOT  # noqa: E402
from harness.checkpoints import STRUCTBERT_BASE_ZH, BertShape  # noqa: E402
from harness.launchers import QUIET_ENV, bento_serve, gpu_monitor, naive_server  # noqa: E402
from harness.machine import machine_info, versions  # noqa: E402
from harness.net import free_port  # noqa: E402
from harness.process import HarnessError, running, start  # noqa: E402
from harness.progress import say  # noqa: E402
from harness.report import ms, pyplot, save, table  # noqa: E402
from harness.store import import_model, stored_model, use_home  # noqa: E402
from loadtest.loadgen import run_load  # noqa: E402
from loadtest.models import write_structbert  # noqa: E402

TINY = BertShape(STRUCTBERT_BASE_ZH.vocab_size, hidden=32, layers=2, heads=2, ffn=64)
MODELS = {"tiny": TINY, "base": STRUCTBERT_BASE_ZH}
GOAL_PAIRS_PER_S = 20_000
GOAL_P99_MS = 1_000


@dataclass(frozen=True)
class GpuPlan:
    device: str  # cuda, or cpu for the dry run
    service_model: str  # the model the service and naive steps use
    workers: tuple[int, ...]
    classify_concurrency: tuple[int, ...]
    batch_concurrency: tuple[int, ...]
    batch_items: int
    n_labels: int
    step_s: float
    warmup_s: float
    load_processes: int
    parity_requests: int
    ceiling_pairs: int
    ceiling_batches: tuple[int, ...]
    naive_concurrency: tuple[int, ...]
    budget_s: float


FULL = GpuPlan(
    device="cuda",
    service_model="base",
    workers=(1, 2, 4, 8),
    classify_concurrency=(64, 256, 1024),
    batch_concurrency=(8, 32),
    batch_items=64,
    n_labels=5,
    step_s=6,
    warmup_s=2,
    load_processes=6,
    parity_requests=200,
    ceiling_pairs=16384,
    ceiling_batches=(256, 512, 1024),
    naive_concurrency=(1, 8),
    budget_s=480,
)
# the same script on a CPU in about a minute: tiny model, two workers, one step of each kind
DRY = replace(
    FULL,
    **{
        "device": "cpu",
        "service_model": "tiny",
        "workers": (1, 2),
        "classify_concurrency": (8,),
        "batch_concurrency": (2,),
        "batch_items": 8,
        "step_s": 2,
        "warmup_s": 1,
        "load_processes": 2,
        "parity_requests": 20,
        "ceiling_pairs": 256,
        "ceiling_batches": (32, 64),
        "naive_concurrency": (2,),
        "budget_s": 240,
    },
)


class Clock:
    """The run's time budget: steps start only while some is left."""

    def __init__(self, budget_s: float) -> None:
        self.t0, self.budget_s, self.skipped = time.monotonic(), budget_s, []

    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.t0)

    def allows(self, what: str, need_s: float) -> bool:
        if self.left() >= need_s:
            return True
        self.skipped.append(what)
        say(f"  skipped (time budget): {what}")
        return False


# -- models ----------------------------------------------------------------------------------------------
def prepare_models(work: Path, env: dict[str, str], names: list[str]):
    """Random-weight StructBERT checkpoints (ModelScope layout) imported through the real import path
    (no ONNX export: onnxruntime-gpu cannot be carried to the GPU machine)."""
    use_home(Path(env["BENTOML_HOME"]))
    out = {}
    for name in names:
        tag = f"gpu-{name}"
        try:
            out[name] = stored_model(tag)
            continue
        except HarnessError:
            pass
        say(f"writing and importing {tag} ({MODELS[name]})")
        ckpt = write_structbert(work / "checkpoints" / name, MODELS[name])
        import_model(str(ckpt), tag, env, "--no-onnx")
        out[name] = stored_model(tag)
    return out


# -- parity and ceiling (in process) ---------------------------------------------------------------------
def parity(stored, device: str, bodies: list[dict]) -> dict:
    """Scores of the same requests: torch on ``device`` (fp16 on CUDA) vs torch fp32 on the CPU."""
    from service.backends import load_backend
    from service.core.model_spec import ModelSpec
    from service.core.task import Task
    from service.engine.engine import Engine
    from service.engine.tokenization import Tokenizer

    spec = ModelSpec.from_metadata(stored.metadata)
    tokenizer = Tokenizer.load(stored.path, spec.max_length)
    tasks = [Task.of(b["text"], tuple(b["labels"]), spec.default_template) for b in bodies]
    scores = {}
    for where in ("cpu", device):
        engine = Engine(spec, tokenizer, load_backend(stored.path, spec, "torch", where, 0), 8192, 256)
        scores[where] = engine.scores(tasks)
        backend_name = engine.backend.name
    ref, got = scores["cpu"], scores[device]
    diffs = [float(np.max(np.abs(np.array(a) - np.array(b)))) for a, b in zip(ref, got)]
    top = [int(np.argmax(a)) == int(np.argmax(b)) for a, b in zip(ref, got)]
    return {
        "backend": backend_name,
        "requests": len(tasks),
        "max_score_diff": max(diffs),
        "mean_score_diff": float(np.mean(diffs)),
        "top1_agreement": float(np.mean(top)),
    }


def ceiling(stored, device: str, bodies: list[dict], batches: tuple[int, ...], budget_s: float) -> dict:
    """Raw forward pairs/s on the workload's pairs, sorted by length, at several widths and as planned."""
    from service.backends import load_backend
    from service.config import DEVICE_DEFAULTS
    from service.core.microbatch import pad, plan_micro_batches
    from service.core.model_spec import ModelSpec
    from service.engine.tokenization import Tokenizer

    spec = ModelSpec.from_metadata(stored.metadata)
    tokenizer = Tokenizer.load(stored.path, spec.max_length)
    backend = load_backend(stored.path, spec, "torch", device, 0)
    pairs = [(b["text"], spec.default_template.format(label)) for b in bodies for label in b["labels"]]
    enc = tokenizer.encode_pairs([p for p, _ in pairs], [h for _, h in pairs])
    order = np.argsort([len(x) for x in enc.ids], kind="stable")
    ids = [enc.ids[i] for i in order]
    types = [enc.type_ids[i] for i in order] if enc.type_ids else None
    multiple = 8 if device == "cuda" else 1
    rng = random.Random(0)

    def rate(cuts: list[range]) -> float:
        chunks = [
            pad(ids[r.start : r.stop], types[r.start : r.stop] if types else None, tokenizer.pad_id, multiple)
            for r in cuts
        ]
        rng.shuffle(chunks)
        for c in chunks[:2]:
            backend.forward(c)  # warm-up: kernels chosen, memory allocated
        done, t0 = 0, time.perf_counter()
        for c in chunks:
            backend.forward(c)
            done += c.rows
            if time.perf_counter() - t0 > budget_s:
                break
        return done / (time.perf_counter() - t0)

    by_batch: dict[str, float] = {}
    for bs in batches:
        by_batch[str(bs)] = rate([range(i, min(i + bs, len(ids))) for i in range(0, len(ids), bs)])
        say(f"  ceiling, {bs} rows: {by_batch[str(bs)]:,.0f} pairs/s")
    limits = DEVICE_DEFAULTS[device]
    plan = plan_micro_batches([-(-len(x) // multiple) * multiple for x in ids], limits.token_budget, limits.max_rows, 0)
    by_batch["planned"] = rate(plan)
    say(
        f"  ceiling, planned ({limits.token_budget} tokens, {limits.max_rows} rows): {by_batch['planned']:,.0f} pairs/s"
    )
    best = max(by_batch, key=by_batch.get)
    lengths = [len(x) for x in ids]
    return {
        "pairs_per_s": by_batch[best],
        "best": best,
        "by_batch": by_batch,
        "pairs": len(ids),
        "mean_tokens": float(np.mean(lengths)),
        "p95_tokens": float(np.percentile(lengths, 95)),
    }


# -- the service -----------------------------------------------------------------------------------------
def gpu_summary(log: Path, since: float) -> dict:
    """Mean utilisation and peak memory from the monitor's lines (nvidia-smi: local time, %, MiB) written
    after ``since`` (epoch seconds)."""
    from datetime import datetime

    util, mem = [], []
    if log.exists():
        for line in log.read_text().splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != 3:
                continue
            try:
                stamp = datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                u, m = float(parts[1]), float(parts[2])
            except ValueError:
                continue
            if stamp >= since:
                util.append(u)
                mem.append(m)
    return {"gpu_util_pct": statistics.mean(util) if util else None, "gpu_mem_mib": max(mem) if mem else None}


def service_steps(
    plan: GpuPlan, stored, env: dict, logs: Path, bodies: list[dict], clock: Clock, out: list[dict]
) -> None:
    """Appends each step's row to ``out`` as it finishes (a run stopped early keeps the steps it ran)."""
    single = [{**b, "hypothesis_template": "{}"} for b in bodies]
    batch_bodies = [
        {"items": single[i : i + plan.batch_items]} for i in range(0, len(single) - plan.batch_items, plan.batch_items)
    ]
    for workers in plan.workers:
        if not clock.allows(f"service, {workers} workers", 30 + plan.step_s * 2):
            continue
        senv = {
            **env,
            "ZSC_MODEL": stored.tag,
            "ZSC_DEVICE": plan.device,
            "ZSC_RUNTIME": "torch",
            "ZSC_WORKERS": str(workers),
            "ZSC_CACHE_LOCAL_ENTRIES": "0",  # every request costs the model
            "ZSC_MAX_CONCURRENCY": "0",  # the load, not BentoML's limit, decides
        }
        name = f"serve-w{workers}"
        t_start = time.monotonic()
        with running(bento_serve(name, free_port(), logs / name, senv, log=logs / f"{name}.log"), 600) as server:
            say(f"service, {workers} workers: ready in {time.monotonic() - t_start:.0f} s")
            steps = [("/classify", c, single, plan.n_labels) for c in plan.classify_concurrency]
            steps += [
                ("/classify_batch", c, batch_bodies, plan.n_labels * plan.batch_items) for c in plan.batch_concurrency
            ]
            for endpoint, concurrency, step_bodies, pairs_per_request in steps:
                if not clock.allows(f"{endpoint} c={concurrency}, {workers} workers", plan.step_s + plan.warmup_s + 5):
                    continue
                since = time.time() + plan.warmup_s
                r = run_load(
                    f"{server.url}{endpoint}",
                    step_bodies,
                    concurrency,
                    plan.step_s,
                    plan.warmup_s,
                    check=well_formed if endpoint == "/classify" else well_formed_batch,
                    processes=plan.load_processes,
                )
                row = {
                    "workers": workers,
                    "endpoint": endpoint,
                    "concurrency": concurrency,
                    **r.as_dict(),
                    "pairs_per_s": r.answered_per_s * pairs_per_request,
                    **gpu_summary(logs / "gpu.csv", since),
                }
                out.append(row)
                say(
                    f"  {endpoint} c={concurrency}: {row['pairs_per_s']:,.0f} pairs/s answered "
                    f"({r.requests_per_s:,.0f} requests/s sent), "
                    f"p50/p95/p99 {ms(r.p50_ms)}/{ms(r.p95_ms)}/{ms(r.p99_ms)} ms, failures {r.failures}, "
                    f"GPU {row['gpu_util_pct'] or 0:.0f}%"
                )


def well_formed_batch(_status: int, payload: dict) -> bool:
    return isinstance(payload, dict) and all(well_formed(200, r) for r in payload.get("results") or [None])


def naive_steps(plan: GpuPlan, stored, env: dict, logs: Path, bodies: list[dict], clock: Clock) -> list[dict]:
    if not clock.allows("naive pipeline", 40):
        return []
    out = []
    member = naive_server("naive", free_port(), logs, stored.path, "nli", "{}", env, device=plan.device)
    with running(member, 300) as server:
        for c in plan.naive_concurrency:
            r = run_load(f"{server.url}/classify", bodies, c, plan.step_s, plan.warmup_s, well_formed)
            out.append({"concurrency": c, **r.as_dict(), "pairs_per_s": r.answered_per_s * plan.n_labels})
            say(f"  naive c={c}: {out[-1]['pairs_per_s']:,.0f} pairs/s, p99 {ms(r.p99_ms)} ms")
    return out


# -- the run ---------------------------------------------------------------------------------------------
def run(plan: GpuPlan, out: Path, work: Path, results: dict) -> None:
    """Fill ``results`` part by part: a part that fails is recorded under ``errors`` and the run goes on, so
    one broken step (or the device tool's time limit) costs that step, not the whole lease."""
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    clock = Clock(plan.budget_s)
    home = work / "bentoml_home"
    env = {**os.environ, **QUIET_ENV, "BENTOML_HOME": str(home)}
    results.update(
        plan=asdict(plan),
        machine={**machine_info(), **versions(("torch", "transformers", "tokenizers", "bentoml"), servers=False)},
        started=time.time(),
        errors={},
        skipped=clock.skipped,
    )
    monitor = start_gpu_monitor(logs / "gpu.csv") if plan.device == "cuda" else None
    try:
        results["gpu"] = gpu_name() if plan.device == "cuda" else None
        stored = prepare_models(work, env, sorted({"tiny", plan.service_model}))
        bodies = make_bodies(max(plan.parity_requests, plan.ceiling_pairs // plan.n_labels, 4000), plan.n_labels)
        with part(results, "parity", "parity: torch fp16 on the device vs fp32 on the CPU"):
            results["parity"] = {}
            for name in sorted(stored):
                results["parity"][name] = parity(stored[name], plan.device, bodies[: plan.parity_requests])
                say(f"  {name}: {results['parity'][name]}")
        with part(results, "ceiling", "ceiling: raw forward over the workload's pairs"):
            results["ceiling"] = ceiling(
                stored[plan.service_model],
                plan.device,
                bodies[: plan.ceiling_pairs // plan.n_labels],
                plan.ceiling_batches,
                budget_s=max(2.0, plan.step_s),
            )
        with part(results, "service", "service"):
            results["service"] = []
            service_steps(plan, stored[plan.service_model], env, logs, bodies, clock, results["service"])
        with part(results, "naive", "naive pipeline"):
            results["naive"] = naive_steps(plan, stored[plan.service_model], env, logs, bodies, clock)
    finally:
        if monitor is not None:
            monitor.stop(grace=2)
        results["finished"] = time.time()


@contextlib.contextmanager
def part(results: dict, name: str, title: str):
    say(title)
    try:
        yield
    except Exception as e:  # noqa: BLE001 - recorded in the report; the next part still runs
        results["errors"][name] = f"{type(e).__name__}: {e}"[:2000]
        say(f"  {name} failed: {results['errors'][name]}")


def start_gpu_monitor(log: Path):
    """nvidia-smi's sampler, or None (said) where it is not found: utilisation is then unreported."""
    try:
        return start(gpu_monitor(log))
    except HarnessError as e:
        say(f"  no GPU monitor: {e}")
        return None


def gpu_name() -> str:
    import torch

    return torch.cuda.get_device_name(0)


# -- report ----------------------------------------------------------------------------------------------
def headline(results: dict) -> dict:
    """The best end-to-end step with p99 under the goal's bound, as a share of the ceiling and a multiple
    of the naive pipeline."""
    ok = [s for s in results.get("service", []) if s["failures"] == 0 and s["p99_ms"] < GOAL_P99_MS]
    best = max(ok, key=lambda s: s["pairs_per_s"], default=None)
    naive = max((s["pairs_per_s"] for s in results.get("naive", [])), default=None)
    ceiling_rate = results.get("ceiling", {}).get("pairs_per_s")
    return {
        "best": best,
        "share_of_ceiling": best["pairs_per_s"] / ceiling_rate if best and ceiling_rate else None,
        "times_naive": best["pairs_per_s"] / naive if best and naive else None,
        "goal_met": bool(best and best["pairs_per_s"] >= GOAL_PAIRS_PER_S),
    }


def _latencies(s: dict) -> str:
    return f"{ms(s['p50_ms'])} / {ms(s['p95_ms'])} / {ms(s['p99_ms'])}"


def _num(v: float | None) -> str:
    return "—" if v is None else f"{v:.0f}"


def markdown(results: dict) -> str:
    m, plan = results["machine"], results["plan"]
    h = headline(results)
    lines = [
        f"GPU benchmark on {results.get('gpu') or plan['device']}: {m['cpu']}, {m['cpus']} CPUs; Python {m['python']}, "
        f"torch {m.get('torch')}, transformers {m.get('transformers')}, BentoML {m.get('bentoml')}. "
        f"Run took {(results['finished'] - results['started']) / 60:.1f} min; model: StructBERT zh, "
        f"{'12 x 768 (base)' if plan['service_model'] == 'base' else '2 x 32 (tiny)'}, random weights; "
        f"{plan['n_labels']} labels per request.",
        "",
        "## Headline",
        "",
    ]
    best = h["best"]
    if best:
        lines += [
            f"Best end to end with p99 under {GOAL_P99_MS} ms and no failures: "
            f"**{best['pairs_per_s']:,.0f} pairs/s** ({best['endpoint']}, {best['workers']} workers, "
            f"{best['concurrency']} clients; p99 {best['p99_ms']:.0f} ms) "
            f"= {h['share_of_ceiling']:.2f} × the raw forward ceiling"
            + (f", {h['times_naive']:.0f} × the naive pipeline" if h["times_naive"] else "")
            + f". Goal {GOAL_PAIRS_PER_S:,} pairs/s: {'met' if h['goal_met'] else 'not met'}.",
        ]
    else:
        lines.append("No service step finished without failures under the p99 bound.")
    lines += ["", "## Parity: torch on the device vs fp32 on the CPU", ""]
    lines += table(
        ["model", "device backend", "requests", "max |Δscore|", "mean |Δscore|", "top-1 agreement"],
        [
            [
                name,
                p["backend"],
                p["requests"],
                f"{p['max_score_diff']:.2e}",
                f"{p['mean_score_diff']:.2e}",
                f"{p['top1_agreement']:.3f}",
            ]
            for name, p in results.get("parity", {}).items()
        ],
    )
    c = results.get("ceiling")
    if c:
        lines += [
            "",
            f"## Ceiling: raw forward, {c['pairs']} workload pairs "
            f"(mean {c['mean_tokens']:.0f} tokens, p95 {c['p95_tokens']:.0f})",
            "",
        ]
        lines += table(["rows per forward", "pairs/s"], [[k, f"{v:,.0f}"] for k, v in c["by_batch"].items()])
    lines += ["", "## Service: `bentoml serve`, one GPU, each worker its own model copy", ""]
    lines += table(
        ["workers", "endpoint", "clients", "pairs/s answered", "requests/s sent", "p50 / p95 / p99 ms", "failures",
         "GPU %", "GPU MiB"],
        [
            [s["workers"], f"`{s['endpoint']}`", s["concurrency"], f"{s['pairs_per_s']:,.0f}",
             f"{s['requests_per_s']:,.0f}", _latencies(s), s["failures"], _num(s["gpu_util_pct"]),
             _num(s["gpu_mem_mib"])]
            for s in results.get("service", [])
        ],
    )  # fmt: skip
    lines += ["", "## Naive: transformers' zero-shot pipeline, one request at a time", ""]
    lines += table(
        ["clients", "pairs/s answered", "requests/s sent", "p50 / p95 / p99 ms"],
        [
            [s["concurrency"], f"{s['pairs_per_s']:,.0f}", f"{s['requests_per_s']:,.1f}", _latencies(s)]
            for s in results.get("naive", [])
        ],
    )  # fmt: skip
    if results.get("skipped"):
        lines += ["", "Skipped for time: " + "; ".join(results["skipped"]) + "."]
    for name, error in (results.get("errors") or {}).items():
        lines += ["", f"**{name} failed**: `{error}`"]
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    """Answered pairs/s against workers, a line per endpoint and client count, under the raw forward ceiling
    and over the naive pipeline."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.8))
    steps = sorted({(s["endpoint"], s["concurrency"]) for s in results.get("service", [])})
    for endpoint, clients in steps:
        rows = [s for s in results["service"] if (s["endpoint"], s["concurrency"]) == (endpoint, clients)]
        ax.plot([s["workers"] for s in rows], [s["pairs_per_s"] for s in rows], marker="o",
                linestyle="-" if endpoint == "/classify" else "--", label=f"{endpoint}, {clients} clients")  # fmt: skip
    ceiling_rate = results.get("ceiling", {}).get("pairs_per_s")
    if ceiling_rate:
        ax.axhline(ceiling_rate, color="black", linewidth=1, label="raw forward ceiling")
    naive = max((s["pairs_per_s"] for s in results.get("naive", [])), default=None)
    if naive:
        ax.axhline(naive, color="grey", linewidth=1, linestyle=":", label="naive pipeline")
    ax.set_ylim(0, 1.1 * max([ceiling_rate or 0, *(s["pairs_per_s"] for s in results.get("service", []))], default=1))
    ax.set_xscale("log", base=2)
    ax.set_xticks(results["plan"]["workers"], [str(w) for w in results["plan"]["workers"]])
    ax.set_xlabel("BentoML workers (each its own model copy on the one GPU)")
    ax.set_ylabel("pairs/s answered (200s only)")
    ax.set_title(f"{results.get('gpu') or results['plan']['device']}: {results['plan']['n_labels']} labels a request")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    save(fig, path, dpi=72)  # results/ is kept small (tests/tooling/test_results.py)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="result folder (default $OUT, else results/gpu-<time>)")
    parser.add_argument("--work", type=Path, help="checkpoints and model store (default /tmp/zsc-bench-gpu)")
    parser.add_argument("--workers", help="worker counts, e.g. 1,2,4,8")
    parser.add_argument("--budget-s", type=float, help="stop starting steps after this long (default 480)")
    parser.add_argument("--step-s", type=float, help="seconds per load step")
    args = parser.parse_args(argv)
    device = os.environ.get("ZSC_DEVICE", "cuda")
    plan = FULL if device == "cuda" else DRY
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            say("no CUDA device: run with ZSC_DEVICE=cpu for the dry run")
            return 2
    if args.workers:
        plan = replace(plan, workers=tuple(int(w) for w in args.workers.split(",")))
    if args.budget_s:
        plan = replace(plan, budget_s=args.budget_s)
    if args.step_s:
        plan = replace(plan, step_s=args.step_s)
    default_out = (
        Path(os.environ["OUT"]) if os.environ.get("OUT") else ROOT / "results" / time.strftime("gpu-%Y%m%d-%H%M%S")
    )
    out = (args.out or default_out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = (args.work or Path(tempfile.gettempdir()) / "zsc-bench-gpu").resolve()
    say(f"GPU benchmark ({'full' if device == 'cuda' else 'CPU dry run'}) -> {out}")
    # a `timeout` (or the device tool's limit) sends SIGTERM: unwind, stop the servers, write what was measured
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    results: dict = {}
    try:
        run(plan, out, work, results)
    finally:
        results.setdefault("finished", time.time())
        (out / "bench-gpu.json").write_text(json.dumps(results, indent=2))
        if "plan" in results:
            (out / "bench-gpu.md").write_text(markdown(results))
            print(markdown(results))
            with contextlib.suppress(ImportError):  # matplotlib: the GPU machine's image has it, a slim venv may not
                chart(results, out / "bench-gpu.png")
    return 0 if results.get("service") and not results.get("errors") else 1


if __name__ == "__main__":
    sys.exit(main())
