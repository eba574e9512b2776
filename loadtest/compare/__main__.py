"""``python -m loadtest.compare``: the load-test command line (see the package docstring)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict
from pathlib import Path

from harness import ROOT
from harness.cpus import format_cpus
from harness.progress import say
from loadtest import compare

from .plan import FULL, SMOKE, Plan, placement
from .report import write_report
from .run import DEFAULT_MODEL, Quiet, resolve_model, run


def _ints(spec: str) -> list[int]:
    return [int(x) for x in spec.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=compare.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="CI size: 2 users, 10 s, cache on, 1 and 2 replicas")
    parser.add_argument("--users", help="user counts, e.g. 1,4,16,32,64")
    parser.add_argument("--step-s", type=float, help="seconds per user count")
    parser.add_argument("--replicas", help="replica counts to test, e.g. 1,2 (1 = straight to the replica)")
    parser.add_argument("--cache", help="off,on | off | on")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive baseline")
    parser.add_argument(
        "--model", help=f"model in $BENTOML_HOME (default {DEFAULT_MODEL}) or minilm-nli / structbert-base"
    )
    parser.add_argument("--repeat-rate", type=float, help="share of requests from the Zipf hot set (default 0.3)")
    parser.add_argument("--labels", help="labels per text, MIN-MAX (default 2-20)")
    parser.add_argument("--batch-share", type=float, help="share of requests to /classify_batch (default 0.2)")
    parser.add_argument("--think", help="think time in seconds, MIN-MAX (default 0-0.5)")
    parser.add_argument("--shipped-only", action="store_true", help="only loadtest/data/workload.jsonl")
    parser.add_argument("--loadgen-cpus", help="Locust's CPU set (default: the last CPU)")
    parser.add_argument("--server-cpus", help="the servers' CPU set (default: the others)")
    parser.add_argument("--no-pin", action="store_true", help="no CPU pinning at all")
    parser.add_argument("--max-minutes", type=float, help="stop starting steps after this long (default 1.5x plan)")
    parser.add_argument(
        "--wait-quiet",
        type=float,
        metavar="SECONDS",
        help="on a shared machine: before each step wait (at most this long in all) until other processes use "
        "under 0.25 cores, and run a step again once if they used more during it (default: 600 full, 0 smoke)",
    )
    parser.add_argument("--out", type=Path, help="result folder (default results/<time>)")
    args = parser.parse_args(argv)

    plan = Plan(**asdict(SMOKE if args.smoke else FULL))
    for name, value in (
        ("users", args.users and _ints(args.users)),
        ("step_s", args.step_s),
        ("replicas", args.replicas and _ints(args.replicas)),
        ("cache", args.cache and [c.strip() == "on" for c in args.cache.split(",")]),
        ("repeat_rate", args.repeat_rate),
        ("labels", args.labels),
        ("batch_share", args.batch_share),
        ("think", args.think),
    ):
        if value is not None and value != "":
            setattr(plan, name, value)
    plan.naive = not args.no_naive
    plan.shipped_only = args.shipped_only
    place = placement(args.loadgen_cpus, args.server_cpus, not args.no_pin)
    out = (args.out or ROOT / "results" / time.strftime("%Y%m%d-%H%M%S")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    estimate = plan.estimate_s()
    limit_s = (args.max_minutes * 60) if args.max_minutes else estimate * 1.5 + 60
    say(f"load test -> {out}")
    say(
        f"targets: {', '.join(t.label for t in plan.targets())}; users {plan.users}, {plan.step_s:g} s each; "
        f"about {estimate / 60:.1f} min (stops starting steps after {limit_s / 60:.1f} min)"
    )
    say(
        f"CPUs: Locust {format_cpus(place.loadgen)}, servers {format_cpus(place.server)}, "
        f"nginx+redis {format_cpus(place.front)}"
    )
    model = resolve_model(args.model)
    say(f"model {model.name} ({model.info.kind}) from {model.stored.path}")
    wait_quiet = args.wait_quiet if args.wait_quiet is not None else (0 if args.smoke else 600)
    results = run(plan, place, model, out, limit_s, Quiet(wait_quiet))
    write_report(results, out)
    say(f"wrote {out / 'report.md'}, {out / 'throughput.png'}, {out / 'latency.png'}, {out / 'summary.csv'}")
    failed = [t.label for t in results.targets if t.error]
    if failed:
        say(f"targets that failed: {', '.join(failed)}")
    return 1 if failed or not results.steps else 0


if __name__ == "__main__":
    sys.exit(main())
