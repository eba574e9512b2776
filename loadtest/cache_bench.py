"""Cache benchmark (part of `make bench`): fully cached requests vs a trivial echo endpoint served the same
way, and a Zipf-repeated workload with the cache on vs off, on one replica with Redis on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

from loadtest.loadgen import run_load
from loadtest.procs import free_port, start, stop, wait_ready

BIN = Path(sys.executable).parent


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _duration_histogram(url: str, endpoint: str) -> dict[float, float]:
    """Cumulative bucket counts of BentoML's server-side request duration for one endpoint."""
    from loadtest.metrics_text import parse

    out: dict[float, float] = {}
    for name, labels, value in parse(httpx.get(f"{url}/metrics", timeout=10).text):
        if name == "bentoml_service_request_duration_seconds_bucket" and labels.get("endpoint") == endpoint:
            le = float(labels["le"])
            out[le] = out.get(le, 0.0) + value
    return out


def _server_p99_ms(before: dict[float, float], after: dict[float, float]) -> float:
    """Upper bound of the bucket holding the 99th percentile of requests between two scrapes."""
    delta = sorted((le, after.get(le, 0) - before.get(le, 0)) for le in after)
    total = delta[-1][1] if delta else 0
    for le, count in delta:
        if total and count >= 0.99 * total:
            return le * 1000
    return float("nan")


def _serve(cmd_target: str, env: dict, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = start([str(BIN / "bentoml"), "serve", cmd_target, "--host", "127.0.0.1", "--port", str(port)], env, log)
    url = f"http://127.0.0.1:{port}"
    wait_ready(url, proc, 300, log)
    return proc, url


def _redis(workdir: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    proc = start(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--maxmemory",
            "256mb",
            "--maxmemory-policy",
            "allkeys-lru",
        ],
        dict(os.environ),
        workdir / "redis.log",
    )
    deadline = time.monotonic() + 10
    import redis

    while time.monotonic() < deadline:
        try:
            if redis.Redis(port=port).ping():
                break
        except redis.ConnectionError:
            time.sleep(0.05)
    return proc, f"redis://127.0.0.1:{port}/0"


def zipf_bodies(pool: list[dict], n: int, s: float = 1.1, seed: int = 5) -> list[dict]:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, len(pool) + 1) ** s
    picks = rng.choice(len(pool), size=n, p=weights / weights.sum())
    return [pool[i] for i in picks]


def run(env: dict, model: str, bodies: list[dict], logs: Path, duration: float = 8, concurrency: int = 32) -> dict:
    results: dict = {"model": model, "concurrency": concurrency}
    redis_proc, redis_url = _redis(logs / "redis")
    try:
        # 1. the echo ceiling, served the same way
        echo_proc, echo_url = _serve("loadtest.echo_service:Echo", env, logs / "echo.log")
        try:
            before = _duration_histogram(echo_url, "/classify")
            r = run_load(f"{echo_url}/classify", bodies[:500], concurrency, duration, 2)
            results["echo"] = {
                **r.as_dict(),
                "server_p99_ms": _server_p99_ms(before, _duration_histogram(echo_url, "/classify")),
            }
            say(f"  echo: {r.requests_per_s:.0f} req/s, client p99 {r.p99_ms:.0f} ms")
        finally:
            stop(echo_proc)

        # 2. fully cached requests: the same 500 bodies, answered once before the measurement
        senv = {**env, "ZSC_MODEL": model, "ZSC_REDIS_URL": redis_url}
        proc, url = _serve("service.service:ZeroShotClassifier", senv, logs / "cached.log")
        try:
            for b in bodies[:500]:
                httpx.post(f"{url}/classify", json=b, timeout=60)
            before = _duration_histogram(url, "/classify")
            r = run_load(f"{url}/classify", bodies[:500], concurrency, duration, 2)
            results["cached"] = {
                **r.as_dict(),
                "server_p99_ms": _server_p99_ms(before, _duration_histogram(url, "/classify")),
            }
            p99 = results["cached"]["server_p99_ms"]
            say(f"  fully cached: {r.requests_per_s:.0f} req/s, server p99 <= {p99:.0f} ms")
            # the same at low concurrency: server-side time without 31 other requests on the event loop
            before = _duration_histogram(url, "/classify")
            r = run_load(f"{url}/classify", bodies[:500], 4, duration, 1)
            results["cached_c4"] = {
                **r.as_dict(),
                "server_p99_ms": _server_p99_ms(before, _duration_histogram(url, "/classify")),
            }
            p99 = results["cached_c4"]["server_p99_ms"]
            say(f"  fully cached, 4 clients: {r.requests_per_s:.0f} req/s, server p99 <= {p99:.0f} ms")
        finally:
            stop(proc)

        # 3. Zipf-repeated traffic over a pool of distinct requests, cache on (fresh) vs off
        pool = bodies[500:2500]
        stream = zipf_bodies(pool, 20000)
        for label, extra in (
            ("zipf_cache_off", {"ZSC_CACHE_LOCAL_ENTRIES": "0", "ZSC_REDIS_URL": ""}),
            ("zipf_cache_on", {"ZSC_REDIS_URL": redis_url}),
        ):
            import redis as redis_lib

            redis_lib.Redis.from_url(redis_url).flushall()
            proc, url = _serve(
                "service.service:ZeroShotClassifier", {**env, "ZSC_MODEL": model, **extra}, logs / f"{label}.log"
            )
            try:
                r = run_load(f"{url}/classify", stream, concurrency, duration * 2, 2)
                hits = _count(url, "hit")
                partial = _count(url, "partial")
                miss = _count(url, "miss")
                total = hits + partial + miss
                results[label] = {
                    **r.as_dict(),
                    "hit_rate": hits / total if total else 0.0,
                    "partial_rate": partial / total if total else 0.0,
                }
                say(f"  {label}: {r.requests_per_s:.1f} req/s, hit rate {results[label]['hit_rate']:.2f}")
            finally:
                stop(proc)
    finally:
        stop(redis_proc)
    unique = len({b["text"] for b in zipf_bodies(pool, 20000)[:20000]})
    results["zipf"] = {"pool": len(pool), "s": 1.1, "unique_in_stream": unique}
    return results


