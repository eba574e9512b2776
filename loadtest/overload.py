"""One replica at ten times its capacity: how fast it sheds, what the accepted requests wait, how much
memory it takes, and how soon it recovers (docs/reliability.md).

    .venv/bin/python -m loadtest.overload                       # ~4 min on 2 cores
    .venv/bin/python -m loadtest.overload --overload-s 15 --max-concurrency 256   # one setting, quicker

For each ``--max-concurrency`` (ZSC_MAX_CONCURRENCY) a fresh replica (`bentoml serve`, the default model
unless ``--model``) runs on this machine, and three phases follow, every text distinct (no cache hits):

1. capacity: ``--clients`` closed-loop clients for ``--capacity-s``: the requests/s the replica sustains;
2. baseline: open-loop arrivals at half that rate for ``--recovery-s``: the latency of a calm replica;
3. overload: open-loop arrivals at ``--factor`` times the capacity for ``--overload-s``, each request timed
   out by the client after ``--client-timeout-s``;
4. recovery: the baseline's load again for ``--recovery-s``. The recovery time is from the drop to the
   first second from which on every request is a 200 and their p99 is within 1.5 times the baseline's.

The replica runs on ``--replica-cpus`` (default: the last half of this machine's CPUs) and the load
generator on the others, so that the generator's own work (hundreds of requests a second) does not take
the replica's CPU. The replica's memory (resident set of its process tree) is sampled every 0.25 s. Writes
``overload.json``, ``overload.md`` and ``overload.png`` (per second: offered, accepted, shed; the accepted
requests' p99; memory) into ``--out``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import psutil

from harness import ROOT
from harness.cpus import allowed_cpus, format_cpus, parse_cpus
from harness.launchers import bento_serve
from harness.net import free_port
from harness.process import running
from harness.progress import say
from harness.report import pyplot, save, table, write_results
from harness.store import ensure_default
from loadtest.loadgen import run_load
from loadtest.rawhttp import Client, ConnectionFailed
from loadtest.workload import load_rows

LABELS = ["sports", "business", "technology", "politics", "billing", "shipping"]


@dataclass
class Sent:
    at: float  # seconds from the phase's start
    status: str  # HTTP status, or the client error's name
    latency_s: float


class Bodies:
    """Distinct /classify bodies: the project's sentences, each with a running number."""

    def __init__(self) -> None:
        self.rows = [r.text for r in load_rows()]
        self.n = 0

    def next(self) -> dict:
        self.n += 1
        return {"text": f"{self.rows[self.n % len(self.rows)]} ({self.n})", "labels": LABELS}

    def many(self, n: int) -> list[dict]:
        return [self.next() for _ in range(n)]


@dataclass
class Phase:
    sent: list[Sent]
    opened: list[float]  # when the client opened each new connection, seconds from the phase's start


async def open_loop(url: str, bodies: Bodies, rate: float, seconds: float, timeout_s: float) -> Phase:
    """Requests at ``rate`` per second for ``seconds``, each sent on time whatever the answers do, from a pool
    that opens a connection whenever none is free (a client fleet that grows with the load), through the lean
    client of ``loadtest.rawhttp`` (aiohttp saturated this core at these rates and timed its own lag). The
    bodies are encoded before the clock runs. What earlier phases left (tens of thousands of results) is
    moved out of the collector's sight first: a full collection of this process mid-phase would pause the
    loop, and the pause would be timed as the replica's latency."""
    target = urlsplit(url)
    client = Client(target.hostname or "127.0.0.1", target.port or 80)
    total = int(rate * seconds)
    requests = [client.request("/classify", json.dumps(bodies.next()).encode()) for _ in range(total)]
    gc.collect()
    gc.freeze()
    out: list[Sent] = []
    start = time.perf_counter()

    async def one(request: bytes) -> None:
        t0 = time.perf_counter()
        try:
            status = str(await client.send(request, timeout_s))
        except (TimeoutError, OSError, ConnectionFailed) as exc:
            status = type(exc).__name__
        out.append(Sent(t0 - start, status, time.perf_counter() - t0))

    tasks = []
    try:
        for i, request in enumerate(requests):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(request)))
        await asyncio.gather(*tasks)
    finally:
        client.close()
    return Phase(out, [at - start for at in client.opened])


