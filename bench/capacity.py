"""How many replicas for a request rate at a p95 target, and what the autoscaler should aim at, from a
recorded load test (``make loadtest``'s result directory: ``results.json`` and ``summary.csv``).

    .venv/bin/python -m bench.capacity results/20261130-002158 --rate 400 --p95-ms 500
    ... --labels 12 --cache off --min-rate 50 --json plan.json

The arithmetic (docs/capacity.md works an example):

- **capacity at the p95 target** of a target (1 replica, N replicas; cache on or off): walking its steps
  in user order, the largest requests/s of a step whose p95 is within the target, or, where the next step
  passes the target at a higher rate, the rate interpolated linearly in p95 to the target; steps with 1 %
  failures or more do not count. The step's median latency is interpolated the same way.
- **per-replica capacity** ``c1`` = the 1-replica target's; **scaling efficiency** ``e`` = the N-replica
  target's capacity / (N x ``c1``) for the largest N measured (1.0 when only one replica was measured),
  planned with at most 1.0: more than linear scaling (a p95 step between two user counts, a shared
  machine) is not extrapolated.
- **labels per request**: with ``--labels L`` capacities scale by the measured (text, label) pairs per
  request over ``L`` (the cost of a request is taken to be its pairs, which holds for NLI models; an
  embedding model's label embeddings are shared between requests, so this is pessimistic there).
- **replicas** for a rate ``R`` = ceil(``R`` / (``c1`` x ``e``)); ``maxReplicas`` = replicas for
  ``--rate``, ``minReplicas`` = replicas for ``--min-rate`` and at least 2 (one may be restarted).
- **HPA target**: requests in flight per pod at the per-replica capacity, by Little's law
  ``L = lambda x W``: ``c1`` x ``e`` x the median latency there (the mean is not recorded; the median is
  the closer of the recorded percentiles), rounded down. The HPA scales on ``zsc_requests_in_flight``
  (deploy/k8s); a pod averaging more than this is past the p95 target.
- GPU: the same from a GPU result directory (``--gpu DIR``, a ``make loadtest`` run on a GPU machine).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

MAX_FAILURE_RATE = 0.01
MIN_REPLICAS = 2


@dataclass(frozen=True)
class Step:
    users: int
    requests_per_s: float
    pairs_per_s: float
    p50_ms: float
    p95_ms: float
    failure_rate: float


@dataclass(frozen=True)
class Operating:
    """A target's operating point at the p95 target."""

    replicas: int
    requests_per_s: float
    pairs_per_request: float
    p50_ms: float
    interpolated: bool


@dataclass(frozen=True)
class Plan:
    source: str
    model: str
    cache: bool
    p95_ms: float
    labels: float
    per_replica_rps: float
    efficiency: float  # measured
    planned_efficiency: float  # min(efficiency, 1)
    measured_replicas: int
    replicas: int
    min_replicas: int
    max_replicas: int
    hpa_in_flight_per_pod: int
    latency_ms_at_capacity: float
    extrapolated: bool

    def as_dict(self) -> dict:
        return asdict(self)


class CapacityError(ValueError):
    pass


def load_steps(result_dir: Path, cache: bool) -> tuple[dict[int, list[Step]], str]:
    """Each replica count's steps (user order) of the result's targets with this cache setting, and the
    model's name."""
    meta = json.loads((result_dir / "results.json").read_text())
    targets = {t["key"]: t for t in meta["targets"] if t["replicas"] >= 1 and bool(t["cache"]) == cache}
    by_replicas: dict[int, list[Step]] = {}
    with (result_dir / "summary.csv").open() as f:
        for row in csv.DictReader(f):
            target = targets.get(row["target"])
            if target is None:
                continue
            by_replicas.setdefault(int(target["replicas"]), []).append(
                Step(
                    users=int(row["users"]),
                    requests_per_s=float(row["requests_per_s"]),
                    pairs_per_s=float(row["pairs_per_s"]),
                    p50_ms=float(row["p50_ms"]),
                    p95_ms=float(row["p95_ms"]),
                    failure_rate=float(row["failure_rate"]),
                )
            )
    if 1 not in by_replicas:
        raise CapacityError(f"{result_dir}: no 1-replica target with cache {'on' if cache else 'off'}")
    for steps in by_replicas.values():
        steps.sort(key=lambda s: s.users)
    return by_replicas, meta.get("model", {}).get("name", "?")


