"""Jobs measured: throughput on one replica and on three behind nginx, and what a running job does to
interactive latency (docs/jobs.md).

    .venv/bin/python -m loadtest.jobs_bench                      # ~10 min on 2 cores
    .venv/bin/python -m loadtest.jobs_bench --job-items 2000 --big-job-items 5000 --window-s 15   # quicker

Each configuration is a fresh local cluster (harness/cluster.py: the cache's redis-server, the jobs'
append-only one, N replicas, nginx) on this machine. Throughput: one job of ``--job-items`` distinct items,
submitted through nginx, timed from submission to done. Interactive latency: ``--clients`` closed-loop
clients send /classify through nginx (distinct texts: no cache hits) for ``--window-s``, first alone, then
while a ``--big-job-items`` job runs (cancelled after the window): on one replica with the job worker's
default share (``ZSC_JOB_SHARE_PCT``=50) and with yielding off (100), and on three replicas with the
default, the workers yielding to any replica's interactive calls (``ZSC_JOB_YIELD_SCOPE=cluster``, the
default) and, for comparison, each only to its own (``replica``). Writes ``jobs-bench.json``,
``jobs-bench.md`` and ``jobs-bench.png`` into ``--out``. ``--roles``: interactive latency during a job on
one replica of today's role against an api replica beside a jobs replica (``loadtest/jobs_roles.py``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from harness import ROOT
from harness.cluster import ClusterSpec, down, up
from harness.jobs import cancel, status, submit, wait
from harness.progress import say
from harness.report import pyplot, save, table, write_results
from loadtest.loadgen import run_load
from loadtest.workload import load_rows

LABELS = ["sports", "business", "technology", "politics", "billing", "shipping"]


def texts(n: int, tag: str) -> list[str]:
    """``n`` distinct texts from the project's sentences (the tag keeps two sets from sharing cache rows)."""
    rows = [r.text for r in load_rows()]
    return [f"{rows[i % len(rows)]} ({tag} {i})" for i in range(n)]


@dataclass
class Throughput:
    replicas: int
    items: int
    seconds: float
    items_per_s: float


def job_throughput(url: str, replicas: int, n: int) -> Throughput:
    t0 = time.monotonic()
    job = submit(url, {"texts": texts(n, f"throughput-{replicas}"), "labels": LABELS})
    last = 0.0
    while (s := status(url, job["id"]))["state"] != "done":
        if time.monotonic() - last > 10:
            say(f"  {s['done']}/{s['total']} items ({s['items_per_s'] or 0:.0f}/s)")
            last = time.monotonic()
        time.sleep(0.5)
    seconds = time.monotonic() - t0
    return Throughput(replicas, n, seconds, n / seconds)


def interactive(url: str, args: argparse.Namespace, tag: str) -> dict:
    bodies = [{"text": t, "labels": LABELS} for t in texts(20000, f"interactive-{tag}")]
    result = run_load(f"{url}/classify", bodies, args.clients, args.window_s, warmup_s=3)
    return result.as_dict()


def with_job(url: str, args: argparse.Namespace, tag: str) -> dict:
    job = submit(url, {"texts": texts(args.big_job_items, f"big-{tag}"), "labels": LABELS})
    wait(url, job["id"], until=("running",), timeout=120)
    time.sleep(2)
    before = status(url, job["id"])
    load = interactive(url, args, tag)
    after = status(url, job["id"])
    cancel(url, job["id"])
    seconds = (after["elapsed_s"] - before["elapsed_s"]) or 1.0
    return {**load, "job_items_per_s": (after["done"] - before["done"]) / seconds, "job_done": after["done"]}


def cluster(run_dir: Path, replicas: int, env: dict[str, str]):
    spec = ClusterSpec(
        replicas=replicas, port=0, base_port=0, redis_port=0, jobs_redis_port=0, fresh_jobs=True, env=env
    )
    return up(run_dir, spec, say=lambda m: say(f"  {m}"))


@dataclass(frozen=True)
class Config:
    replicas: int
    share: int  # ZSC_JOB_SHARE_PCT
    scope: str  # ZSC_JOB_YIELD_SCOPE
    throughput: bool  # measure job throughput here
    runs: tuple[str, ...]  # interactive windows: "no job", "job"

    def name(self, run: str) -> str:
        if run == "no job":
            return f"{self.replicas} replica(s), no job"
        yields = " (each yields to its own replica only)" if self.scope == "replica" else ""
        return f"{self.replicas} replica(s), job, share {self.share} %{yields}"