class MemorySampler:
    """Resident memory of a process and its children, every ``interval`` seconds, in a thread."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid, self.interval = pid, interval
        self.samples: list[tuple[float, float]] = []  # (monotonic time, MiB)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                root = psutil.Process(self.pid)
                procs = [root, *root.children(recursive=True)]
                rss = sum(p.memory_info().rss for p in procs if p.is_running())
                self.samples.append((time.monotonic(), rss / 2**20))
            except psutil.Error:
                pass
            self._stop.wait(self.interval)

    def peak(self, since: float = 0.0, until: float = float("inf")) -> float:
        values = [mib for t, mib in self.samples if since <= t <= until]
        return max(values) if values else float("nan")


def percentile_ms(values: list[float], q: float) -> float | None:
    return float(np.percentile(np.array(values) * 1000, q)) if values else None


def summarise(sent: list[Sent]) -> dict:
    accepted = [s.latency_s for s in sent if s.status == "200"]
    shed = [s.latency_s for s in sent if s.status in ("429", "503")]
    statuses: dict[str, int] = {}
    for s in sent:
        statuses[s.status] = statuses.get(s.status, 0) + 1
    return {
        "sent": len(sent),
        "accepted": len(accepted),
        "shed": len(shed),
        "failed": len(sent) - len(accepted) - len(shed),
        "statuses": statuses,
        "accepted_p50_ms": percentile_ms(accepted, 50),
        "accepted_p99_ms": percentile_ms(accepted, 99),
        "accepted_max_ms": max(accepted) * 1000 if accepted else None,
        "shed_p99_ms": percentile_ms(shed, 99),
    }


def recovery_s(sent: list[Sent], slow_ms: float) -> float:
    """The first whole second of the recovery phase from which on (by send time) every request was a 200
    and their p99 was within ``slow_ms``: one slow request late in the window (a collection, a scrape)
    does not undo a recovery, a backlog still draining does."""
    end = int(max((s.at for s in sent), default=0)) + 1
    for t in range(end + 1):
        after = [s for s in sent if s.at >= t]
        if not after:
            return float(t)
        if all(s.status == "200" for s in after) and (percentile_ms([s.latency_s for s in after], 99) or 0) <= slow_ms:
            return float(t)
    return float(end)


def per_second(phase: Phase, offset: float) -> list[dict]:
    buckets: dict[int, list[Sent]] = {}
    for s in phase.sent:
        buckets.setdefault(int(s.at + offset), []).append(s)
    opened: dict[int, int] = {}
    for at in phase.opened:
        opened[int(at + offset)] = opened.get(int(at + offset), 0) + 1
    return [
        {
            "t": t,
            "offered": len(b),
            "accepted": sum(s.status == "200" for s in b),
            "shed": sum(s.status in ("429", "503") for s in b),
            "failed": sum(s.status not in ("200", "429", "503") for s in b),
            "accepted_p99_ms": percentile_ms([s.latency_s for s in b if s.status == "200"], 99),
            "connections_opened": opened.get(t, 0),
        }
        for t, b in sorted(buckets.items())
    ]


def run_setting(
    args: argparse.Namespace, max_concurrency: int, workers: int, env: dict[str, str], workdir: Path
) -> dict:
    port = free_port()
    settings = {
        "ZSC_MAX_CONCURRENCY": str(max_concurrency),
        "ZSC_WORKERS": str(workers),
        "ZSC_CPU_THREADS": str(max(1, len(args.replica_cpus) // workers)),
    }
    if args.target_latency_ms is not None:
        settings["ZSC_TARGET_LATENCY_MS"] = str(args.target_latency_ms)
    if args.model:
        settings["ZSC_MODEL"] = args.model
    member = bento_serve(f"replica-{workers}w", port, workdir, {**env, **settings}, cpus=args.replica_cpus)
    bodies = Bodies()
    with running(member) as replica, MemorySampler(replica.pid) as memory:
        url = replica.url
        time.sleep(1)  # a few samples of the idle replica
        idle_mib = memory.peak()
        say(f"  capacity: {args.clients} closed-loop clients, {args.capacity_s:.0f} s")
        capacity = run_load(f"{url}/classify", bodies.many(20000), args.clients, args.capacity_s, warmup_s=3)
        rate = capacity.requests_per_s
        say(f"  {rate:.1f} requests/s, p99 {capacity.p99_ms:.0f} ms")
        say(f"  baseline: {rate / 2:.1f} requests/s for {args.recovery_s:.0f} s")
        baseline = asyncio.run(open_loop(url, bodies, rate / 2, args.recovery_s, args.client_timeout_s))
        say(f"  overload: {args.factor:g} x = {rate * args.factor:.0f} requests/s for {args.overload_s:.0f} s")
        t_over = time.monotonic()
        overload = asyncio.run(open_loop(url, bodies, rate * args.factor, args.overload_s, args.client_timeout_s))
        t_recover = time.monotonic()
        say(f"  recovery: {rate / 2:.1f} requests/s for {args.recovery_s:.0f} s")
        recovery = asyncio.run(open_loop(url, bodies, rate / 2, args.recovery_s, args.client_timeout_s))
        t_end = time.monotonic()
        after = httpx_ok(url)
    over, calm = summarise(overload.sent), summarise(baseline.sent)
    slow_ms = 1.5 * (calm["accepted_p99_ms"] or capacity.p99_ms)
    result = {
        "max_concurrency": max_concurrency,
        "workers": workers,
        "target_latency_ms": args.target_latency_ms,
        "capacity": capacity.as_dict(),
        "offered_per_s": rate * args.factor,
        "overload": over,
        "baseline": calm,
        "recovery": {
            **summarise(recovery.sent),
            "recovery_s": recovery_s(recovery.sent, slow_ms),
            "slow_ms": slow_ms,
            # the yardstick: from 5 s after the drop on, p99 against the calm replica's
            "p99_after_5s_ms": summarise([x for x in recovery.sent if x.at >= 5])["accepted_p99_ms"],
        },
        "answered_share": over["accepted"] / args.overload_s / rate if rate else 0.0,
        "memory_mib": {
            "idle": idle_mib,
            "capacity_peak": memory.peak(0, t_over),
            "overload_peak": memory.peak(t_over, t_recover),
            "recovery_peak": memory.peak(t_recover, t_end),
        },
        "alive_after": after,
        "timeline": per_second(overload, 0) + per_second(recovery, args.overload_s),
        "memory_timeline": [(t - t_over, mib) for t, mib in memory.samples if t >= t_over],
    }
    say(
        f"  sent {over['sent']}, accepted {over['accepted']}, shed {over['shed']}, failed {over['failed']}; "
        f"accepted p99 {over['accepted_p99_ms'] or 0:.0f} ms; recovered in {result['recovery']['recovery_s']:.1f} s; "
        f"memory peak {result['memory_mib']['overload_peak']:.0f} MiB"
    )
    return result


def httpx_ok(url: str) -> bool:
    import httpx

    return httpx.get(f"{url}/readyz", timeout=10).status_code == 200


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="ZSC_MODEL for the replica (default: the service's default)")
    parser.add_argument("--max-concurrency", type=int, nargs="+", default=[256], help="ZSC_MAX_CONCURRENCY values")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="ZSC_WORKERS values (each a run)")
    parser.add_argument("--target-latency-ms", type=int, help="ZSC_TARGET_LATENCY_MS (default: the service's)")
    parser.add_argument("--clients", type=int, default=8, help="closed-loop clients of the capacity phase")
    parser.add_argument("--capacity-s", type=float, default=15)
    parser.add_argument("--factor", type=float, default=10, help="overload = this times the measured capacity")
    parser.add_argument("--overload-s", type=float, default=30)
    parser.add_argument("--recovery-s", type=float, default=20)
    parser.add_argument("--client-timeout-s", type=float, default=60, help="= ZSC_TIMEOUT_S by default")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / f"overload-{time.strftime('%Y%m%d')}")
    parser.add_argument("--replica-cpus", help="CPUs of the replica, e.g. 1 or 2-3 (default: the last half)")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report and chart from --out's json")
    args = parser.parse_args()
    if args.report_only:
        results = json.loads((args.out / "overload.json").read_text())
        write_results(args.out, "overload", results, report, chart)
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    mine = allowed_cpus()
    args.replica_cpus = parse_cpus(args.replica_cpus) if args.replica_cpus else mine[len(mine) // 2 :]
    generator = [c for c in mine if c not in args.replica_cpus] or mine
    os.sched_setaffinity(0, generator)  # this process (the load generator), not the replica
    say(f"replica on CPUs {format_cpus(args.replica_cpus)}, load generator on {format_cpus(generator)}")
    # the caller's model store (as `make cluster` uses it), the bundled model imported on first use
    env = {**os.environ, "BENTOML_HOME": str(Path(os.environ.get("BENTOML_HOME") or Path.home() / "bentoml").resolve())}
    if not args.model:
        say(f"model store {env['BENTOML_HOME']}: making sure the bundled model is in it")
        ensure_default(env)
    results: dict = {"args": {k: str(v) for k, v in vars(args).items()}, "runs": []}
    started = time.time()
    for limit in args.max_concurrency:
        for workers in args.workers:
            say(f"ZSC_MAX_CONCURRENCY={limit}, ZSC_WORKERS={workers}")
            folder = args.out / "logs" / f"max-concurrency-{limit}-workers-{workers}"
            results["runs"].append(run_setting(args, limit, workers, env, folder))
    results["seconds"] = time.time() - started
    write_results(args.out, "overload", results, report, chart)
    say(f"took {results['seconds']:.0f} s")
    return 0


def _after(recovery: dict, baseline: dict) -> str:
    after, calm = recovery.get("p99_after_5s_ms") or 0, baseline["accepted_p99_ms"] or 1
    return f"{after:.0f} ({after / calm:.2f}x)"


def worst_window(run: dict, overload_s: float) -> str:
    """The overload's slowest 1-second window (accepted p99) and how many were over twice the target (the
    service's default on a CPU when none was set): the bound the learned limit keeps from the first second."""
    bound = 2 * (run.get("target_latency_ms") or 500)
    p99s = [w["accepted_p99_ms"] or 0 for w in run["timeline"] if w["t"] < overload_s]
    return f"{max(p99s, default=0):.0f} ({sum(p > bound for p in p99s)})"


