"""Interactive latency while a large job runs: today's single role against the roles apart (docs/jobs.md,
"Roles apart"). ``python -m loadtest.jobs_bench --roles`` runs it.

    .venv/bin/python -m loadtest.jobs_bench --roles --rounds 2 --big-job-items 5000 --window-s 15

Two layouts on the same machine, alternated ``--rounds`` times in one run (a shared machine drifts: the
alternation spreads its noise over both): ``single``, one replica of today's role (``ZSC_ROLE=all``) that
serves /classify and runs the job; ``roles``, one ``ZSC_ROLE=api`` replica that serves /classify and one
``ZSC_ROLE=jobs`` replica that runs the job, yielding to the api replica's interactive calls through the
jobs Redis (``ZSC_JOB_YIELD_SCOPE=cluster``). Both at the default job share (50 %), both behind the
harness's nginx (the jobs replica is not behind it: it serves no request). In each: interactive /classify
alone, then while a ``--big-job-items`` job runs.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from harness.cluster import down
from harness.launchers import bento_serve
from harness.net import free_port
from harness.process import start
from harness.progress import say
from harness.report import pyplot, save, table, write_results

LAYOUTS = {"single": "1 replica, ZSC_ROLE=all", "roles": "ZSC_ROLE=api + ZSC_ROLE=jobs replicas"}


def measure(layout: str, run_dir: Path, args: argparse.Namespace, tag: str) -> dict:
    from loadtest.jobs_bench import cluster, interactive, with_job

    common = {"ZSC_JOB_SHARE_PCT": "50", "ZSC_JOB_YIELD_SCOPE": "cluster"}
    state = cluster(run_dir, 1, {**common, **({"ZSC_ROLE": "api"} if layout == "roles" else {})})
    jobs = None
    try:
        if layout == "roles":
            [api] = state.replicas
            env = {**common, "ZSC_ROLE": "jobs", "ZSC_JOBS_REDIS_URL": state.jobs_redis.url,
                   "ZSC_REDIS_URL": state.redis.url, "ZSC_CPU_THREADS": str(api.threads or os.cpu_count())}  # fmt: skip
            jobs = start(bento_serve("jobs", free_port(), run_dir / "jobs", env)).wait_ready(300)
            say(f"  jobs replica ready ({jobs.ready_s:.0f} s)")
        url = state.nginx.url
        alone = interactive(url, args, f"{tag}-alone")
        during = with_job(url, args, f"{tag}-job")
        return {"alone": alone, "job": during}
    finally:
        if jobs is not None:
            jobs.stop()
        down(run_dir, quiet=True, say=lambda m: None)


def compare(args: argparse.Namespace) -> int:
    run_dir = args.out / "logs" / "cluster"
    results: dict = {"args": {k: str(v) for k, v in vars(args).items()}, "rounds": []}
    started = time.time()
    for n in range(args.rounds):
        for layout in ("single", "roles") if n % 2 == 0 else ("roles", "single"):
            say(f"round {n + 1}: {LAYOUTS[layout]}")
            got = measure(layout, run_dir, args, f"{layout}-{n}")
            results["rounds"].append({"round": n + 1, "layout": layout, **got})
            say(f"  p95 {got['alone']['p95_ms']:.0f} ms alone, {got['job']['p95_ms']:.0f} ms with the job")
    results["seconds"] = time.time() - started
    write_results(args.out, "jobs-roles", results, report, chart)
    return 0


def report(results: dict) -> str:
    rows = []
    for r in results["rounds"]:
        alone, job = r["alone"], r["job"]
        failed = sum(v for k, v in job["statuses"].items() if str(k) != "200")
        rows.append((r["round"], LAYOUTS[r["layout"]], f"{alone['p95_ms']:.0f}", f"{job['requests_per_s']:.1f}",
                     f"{job['p50_ms']:.0f}", f"{job['p95_ms']:.0f}", f"{job['p95_ms'] / alone['p95_ms']:.2f}x",
                     f"{job['job_items_per_s']:.1f}", failed))  # fmt: skip
    lines = [
        "# Interactive latency during a job: one role against the roles apart",
        "",
        f"{time.strftime('%Y-%m-%d')}, this machine, {results['seconds']:.0f} s: `python -m loadtest.jobs_bench "
        f"--roles` ({results['args']['clients']} clients, {float(results['args']['window_s']):.0f} s windows, "
        f"{results['args']['big_job_items']}-item job), layouts alternated.",
        "",
        *table(
            [
                "round",
                "layout",
                "p95 ms, no job",
                "requests/s, job",
                "p50 ms, job",
                "p95 ms, job",
                "p95 vs no job",
                "job items/s",
                "failed",
            ],
            rows,
        ),  # fmt: skip
        "",
        "![roles](jobs-roles.png)",
        "",
    ]
    return "\n".join(lines)


def chart(results: dict, path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    names = [f"round {r['round']}\n{r['layout']}" for r in results["rounds"]]
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], [r["alone"]["p95_ms"] for r in results["rounds"]], 0.4, label="p95, no job")
    ax.bar([x + 0.2 for x in xs], [r["job"]["p95_ms"] for r in results["rounds"]], 0.4, label="p95, job running")
    ax.set_xticks(list(xs), names, fontsize=8)
    ax.set_title("interactive /classify p95 (ms): one role vs the roles apart")
    ax.legend()
    save(fig, path)
