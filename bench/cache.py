"""Cache benchmark (part of `make bench`): fully cached requests vs a trivial echo endpoint served the same
way, and a Zipf-repeated workload with the cache on vs off, on one replica with Redis on loopback."""

from __future__ import annotations

from pathlib import Path

import httpx
import numpy as np

from harness.launchers import SERVICE, bento_serve, redis_server
from harness.metrics import buckets, counter, quantile_bound
from harness.net import free_port
from harness.process import running
from harness.progress import say
from loadtest.loadgen import run_load

DURATION = "bentoml_service_request_duration_seconds"


def _server_p99_ms(url: str, measure) -> tuple[object, float]:
    """Run ``measure()`` and return (its result, the upper bound of the bucket holding the 99th percentile
    of BentoML's server-side request duration for /classify during it)."""
    before = buckets(url, DURATION, endpoint="/classify")
    result = measure()
    return result, quantile_bound(before, buckets(url, DURATION, endpoint="/classify"), 0.99) * 1000


def _serve(name: str, target: str, env: dict, logs: Path):
    return running(bento_serve(name, free_port(), logs / name, env, target=target, log=logs / f"{name}.log"))


def zipf_bodies(pool: list[dict], n: int, s: float = 1.1, seed: int = 5) -> list[dict]:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, len(pool) + 1) ** s
    picks = rng.choice(len(pool), size=n, p=weights / weights.sum())
    return [pool[i] for i in picks]


def run(
    env: dict, model: str, bodies: list[dict], logs: Path, duration: float = 8, concurrency: int = 32, cached: int = 500
) -> dict:
    """``cached``: how many distinct requests the fully cached runs repeat (each answered once first)."""
    import redis as redis_lib

    results: dict = {"model": model, "concurrency": concurrency}
    with running(redis_server("redis", free_port(), logs / "redis"), ready_timeout=10) as redis:
        # 1. the echo ceiling, served the same way
        with _serve("echo", "bench.echo_service:Echo", env, logs) as echo:
            r, p99 = _server_p99_ms(
                echo.url, lambda: run_load(f"{echo.url}/classify", bodies[:cached], concurrency, duration, 2)
            )
            results["echo"] = {**r.as_dict(), "server_p99_ms": p99}
            say(f"  echo: {r.requests_per_s:.0f} req/s, client p99 {r.p99_ms:.0f} ms")

        # 2. fully cached requests: the same ``cached`` bodies, answered once before the measurement
        senv = {**env, "ZSC_MODEL": model, "ZSC_REDIS_URL": redis.url}
        with _serve("cached", SERVICE, senv, logs) as server:
            url = server.url
            for b in bodies[:cached]:
                httpx.post(f"{url}/classify", json=b, timeout=60)
            r, p99 = _server_p99_ms(url, lambda: run_load(f"{url}/classify", bodies[:cached], concurrency, duration, 2))
            results["cached"] = {**r.as_dict(), "server_p99_ms": p99}
            say(f"  fully cached: {r.requests_per_s:.0f} req/s, server p99 <= {p99:.0f} ms")
            # the same at low concurrency: server-side time without 31 other requests on the event loop
            r, p99 = _server_p99_ms(url, lambda: run_load(f"{url}/classify", bodies[:cached], 4, duration, 1))
            results["cached_c4"] = {**r.as_dict(), "server_p99_ms": p99}
            say(f"  fully cached, 4 clients: {r.requests_per_s:.0f} req/s, server p99 <= {p99:.0f} ms")

        # 3. Zipf-repeated traffic over a pool of distinct requests, cache on (fresh) vs off
        pool = bodies[500:2500]
        stream = zipf_bodies(pool, 20000)
        for label, extra in (
            ("zipf_cache_off", {"ZSC_CACHE_LOCAL_ENTRIES": "0", "ZSC_REDIS_URL": ""}),
            ("zipf_cache_on", {"ZSC_REDIS_URL": redis.url}),
        ):
            redis_lib.Redis.from_url(redis.url).flushall()
            with _serve(label, SERVICE, {**env, "ZSC_MODEL": model, **extra}, logs) as server:
                r = run_load(f"{server.url}/classify", stream, concurrency, duration * 2, 2)
                hits, partial, miss = (
                    counter(server.url, "zsc_cache_responses", status=s) for s in ("hit", "partial", "miss")
                )
                total = hits + partial + miss
                results[label] = {
                    **r.as_dict(),
                    "hit_rate": hits / total if total else 0.0,
                    "partial_rate": partial / total if total else 0.0,
                }
                say(f"  {label}: {r.requests_per_s:.1f} req/s, hit rate {results[label]['hit_rate']:.2f}")
    unique = len({b["text"] for b in zipf_bodies(pool, 20000)[:20000]})
    results["zipf"] = {"pool": len(pool), "s": 1.1, "unique_in_stream": unique}
    return results


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
    print("run through `python -m bench.suite --cache-only`")