def report(results: dict) -> str:
    a = results["args"]
    rows = []
    for r in results["runs"]:
        o, rec, m = r["overload"], r["recovery"], r["memory_mib"]
        overload_s = float(a["overload_s"])
        opened = sum(w.get("connections_opened", 0) for w in r["timeline"] if w["t"] < overload_s)
        rows.append([
            r.get("workers", 1),
            r["max_concurrency"],
            r.get("target_latency_ms") or "default",
            f"{r['capacity']['requests_per_s']:.1f}",
            f"{r['baseline']['accepted_p99_ms'] or 0:.0f}",
            f"{r['offered_per_s']:.0f}",
            o["sent"], o["accepted"], o["shed"], o["failed"],
            f"{o['accepted_p99_ms'] or 0:.0f}", f"{o['accepted_max_ms'] or 0:.0f}", f"{o['shed_p99_ms'] or 0:.0f}",
            worst_window(r, overload_s), opened,
            f"{m['idle']:.0f} / {m['overload_peak']:.0f}",
            f"{r.get('answered_share', 0):.0%}",
            f"{rec['recovery_s']:.0f}",
            f"{rec['accepted_p99_ms'] or 0:.0f}",
            _after(rec, r["baseline"]),
            rec["failed"] + rec["shed"],
        ])  # fmt: skip
    lines = [
        f"# One replica at {a['factor']} x its capacity",
        "",
        f"Overload {a['overload_s']} s open-loop, then half the capacity for {a['recovery_s']} s; client timeout "
        f"{a['client_timeout_s']} s; every text distinct; the replica on CPUs {a['replica_cpus']}, the load generator "
        f"on the others. `python -m loadtest.overload` ({results['seconds']:.0f} s).",
        "",
        *table(
            [
                "workers",
                "ZSC_MAX_CONCURRENCY",
                "ZSC_TARGET_LATENCY_MS",
                "capacity req/s",
                "p99 ms at half capacity",
                "offered req/s",
                "sent",
                "accepted",
                "shed (429/503)",
                "failed",
                "accepted p99 ms",
                "accepted max ms",
                "shed p99 ms",
                "worst 1-s window's accepted p99 ms (windows over 2 x target)",
                "connections opened",
                "memory MiB idle / peak",
                "answered, share of capacity",
                "recovery s",
                "p99 ms after the drop",
                "p99 ms from 5 s after the drop (x baseline)",
                "not 200 after the drop",
            ],
            rows,
        ),  # fmt: skip
        "",
        "Failed = neither an answer nor a 429/503 (a client timeout, a refused connection, a 5xx other than "
        "503). Recovery = from the drop to the first second from which on every request is a 200 and their "
        "p99 is within 1.5 times the half-capacity baseline's (measured before the overload, same load).",
    ]
    return "\n".join(lines) + "\n"