PLAN = (
    Config(1, 50, "cluster", True, ("no job", "job")),
    Config(1, 100, "cluster", False, ("job",)),
    Config(3, 50, "cluster", True, ("no job", "job")),
    Config(3, 50, "replica", False, ("job",)),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--job-items", type=int, default=5000, help="items of the throughput job")
    parser.add_argument("--big-job-items", type=int, default=20000, help="items of the job run beside interactive load")
    parser.add_argument("--clients", type=int, default=4, help="interactive closed-loop clients")
    parser.add_argument("--window-s", type=float, default=30, help="interactive measuring window")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / f"jobs-{time.strftime('%Y%m%d')}")
    parser.add_argument("--roles", action="store_true", help="one role vs the roles apart (loadtest/jobs_roles.py)")
    parser.add_argument("--rounds", type=int, default=2, help="--roles: alternated rounds of both layouts")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.roles:
        from loadtest.jobs_roles import compare

        return compare(args)
    run_dir = args.out / "logs" / "cluster"
    results: dict = {"args": {k: str(v) for k, v in vars(args).items()}, "throughput": [], "interactive": {}}
    started = time.time()
    try:
        for c in PLAN:
            say(f"{c.replicas} replica(s), ZSC_JOB_SHARE_PCT={c.share}, ZSC_JOB_YIELD_SCOPE={c.scope}")
            env = {"ZSC_JOB_SHARE_PCT": str(c.share), "ZSC_JOB_YIELD_SCOPE": c.scope}
            state = cluster(run_dir, c.replicas, env)
            url = state.nginx.url
            if c.throughput:
                say(f"  job throughput, {args.job_items} items")
                results["throughput"].append(vars(job_throughput(url, c.replicas, args.job_items)))
            for run in c.runs:
                name = c.name(run)
                say(f"  interactive /classify, {args.clients} clients, {args.window_s:.0f} s: {name}")
                tag = f"{c.replicas}-{c.share}-{c.scope}-{run.replace(' ', '')}"
                measure = interactive if run == "no job" else with_job
                results["interactive"][name] = {"replicas": c.replicas, **measure(url, args, tag)}
            down(run_dir, quiet=True, say=lambda m: None)
    finally:
        down(run_dir, quiet=True, say=lambda m: None)
    results["seconds"] = time.time() - started
    write_results(args.out, "jobs-bench", results, report, chart)
    return 0


def report(results: dict) -> str:
    one, three = results["throughput"]
    alone = {r["replicas"]: r for name, r in results["interactive"].items() if name.endswith("no job")}
    lines = [
        "# Jobs: throughput and interactive latency",
        "",
        f"{time.strftime('%Y-%m-%d')}, this machine, {results['seconds']:.0f} s: `python -m loadtest.jobs_bench` "
        f"({results['args']['clients']} interactive clients, {float(results['args']['window_s']):.0f} s windows).",
        "",
        "## Job throughput (submitted through nginx, timed to done)",
        "",
        *table(
            ["replicas", "items", "seconds", "items/s", "vs 1 replica"],
            [
                (
                    t["replicas"],
                    t["items"],
                    f"{t['seconds']:.1f}",
                    f"{t['items_per_s']:.1f}",
                    f"{t['items_per_s'] / one['items_per_s']:.2f}x",
                )
                for t in (one, three)
            ],
        ),  # fmt: skip
        "",
        "## Interactive /classify with and without a job on the same replicas",
        "",
        *table(
            ["", "requests/s", "p50 ms", "p95 ms", "p95 vs no job", "job items/s meanwhile"],
            [
                (
                    name,
                    f"{r['requests_per_s']:.1f}",
                    f"{r['p50_ms']:.0f}",
                    f"{r['p95_ms']:.0f}",
                    f"{r['p95_ms'] / alone[r['replicas']]['p95_ms']:.2f}x",
                    f"{r['job_items_per_s']:.1f}" if "job_items_per_s" in r else "—",
                )
                for name, r in results["interactive"].items()
            ],
        ),  # fmt: skip
        "",
        "![jobs](jobs-bench.png)",
        "",
    ]
    return "\n".join(lines)


def chart(results: dict, path: Path) -> None:
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    t = results["throughput"]
    left.bar([f"{x['replicas']} replica(s)" for x in t], [x["items_per_s"] for x in t], color="#2457d6")
    left.set_title("job throughput (items/s)")
    names = list(results["interactive"])
    p95 = [results["interactive"][n]["p95_ms"] for n in names]
    p50 = [results["interactive"][n]["p50_ms"] for n in names]
    xs = range(len(names))
    right.bar([x - 0.2 for x in xs], p50, 0.4, label="p50")
    right.bar([x + 0.2 for x in xs], p95, 0.4, label="p95")
    right.set_xticks(list(xs), [n.replace(", ", "\n") for n in names], fontsize=8)
    right.set_title("interactive /classify latency (ms)")
    right.legend()
    save(fig, path)


if __name__ == "__main__":
    raise SystemExit(main())
