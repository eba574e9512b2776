"""Two models in one replica against one replica per model, on the same cores, with the same mixed load.

    .venv/bin/python -m loadtest.mixed                  # ~3 min on 2 cores -> results/mixed-<date>/
    .venv/bin/python -m loadtest.mixed --smoke          # ~1 min (CI)

Two request streams run at the same time, ``--clients`` closed-loop clients each: the multilingual model's
(the workload's Chinese and English rows, ``"model": "multilingual-e5-small"``) and the English model's (its
English rows, ``"model": "all-minilm-l6-v2"``); every text is distinct (a fresh seed each run), so the cache
answers nothing. Phase A sends both streams to one replica serving both models (ZSC_MODELS); phase B to two
replicas of one model each, running side by side. Every replica is pinned to the same CPUs
(``--server-cpus``, default all but the last; the load generator gets the last). Reported per model:
requests/s, pairs/s, p50/p95/p99 and failures in each phase; memory: the resident set of each phase's
process trees, and what each model took in the two-model replica (``GET /models``). Writes ``mixed.json``,
``mixed.md`` and ``mixed.png``.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

from harness.cpus import allowed_cpus, format_cpus, parse_cpus
from harness.launchers import bento_serve
from harness.net import free_port
from harness.process import running
from harness.progress import say
from harness.report import pyplot, result_folder, save, table, write_results
from harness.store import ensure_default
from loadtest.loadgen import LoadResult, add_load_options, run_load
from loadtest.workload import label_pools, load_rows, request_body

E5, MINILM = "multilingual-e5-small", "all-minilm-l6-v2"
LABELS = 5


@dataclass(frozen=True)
class Stream:
    model: str
    bodies: list[dict]


def streams(seed: int, n: int) -> list[Stream]:
    """The two streams' bodies: distinct texts (``seed`` varies them between runs), 5 labels each."""
    rows = load_rows()
    pools = label_pools(rows)
    rng = random.Random(seed)
    out = []
    for model, wanted in ((E5, ("zh", "en")), (MINILM, ("en",))):
        mine = [r for r in rows if r.lang in wanted]
        bodies = []
        for i in range(n):
            body = request_body(mine[i % len(mine)], pools, rng, LABELS)
            body["text"] = f"{body['text']} (run {seed}, {i})"  # distinct: no cache hit in any phase
            bodies.append({**body, "model": model})
        out.append(Stream(model, bodies))
    return out


def tree_rss_mb(url: str) -> float:
    """Resident memory of the process tree listening on the URL's port."""
    port = int(url.rsplit(":", 1)[1])
    for conn in psutil.net_connections("tcp"):
        if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN and conn.pid:
            root = psutil.Process(conn.pid)
            while root.parent() is not None and "bentoml" in " ".join(root.parent().cmdline()):
                root = root.parent()
            procs = [root, *root.children(recursive=True)]
            return sum(p.memory_info().rss for p in procs if p.is_running()) / 2**20
    return float("nan")


def load_both(targets: dict[str, str], plan: dict[str, Stream], clients: int, step_s: float) -> dict[str, LoadResult]:
    """Both streams at once, each to its target's /classify: one thread (its own event loop) per stream."""
    results: dict[str, LoadResult] = {}

    def one(model: str) -> None:
        results[model] = run_load(f"{targets[model]}/classify", plan[model].bodies, clients, step_s, warmup_s=2)

    threads = [threading.Thread(target=one, args=(m,)) for m in plan]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def summary(result: LoadResult) -> dict:
    out = result.as_dict()
    out["pairs_per_s"] = result.requests_per_s * LABELS
    return out