def chart(results: dict, path: Path) -> None:
    plt = pyplot()
    runs = results["runs"]
    fig, axes = plt.subplots(3, len(runs), figsize=(6 * len(runs), 9), squeeze=False, sharex="col")
    overload_s = float(results["args"]["overload_s"])
    for col, r in enumerate(runs):
        t = [b["t"] for b in r["timeline"]]
        top, mid, low = axes[0][col], axes[1][col], axes[2][col]
        top.plot(t, [b["offered"] for b in r["timeline"]], label="offered")
        top.plot(t, [b["accepted"] for b in r["timeline"]], label="accepted (200)")
        top.plot(t, [b["shed"] for b in r["timeline"]], label="shed (429/503)")
        top.plot(t, [b["failed"] for b in r["timeline"]], label="failed")
        top.set_ylabel("requests sent in that second")
        top.set_title(f"{r.get('workers', 1)} worker(s), ZSC_MAX_CONCURRENCY={r['max_concurrency']}")
        top.legend(fontsize=8)
        mid.plot(t, [b["accepted_p99_ms"] or np.nan for b in r["timeline"]], color="tab:purple")
        mid.set_ylabel("accepted p99 (ms)")
        low.plot([x for x, _ in r["memory_timeline"]], [m for _, m in r["memory_timeline"]], color="tab:brown")
        low.set_ylabel("replica memory (MiB)")
        low.set_xlabel("seconds from the start of the overload")
        for ax in (top, mid, low):
            ax.axvline(overload_s, color="grey", linestyle="--", linewidth=1)
            ax.grid(alpha=0.3)
    save(fig, path)


if __name__ == "__main__":
    raise SystemExit(main())