def operating_point(steps: list[Step], replicas: int, p95_ms: float) -> Operating:
    """The most requests/s within the p95 target (see the module's docstring)."""
    good = [s for s in steps if s.failure_rate < MAX_FAILURE_RATE]
    best: Operating | None = None
    for i, step in enumerate(good):
        if step.p95_ms > p95_ms:
            continue
        point = Operating(replicas, step.requests_per_s, _pairs_per_request(step), step.p50_ms, False)
        nxt = good[i + 1] if i + 1 < len(good) else None
        if nxt is not None and nxt.p95_ms > p95_ms and nxt.requests_per_s > step.requests_per_s:
            share = (p95_ms - step.p95_ms) / (nxt.p95_ms - step.p95_ms)
            point = Operating(
                replicas,
                step.requests_per_s + share * (nxt.requests_per_s - step.requests_per_s),
                _pairs_per_request(step) + share * (_pairs_per_request(nxt) - _pairs_per_request(step)),
                step.p50_ms + share * (nxt.p50_ms - step.p50_ms),
                True,
            )
        if best is None or point.requests_per_s > best.requests_per_s:
            best = point
    if best is None:
        fastest = min((s.p95_ms for s in good), default=float("nan"))
        raise CapacityError(f"no step of {replicas} replica(s) has p95 within {p95_ms:g} ms (best {fastest:g} ms)")
    return best


def _pairs_per_request(step: Step) -> float:
    return step.pairs_per_s / step.requests_per_s if step.requests_per_s else 0.0


def plan(
    result_dir: Path, rate: float, p95_ms: float, cache: bool = False, labels: float | None = None, min_rate: float = 0
) -> Plan:
    by_replicas, model = load_steps(result_dir, cache)
    one = operating_point(by_replicas[1], 1, p95_ms)
    scale = one.pairs_per_request / labels if labels else 1.0
    c1 = one.requests_per_s * scale
    largest = max(by_replicas)
    efficiency = 1.0
    if largest > 1:
        many = operating_point(by_replicas[largest], largest, p95_ms)
        efficiency = many.requests_per_s / (largest * one.requests_per_s)
    per_replica = c1 * min(efficiency, 1.0)
    replicas = max(1, math.ceil(rate / per_replica))
    return Plan(
        source=str(result_dir),
        model=model,
        cache=cache,
        p95_ms=p95_ms,
        labels=labels or one.pairs_per_request,
        per_replica_rps=c1,
        efficiency=efficiency,
        planned_efficiency=min(efficiency, 1.0),
        measured_replicas=largest,
        replicas=replicas,
        min_replicas=max(MIN_REPLICAS, math.ceil(min_rate / per_replica)),
        max_replicas=max(MIN_REPLICAS, replicas),
        hpa_in_flight_per_pod=max(1, math.floor(per_replica * one.p50_ms / 1000)),
        latency_ms_at_capacity=one.p50_ms,
        extrapolated=replicas > largest,
    )


def report(p: Plan, rate: float) -> str:
    lines = [
        f"# Capacity plan: {rate:g} requests/s at p95 <= {p.p95_ms:g} ms",
        "",
        f"From `{p.source}` (model {p.model}, cache {'on' if p.cache else 'off'}), requests of "
        f"{p.labels:.1f} (text, label) pairs.",
        "",
        f"- per-replica capacity at the p95 target: **{p.per_replica_rps:.1f} requests/s**",
        f"- scaling efficiency of {p.measured_replicas} replicas: **{p.efficiency:.2f}**"
        + (" (planned with 1.00: more than linear is not extrapolated)" if p.efficiency > 1 else ""),
        f"- replicas needed: ceil({rate:g} / ({p.per_replica_rps:.1f} x {p.planned_efficiency:.2f})) = **{p.replicas}**"
        + (
            f" (more than the {p.measured_replicas} measured: the efficiency is extrapolated)" if p.extrapolated else ""
        ),
        f"- HPA: `zsc_requests_in_flight` averaging **{p.hpa_in_flight_per_pod}** per pod "
        f"(Little's law: {p.per_replica_rps * p.planned_efficiency:.1f}/s x {p.latency_ms_at_capacity:.0f} ms median), "
        f"minReplicas **{p.min_replicas}**, maxReplicas **{p.max_replicas}**",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("result", type=Path, help="a `make loadtest` result directory (CPU)")
    parser.add_argument("--rate", type=float, required=True, help="the request rate to serve (requests/s)")
    parser.add_argument("--p95-ms", type=float, required=True, help="the p95 latency to hold")
    parser.add_argument("--labels", type=float, help="labels per request (default: the measured workload's mix)")
    parser.add_argument("--cache", choices=["on", "off"], default="off", help="which measured targets to use")
    parser.add_argument("--min-rate", type=float, default=0, help="the lowest rate, for minReplicas")
    parser.add_argument("--gpu", type=Path, help="a `make loadtest` result directory from a GPU machine")
    parser.add_argument("--json", type=Path, help="also write the plan(s) here")
    args = parser.parse_args(argv)
    plans = {}
    try:
        for kind, directory in (("cpu", args.result), ("gpu", args.gpu)):
            if directory is None:
                continue
            p = plan(directory, args.rate, args.p95_ms, args.cache == "on", args.labels, args.min_rate)
            plans[kind] = p.as_dict()
            print(f"## {kind.upper()} replicas\n\n" + report(p, args.rate))
    except (CapacityError, OSError, KeyError) as exc:
        print(f"capacity: {exc}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(plans, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