def run(args: argparse.Namespace, out: Path) -> dict:
    env = {"BENTOML_HOME": str(args.home)} if args.home else {}
    say("models: making sure both bundled ones are in the store")
    ensure_default({**env, "ZSC_MODELS": f"{E5},{MINILM}"})
    cpus = allowed_cpus()
    server = parse_cpus(args.server_cpus) if args.server_cpus else (cpus[:-1] or cpus)
    plan = {s.model: s for s in streams(args.seed, 20_000)}
    threads = str(len(server))
    base = {**env, "ZSC_CPU_THREADS": threads}
    results: dict = {"clients_per_stream": args.clients, "step_s": args.step_s, "server_cpus": format_cpus(server)}
    logs = out / "logs"

    # A: one replica, both models
    say(f"A: one replica serving {E5} and {MINILM} on CPUs {format_cpus(server)}")
    member = bento_serve("both", free_port(), logs / "both", {**base, "ZSC_MODELS": f"{E5},{MINILM}"}, server)
    with running(member, ready_timeout=300) as both:
        rss_idle = tree_rss_mb(both.url)
        models = httpx.get(f"{both.url}/models", timeout=30).json()["models"]
        measured = load_both({E5: both.url, MINILM: both.url}, plan, args.clients, args.step_s)
        results["one_replica"] = {
            "models": {m: summary(r) for m, r in measured.items()},
            "rss_mb": rss_idle,
            "model_memory_mb": {m["name"]: m["memory_mb"] for m in models},
        }
    for m, r in measured.items():
        say(f"  {m}: {r.requests_per_s:.1f} req/s, p95 {r.p95_ms:.0f} ms, failures {r.failures}")

    # B: one replica per model, side by side on the same CPUs
    say("B: one replica per model, side by side on the same CPUs")
    plan_b = {m: Stream(m, s.bodies[10_000:]) for m, s in plan.items()}  # new texts: each stream's other half
    with contextlib.ExitStack() as stack:
        urls, rss = {}, {}
        for model in (E5, MINILM):
            member = bento_serve(model, free_port(), logs / model, {**base, "ZSC_MODEL": model}, server)
            urls[model] = stack.enter_context(running(member, ready_timeout=300)).url
        for model, url in urls.items():
            rss[model] = tree_rss_mb(url)
        measured = load_both(urls, plan_b, args.clients, args.step_s)
        results["replica_per_model"] = {"models": {m: summary(r) for m, r in measured.items()}, "rss_mb": rss}
    for m, r in measured.items():
        say(f"  {m}: {r.requests_per_s:.1f} req/s, p95 {r.p95_ms:.0f} ms, failures {r.failures}")
    return results


def report(results: dict) -> str:
    one, per = results["one_replica"], results["replica_per_model"]
    rows = []
    for model in (E5, MINILM):
        a, b = one["models"][model], per["models"][model]
        rows.append(
            [
                model,
                f"{a['requests_per_s']:.1f} / {b['requests_per_s']:.1f}",
                f"{a['requests_per_s'] / b['requests_per_s']:.2f}" if b["requests_per_s"] else "—",
                f"{a['p50_ms']:.0f} / {b['p50_ms']:.0f}",
                f"{a['p95_ms']:.0f} / {b['p95_ms']:.0f}",
                f"{a['failures']} / {b['failures']}",
            ]
        )
    lines = [
        f"Two request streams at once, {results['clients_per_stream']} closed-loop clients each, "
        f"{results['step_s']:.0f} s, every text distinct; servers on CPUs {results['server_cpus']}.",
        "",
        *table(["model", "req/s: one replica / one per model", "ratio", "p50 ms", "p95 ms", "failures"], rows),
        "",
        f"Memory: the two-model replica {one['rss_mb']:.0f} MB resident; the two one-model replicas "
        f"{per['rss_mb'][E5]:.0f} + {per['rss_mb'][MINILM]:.0f} = {sum(per['rss_mb'].values()):.0f} MB. "
        "Each model's load in the two-model replica (GET /models): "
        + ", ".join(f"{m} {mb:.0f} MB" for m, mb in one["model_memory_mb"].items())
        + ".",
    ]
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    models = [E5, MINILM]
    for i, (phase, label) in enumerate(
        (("one_replica", "one replica, both models"), ("replica_per_model", "one replica per model"))
    ):
        rps = [results[phase]["models"][m]["requests_per_s"] for m in models]
        p95 = [results[phase]["models"][m]["p95_ms"] for m in models]
        xs = [x + (i - 0.5) * 0.38 for x in range(len(models))]
        left.bar(xs, rps, 0.38, label=label)
        right.bar(xs, p95, 0.38, label=label)
    for ax, what in ((left, "requests / s (higher is better)"), (right, "p95 ms (lower is better)")):
        ax.set_xticks(range(len(models)), models)
        ax.set_title(what)
        ax.legend(fontsize=8)
    fig.suptitle("Two models in one replica vs one replica per model, same cores, same mixed load")
    save(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="CI size: 4 clients per stream, 5 s")
    add_load_options(parser, clients=8, step_s=30)
    parser.add_argument("--server-cpus", help="the replicas' CPU set (default: all but the last CPU)")
    parser.add_argument("--home", type=Path, help="BENTOML_HOME (default: BentoML's)")
    parser.add_argument("--out", type=Path, help="result folder (default results/mixed-<date>)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.clients, args.step_s = 4, 5
    out = result_folder(args.out, "mixed")
    started = time.monotonic()
    results = run(args, out)
    results["minutes"] = round((time.monotonic() - started) / 60, 1)
    write_results(out, "mixed", results, report, chart, show=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