def _count(url: str, status: str) -> float:
    from loadtest.metrics_text import parse

    return sum(
        v
        for n, labels, v in parse(httpx.get(f"{url}/metrics", timeout=10).text)
        if n == "zsc_cache_responses_total" and labels.get("status") == status
    )


def _lat(r: dict) -> str:
    return f"{r['p50_ms']:.0f} / {r['p95_ms']:.0f} / {r['p99_ms']:.0f}"


def markdown(c: dict) -> str:
    echo, cached = c["echo"], c["cached"]
    on, off = c["zipf_cache_on"], c["zipf_cache_off"]
    vs_echo = cached["requests_per_s"] / echo["requests_per_s"]
    hits = f"hit rate {on['hit_rate']:.2f} (+{on['partial_rate']:.2f} partial)"
    return "\n".join(
        [
            f"Cache (model {c['model']}, 1 worker, Redis on loopback, {c['concurrency']} closed-loop clients):",
            "",
            "| run | req/s | client p50 / p95 / p99 ms | server p99 ms (bucket bound) | notes |",
            "|---|---|---|---|---|",
            f"| trivial echo endpoint | {echo['requests_per_s']:.0f} | {_lat(echo)} | ≤ {echo['server_p99_ms']:.0f} | "
            "same schema, validation and BentoML path, no work |",
            f"| fully cached /classify | {cached['requests_per_s']:.0f} | {_lat(cached)} | "
            f"≤ {cached['server_p99_ms']:.0f} | {vs_echo:.2f} × echo |",
            *(
                [
                    f"| fully cached /classify, 4 clients | {c4['requests_per_s']:.0f} | {_lat(c4)} | "
                    f"≤ {c4['server_p99_ms']:.0f} | {c4['requests_per_s'] / echo['requests_per_s']:.2f} × echo "
                    "(32 clients) |"
                ]
                if (c4 := c.get("cached_c4"))
                else []
            ),
            f"| Zipf stream, cache off | {off['requests_per_s']:.1f} | {_lat(off)} | | |",
            f"| Zipf stream, cache on | {on['requests_per_s']:.1f} | {_lat(on)} | | {hits}; "
            f"{on['requests_per_s'] / off['requests_per_s']:.1f} × cache off |",
            "",
            f"Zipf stream: exponent {c['zipf']['s']} over {c['zipf']['pool']} distinct requests "
            f"({c['zipf']['unique_in_stream']} distinct texts in 20,000 draws); the cache starts empty.",
            "",
        ]
    )


if __name__ == "__main__":
    print("run through `python -m loadtest.bench --cache-only`")
