"""A small closed-loop HTTP load generator (asyncio + aiohttp): C clients, each sends its next request
as soon as the previous one is answered, for a fixed time after a warm-up. Bounded in time; loopback only.

Used by the benchmark harness, where Locust's own per-request overhead would cost more CPU than the
service being measured on a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import aiohttp
import numpy as np


@dataclass
class LoadResult:
    concurrency: int
    duration_s: float
    requests: int
    failures: int
    requests_per_s: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    statuses: dict[str, int]
    latencies_s: list[float] = field(default_factory=list, repr=False)  # kept for merging, not reported

    @property
    def answered_per_s(self) -> float:
        """Answers (200s) per second: a refusal (429, 503 when the replica sheds) is no throughput."""
        return (self.requests - self.failures) / self.duration_s if self.duration_s > 0 else 0.0

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "latencies_s"}


def _percentiles(latencies: list[float]) -> tuple[float, float, float]:
    if not latencies:
        return (float("nan"),) * 3
    p = np.percentile(np.array(latencies) * 1000, [50, 95, 99])
    return float(p[0]), float(p[1]), float(p[2])


async def _run(
    url: str,
    bodies: Sequence[dict],
    concurrency: int,
    duration_s: float,
    warmup_s: float,
    check: Callable[[int, dict], bool] | None,
    max_requests: int | None,
) -> LoadResult:
    counter = itertools.count()
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    failures = 0
    done = 0
    connector = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    timeout = aiohttp.ClientTimeout(total=max(120.0, duration_s * 2))
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        start = time.perf_counter()
        measure_from = start + warmup_s
        stop_at = measure_from + duration_s

        async def client() -> None:
            nonlocal failures, done
            while time.perf_counter() < stop_at:
                if max_requests is not None and done >= max_requests:
                    return
                body = bodies[next(counter) % len(bodies)]
                t0 = time.perf_counter()
                try:
                    async with session.post(url, json=body) as resp:
                        payload = await resp.json(content_type=None)
                        ok = resp.status == 200 and (check is None or check(resp.status, payload))
                        status = str(resp.status)
                except (TimeoutError, aiohttp.ClientError, ValueError) as exc:
                    ok, status = False, type(exc).__name__
                t1 = time.perf_counter()
                if measure_from <= t1 <= stop_at:  # completions inside the window count
                    latencies.append(t1 - t0)
                    statuses[status] = statuses.get(status, 0) + 1
                    failures += not ok
                    done += 1

        await asyncio.gather(*(client() for _ in range(concurrency)))
    elapsed = min(time.perf_counter(), stop_at) - measure_from
    return _result(concurrency, elapsed, latencies, failures, statuses)


def _result(concurrency: int, elapsed: float, latencies: list[float], failures: int, statuses: dict) -> LoadResult:
    p50, p95, p99 = _percentiles(latencies)
    return LoadResult(
        concurrency=concurrency,
        duration_s=round(elapsed, 3),
        requests=len(latencies),
        failures=failures,
        requests_per_s=len(latencies) / elapsed if elapsed > 0 else 0.0,
        p50_ms=p50,
        p95_ms=p95,
        p99_ms=p99,
        statuses=statuses,
        latencies_s=latencies,
    )


def add_load_options(parser: argparse.ArgumentParser, clients: int = 32, step_s: float = 20) -> None:
    """A ``run_load`` measurement's options: its closed-loop clients, the seconds each load step measures, and
    the seed that picks its texts (default: the time, so that runs do not replay one sample)."""
    parser.add_argument("--clients", type=int, default=clients, help="closed-loop clients (per stream, where several)")
    parser.add_argument("--step-s", type=float, default=step_s, help="seconds each load step measures")
    parser.add_argument(
        "--seed", type=int, default=int(time.time()), help="varies the load's texts (default: the time)"
    )


def run_load(
    url: str,
    bodies: Sequence[dict],
    concurrency: int,
    duration_s: float,
    warmup_s: float = 2.0,
    check: Callable[[int, dict], bool] | None = None,
    max_requests: int | None = None,
    processes: int = 1,
) -> LoadResult:
    """Requests completed inside the measuring window count; those straddling its edges do not. With
    ``processes`` > 1 the clients (and the bodies) are split over that many processes, results merged: one
    Python event loop tops out at a few thousand requests per second. ``check`` must then be picklable."""
    processes = max(1, min(processes, concurrency))
    if processes == 1:
        return asyncio.run(_run(url, bodies, concurrency, duration_s, warmup_s, check, max_requests))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    shares = [concurrency // processes + (i < concurrency % processes) for i in range(processes)]
    per = None if max_requests is None else max_requests // processes
    jobs = [(url, bodies[i::processes], c, duration_s, warmup_s, check, per) for i, c in enumerate(shares)]
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(run_load, *zip(*jobs)))
    latencies = [x for p in parts for x in p.latencies_s]
    statuses: dict[str, int] = {}
    for p in parts:
        for k, v in p.statuses.items():
            statuses[k] = statuses.get(k, 0) + v
    # the processes measured over the same window (within scheduling jitter): their rates add up
    return _result(concurrency, max(p.duration_s for p in parts), latencies, sum(p.failures for p in parts), statuses)
