"""Jobs replicas started and stopped on the queue, by KEDA's rule, here: a test of the roles and the rule
(docs/deploy.md, "Jobs on their queue"), not a replacement for KEDA.

    .venv/bin/python -m loadtest.queue_scaling                  # the bundled model, ~5 min on 2 cores
    .venv/bin/python -m loadtest.queue_scaling --kill           # and a jobs replica SIGKILLed mid-chunk
    .venv/bin/python -m loadtest.queue_scaling --smoke --model tiny-hf --runtime torch   # CI: < 2 min

Starts an append-only redis-server for jobs, one api replica (``ZSC_ROLE=api``) and no jobs replica. Every
``--poll-s`` it reads the consumer group's lag and pending entries with ``XINFO GROUPS`` (what KEDA's
``redis-streams`` scaler reads) and sets the number of jobs replicas (``ZSC_ROLE=jobs``) to what KEDA and
its HPA would (``loadtest/keda_rule.py``: ceil(lag / lagCount) within [min, max], none below the
activation value, the pending entries' trigger, a cooldown before zero); a replica removed gets SIGTERM
and drains (it finishes its chunk or hands it back). Jobs are submitted through the api replica in bursts.
With ``--kill``, a jobs replica holding a chunk is SIGKILLed once: its chunk is claimed by another after
``ZSC_JOB_VISIBILITY_S`` (small here), and a new replica takes its place, as a Deployment would.

At the end every job's results are read back: each item must be answered exactly once (``lost``,
``duplicated``) and as ``/classify_batch`` answers it on the api replica (``different``: other labels, or
a score apart by more than 1e-4). Writes ``queue-scaling.json``, ``.md`` and ``.png`` (lag and replicas over
time) into ``--out`` and prints one JSON line last: jobs, items, lost, duplicated, different, max_workers,
final_workers, drain_s, and what a cold start from zero cost.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import redis

from harness import ROOT
from harness.jobs import differences, results_jsonl, status, submit
from harness.launchers import bento_serve, jobs_redis_server
from harness.net import free_port
from harness.process import Running, start
from harness.progress import say
from harness.report import pyplot, save, table
from harness.store import ensure_default
from loadtest.jobs_bench import LABELS, texts
from loadtest.keda_rule import KedaRule
from service.jobs.redis_store import group_name, stream_key

PREFIX = "zsc"  # ZSC_CACHE_PREFIX's default: the stream and group the ScaledObject names


@dataclass
class Worker:
    proc: Running
    started: float
    ready: float | None = None


@dataclass
class Pool:
    """The jobs replicas: started to the count asked for, the newest stopped first (SIGTERM: it drains)."""

    env: dict[str, str]
    out: Path
    grace_s: float
    workers: list[Worker] = field(default_factory=list)
    stopping: list[threading.Thread] = field(default_factory=list)
    cold_starts: list[float] = field(default_factory=list)  # seconds from start to ready, per replica
    pids: dict[int, str] = field(default_factory=dict)  # every process of every replica -> its name
    started: int = 0

    def scale(self, target: int) -> None:
        while len(self.workers) < target:
            self.started += 1
            name = f"jobs-{self.started}"
            member = bento_serve(name, free_port(), self.out / "logs" / name, self.env)
            self.workers.append(Worker(start(member), time.monotonic()))
            say(f"  + {name} ({len(self.workers)} jobs replicas)")
        while len(self.workers) > target:
            gone = self.workers.pop()
            say(f"  - {gone.proc.member.name} gets SIGTERM ({len(self.workers)} jobs replicas)")
            thread = threading.Thread(target=gone.proc.stop, args=(self.grace_s,), daemon=True)
            thread.start()
            self.stopping.append(thread)

    def poll(self) -> int:
        """Replicas ready now (each probed until it is, then counted)."""
        now = time.monotonic()
        for w in self.workers:
            if w.ready is None and _ready(w.proc.member.url):
                w.ready = now
                self.cold_starts.append(now - w.started)
                self.pids.update({pid: w.proc.member.name for pid in w.proc.pids()})
                say(f"  {w.proc.member.name} ready after {now - w.started:.1f} s")
        return sum(w.ready is not None for w in self.workers)

    def kill_one_at_work(self, r: redis.Redis) -> dict | None:
        """SIGKILL the tree of a ready replica caught holding a chunk; what was killed, or None (none was).
        Each candidate is frozen first (SIGSTOP): a chunk still pending for its consumer then is one it can
        no longer finish, so the kill is mid-chunk for certain; one caught between chunks is let go."""
        for w in [w for w in self.workers if w.ready is not None]:
            pids = set(w.proc.pids())
            w.proc.send(signal.SIGSTOP)
            held = r.xpending_range(stream_key(PREFIX), group_name(PREFIX), "-", "+", 100)
            mine = [e["message_id"] for e in held if _pid(e["consumer"]) in pids]
            if not mine:
                w.proc.send(signal.SIGCONT)
                continue
            w.proc.kill()
            self.workers.remove(w)
            say(f"  x {w.proc.member.name} SIGKILLed holding chunk entry {mine[0]}")
            return {"replica": w.proc.member.name, "entry": mine[0], "at": time.monotonic()}
        return None

    def wait_stopped(self) -> None:
        for thread in self.stopping:
            thread.join()


def _ready(url: str | None) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=0.5).status_code == 200
    except httpx.HTTPError:
        return False


def _pid(consumer: str) -> int:
    """The worker process id in a consumer's name (``host-pid``: jobs/build)."""
    try:
        return int(consumer.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return -1


def group_state(r: redis.Redis) -> tuple[int, int]:
    """(lag, pending) of the jobs' consumer group, as KEDA reads them; a stream without the group yet: its
    length is the lag (KEDA does the same)."""
    stream = stream_key(PREFIX)
    try:
        groups = r.xinfo_groups(stream)
    except redis.ResponseError:  # no stream yet
        return 0, 0
    for g in groups:
        if g["name"] == group_name(PREFIX):
            return int(g["lag"] if g["lag"] is not None else r.xlen(stream)), int(g["pending"])
    return int(r.xlen(stream)), 0


def submit_bursts(url: str, args: argparse.Namespace, jobs: list[dict], times: list[float]) -> None:
    for burst in range(args.bursts):
        if burst:
            time.sleep(args.burst_gap_s)
        times.append(time.monotonic())
        for j in range(args.jobs_per_burst):
            body = {"texts": texts(args.items_per_job, f"scaling-{burst}-{j}"), "labels": LABELS}
            jobs.append({**submit(url, body), "texts": body["texts"]})
        say(f"burst {burst + 1}: {args.jobs_per_burst} job(s) of {args.items_per_job} items")


def check(url: str, jobs: list[dict], sample_every: int) -> dict:
    """Every item once (lost, duplicated) and as /classify_batch answers it (different), read back through
    the api replica."""
    lost = duplicated = different = compared = 0
    for job in jobs:
        got = results_jsonl(url, job["id"])
        indices = [e.pop("index") for e in got]
        duplicated += len(indices) - len(set(indices))
        lost += len(set(range(len(job["texts"]))) - set(indices))
        by_index = dict(zip(indices, got))
        picked = [i for i in range(0, len(job["texts"]), sample_every) if i in by_index]
        expected: list[dict] = []
        for first in range(0, len(picked), 128):
            part = [{"text": job["texts"][i], "labels": LABELS} for i in picked[first : first + 128]]
            r = httpx.post(f"{url}/classify_batch", json={"items": part}, timeout=300)
            r.raise_for_status()
            expected += r.json()["results"]
        different += len(differences([by_index[i] for i in picked], expected))
        compared += len(picked)
    return {"lost": lost, "duplicated": duplicated, "different": different, "compared": compared}


def run(args: argparse.Namespace) -> dict:
    out = args.out
    if not args.model:  # the bundled model, imported into the store on first use
        ensure_default(dict(os.environ))
    jobs_dir = out / "logs" / "jobs-redis"
    redis_proc = start(jobs_redis_server("jobs-redis", free_port(), jobs_dir)).wait_ready(30)
    r = redis.Redis(port=redis_proc.member.port, decode_responses=True)
    env = {
        "ZSC_JOBS_REDIS_URL": redis_proc.url,
        "ZSC_JOB_CHUNK_ITEMS": str(args.chunk_items),
        "ZSC_JOB_VISIBILITY_S": str(args.visibility_s),
        "ZSC_JOB_DRAIN_S": str(args.drain_s),
        "ZSC_CPU_THREADS": str(args.threads),
        **({"ZSC_MODEL": args.model} if args.model else {}),
        **({"ZSC_RUNTIME": args.runtime} if args.runtime else {}),
    }
    rule = KedaRule(
        lag_count=args.lag_count,
        activation_lag_count=args.activation_lag_count,
        pending_count=1,
        min_replicas=0,
        max_replicas=args.max_workers,
        cooldown_s=args.cooldown_s,
        scale_down_window_s=args.scale_down_window_s,
    )
    pool = Pool({**env, "ZSC_ROLE": "jobs"}, out, grace_s=args.drain_s + 10)
    samples: list[dict] = []
    jobs: list[dict] = []
    bursts: list[float] = []
    killed: dict | None = None
    reclaimed_s: float | None = None
    api_member = bento_serve("api", free_port(), out / "logs" / "api", {**env, "ZSC_ROLE": "api"})
    try:
        with start(api_member) as api:
            api.wait_ready(300)
            say(f"api replica ready on {api.url}; jobs Redis on {redis_proc.url}; no jobs replica")
            sender = threading.Thread(target=submit_bursts, args=(api.url, args, jobs, bursts), daemon=True)
            t0 = time.monotonic()
            sender.start()
            done_at: float | None = None
            max_workers = 0
            while True:
                now = time.monotonic()
                lag, pending = group_state(r)
                target = rule.desired(now, lag, pending, len(pool.workers))
                pool.scale(target)
                ready = pool.poll()
                max_workers = max(max_workers, len(pool.workers))
                samples.append({"t": now - t0, "lag": lag, "pending": pending, "workers": len(pool.workers),
                                "ready": ready})  # fmt: skip
                if args.kill and killed is None and ready >= 2:
                    killed = pool.kill_one_at_work(r)
                if killed and reclaimed_s is None:
                    held = r.xpending_range(stream_key(PREFIX), group_name(PREFIX), "-", "+", 100)
                    if killed["entry"] not in {e["message_id"] for e in held}:  # claimed, finished, acked
                        reclaimed_s = time.monotonic() - killed["at"]
                        say(f"  the killed replica's chunk was claimed and finished {reclaimed_s:.1f} s later")
                if done_at is None and not sender.is_alive() and jobs and lag == 0 and pending == 0:
                    if all(status(api.url, j["id"])["state"] == "done" for j in jobs):
                        done_at = now
                        say(f"every job done {done_at - t0:.1f} s after the first burst; waiting for the cooldown")
                if done_at is not None and not pool.workers:
                    break
                if now - t0 > args.timeout_s:
                    raise TimeoutError(f"not drained to zero replicas within {args.timeout_s} s: {samples[-1]}")
                time.sleep(args.poll_s)
            pool.wait_stopped()
            zero_at = time.monotonic()
            say("checking every item against /classify_batch")
            checked = check(api.url, jobs, args.check_every)
            consumers = {c["name"] for c in r.xinfo_consumers(stream_key(PREFIX), group_name(PREFIX))}
            api_pids = set(api.pids())
    finally:
        for w in pool.workers:
            w.proc.stop(5)
        pool.wait_stopped()
        redis_proc.stop()
    items = sum(len(j["texts"]) for j in jobs)
    worker_s = sum(
        (b["t"] - a["t"]) * a["ready"] for a, b in zip(samples, samples[1:]) if b["t"] <= done_at - t0
    )  # ready jobs replicas x seconds until every job was done
    return {
        "jobs": len(jobs),
        "items": items,
        **checked,
        "max_workers": max_workers,
        "final_workers": len(pool.workers),
        "drain_s": round(done_at - t0, 1),
        "zero_after_s": round(zero_at - done_at, 1),
        "cold_start_s": round(pool.cold_starts[0], 1) if pool.cold_starts else None,
        "cold_starts_s": [round(c, 1) for c in pool.cold_starts],
        "replicas_started": pool.started,
        "consumers": len(consumers),
        "api_consumed": any(_pid(c) in api_pids for c in consumers),
        "items_per_worker_s": round(items / worker_s, 1) if worker_s else None,
        "killed": killed["replica"] if killed else None,
        "killed_at_s": round(killed["at"] - t0, 1) if killed else None,
        "reclaimed_s": round(reclaimed_s, 1) if reclaimed_s is not None else None,
        "rule": {k: v for k, v in vars(rule).items() if not k.startswith("_")},
        "chunk_items": args.chunk_items,
        "bursts": [round(b - t0, 1) for b in bursts],
        "samples": samples,
    }


def report(result: dict) -> str:
    keys = ["jobs", "items", "lost", "duplicated", "different", "max_workers", "final_workers", "drain_s",
            "zero_after_s", "cold_start_s", "items_per_worker_s", "killed", "killed_at_s", "reclaimed_s"]  # fmt: skip
    lines = ["# Jobs replicas on the queue (loadtest/queue_scaling.py)", ""]
    lines += table(["what", "value"], [(k, result[k]) for k in keys])
    lines += ["", f"Rule: {result['rule']}; chunks of {result['chunk_items']} items.", ""]
    return "\n".join(lines)


def chart(result: dict, path: Path) -> None:
    plt = pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    t = [s["t"] for s in result["samples"]]
    top.plot(t, [s["lag"] for s in result["samples"]], label="lag (undelivered chunks)")
    top.plot(t, [s["pending"] for s in result["samples"]], label="pending (chunks at work)")
    top.axhline(result["rule"]["lag_count"], color="grey", linestyle=":", label="lagCount")
    top.set_ylabel("chunks")
    top.legend(loc="upper right")
    bottom.step(t, [s["workers"] for s in result["samples"]], where="post", label="jobs replicas")
    bottom.step(t, [s["ready"] for s in result["samples"]], where="post", label="ready")
    bottom.set_ylabel("replicas")
    bottom.set_xlabel("seconds since the first burst")
    for ax in (top, bottom):
        for b in result["bursts"]:
            ax.axvline(b, color="green", alpha=0.3)
        if result.get("killed_at_s") is not None:  # --kill: the jobs replica SIGKILLed mid-chunk
            label = "a jobs replica SIGKILLed" if ax is bottom else None
            ax.axvline(result["killed_at_s"], color="red", linestyle="--", alpha=0.6, label=label)
    bottom.legend(loc="upper right")
    fig.suptitle(f"{result['jobs']} jobs, {result['items']} items: drained in {result['drain_s']} s")
    save(fig, path)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="small and quick (CI): under 2 minutes")
    parser.add_argument("--kill", action="store_true", help="SIGKILL a jobs replica mid-chunk once")
    parser.add_argument("--model", default="", help="ZSC_MODEL of every replica (default: the bundled one)")
    parser.add_argument("--runtime", default="", help="ZSC_RUNTIME of every replica")
    parser.add_argument("--bursts", type=int, default=3)
    parser.add_argument("--jobs-per-burst", type=int, default=2)
    parser.add_argument("--items-per-job", type=int, default=2000)
    parser.add_argument("--burst-gap-s", type=float, default=20)
    parser.add_argument("--chunk-items", type=int, default=64, help="ZSC_JOB_CHUNK_ITEMS")
    parser.add_argument("--lag-count", type=int, default=20, help="lagCount: undelivered chunks per replica")
    parser.add_argument("--activation-lag-count", type=int, default=0)
    parser.add_argument("--max-workers", type=int, default=3, help="maxReplicaCount")
    parser.add_argument("--cooldown-s", type=float, default=15, help="cooldownPeriod (300 in deploy/k8s)")
    parser.add_argument("--scale-down-window-s", type=float, default=5, help="the HPA's scale-down window")
    parser.add_argument("--poll-s", type=float, default=0.5, help="pollingInterval")
    parser.add_argument("--visibility-s", type=int, default=5, help="ZSC_JOB_VISIBILITY_S (small: --kill)")
    parser.add_argument("--drain-s", type=int, default=20, help="ZSC_JOB_DRAIN_S")
    parser.add_argument("--threads", type=int, default=1, help="ZSC_CPU_THREADS per replica")
    parser.add_argument("--check-every", type=int, default=1, help="compare every Nth item with /classify_batch")
    parser.add_argument("--timeout-s", type=float, default=900)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.smoke:  # bounded: what a CI machine does in well under two minutes with a tiny model
        args.bursts, args.jobs_per_burst, args.items_per_job, args.burst_gap_s = 2, 1, 1500, 2
        args.chunk_items, args.lag_count, args.cooldown_s, args.scale_down_window_s = 16, 10, 3, 2
        args.timeout_s = min(args.timeout_s, 100)
    if args.out is None:
        args.out = ROOT / "results" / f"queue-scaling-{time.strftime('%Y%m%d-%H%M%S')}"
    args.out = args.out.resolve()  # redis-server and the replicas run in folders of their own
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    result = run(args)
    (args.out / "queue-scaling.json").write_text(json.dumps(result, indent=1))
    (args.out / "queue-scaling.md").write_text(report(result))
    chart(result, args.out / "queue-scaling.png")
    say(f"wrote {args.out}")
    line = {k: v for k, v in result.items() if k not in ("samples", "rule", "bursts")}
    print(json.dumps(line), flush=True)
    return 0 if result["lost"] == result["duplicated"] == result["different"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
