"""Two checkouts of the service side by side, one run: requests/s and latency of the same endpoint at the same
concurrency, alternated A, B, A, B, ... so that a noisy machine's drift falls on both.

    git worktree add ../wt-base <commit>
    .venv/bin/python -m bench.ab --base ../wt-base               # /classify at 32 clients, 4 rounds of 20 s

``--base`` is another checkout (a ``git worktree`` of the commit to compare with); "head" is this one. Each
is served by `bentoml serve` from its own directory (the same model store, the same CPUs), both started
once (the idle one waits while the other is measured) and warmed up each round; every round sends fresh
texts (a new seed: no cache hit) from ``--clients`` closed-loop clients for ``--seconds``; what counts is
answers (200s) per second. Writes ``ab.json`` and ``ab.md`` (per round, and the ratio of the medians).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.suite import make_bodies
from harness import ROOT
from harness.cpus import allowed_cpus, format_cpus, parse_cpus
from harness.launchers import bento_serve
from harness.net import free_port
from harness.process import running
from harness.progress import say
from harness.report import table
from harness.store import ensure_default
from loadtest.loadgen import run_load


def bodies(n: int, seed: int, n_labels: int) -> list[dict]:
    """``make bench``'s workload (news and support sentences, English and Chinese), every text marked with
    the round's seed: never seen by either server before (no cache hit)."""
    return [{**b, "text": f"{b['text']} ({seed}-{i})"} for i, b in enumerate(make_bodies(n, n_labels, seed=seed))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", type=Path, required=True, help="the other checkout (e.g. a git worktree)")
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--rounds", type=int, default=4, help="per checkout")
    p.add_argument("--labels", type=int, default=5, help="labels per request (make bench's default)")
    p.add_argument("--cpus", help="CPUs for the servers (default: all this process may use)")
    p.add_argument("--env", action="append", default=[], metavar="ZSC_X=V", help="a setting for both sides")
    p.add_argument("--out", type=Path, default=ROOT / "results" / f"ab-{time.strftime('%Y%m%d-%H%M%S')}")
    a = p.parse_args()
    a.out = a.out.resolve()  # the servers run from other directories
    ensure_default(os.environ)
    cpus = parse_cpus(a.cpus) if a.cpus else allowed_cpus()
    sides = {"base": a.base.resolve(), "head": ROOT}
    a.out.mkdir(parents=True, exist_ok=True)
    say(f"A/B on {format_cpus(cpus)}: /classify at {a.clients} clients, {a.rounds} x {a.seconds:g} s each")
    results: dict[str, list[dict]] = {name: [] for name in sides}
    members = {}
    servers = Path(tempfile.mkdtemp(prefix="zsc-ab-"))  # their homes and logs: not results
    say(f"servers' logs under {servers}")
    for name, checkout in sides.items():
        port = free_port()
        settings = dict(kv.split("=", 1) for kv in a.env)
        member = bento_serve(f"ab-{name}", port, servers / name, settings, cpus=cpus, log=servers / f"{name}.log")
        members[name] = replace(member, cwd=checkout, env={**member.env, "PYTHONPATH": str(checkout)})
    seed = int(time.time())
    with contextlib.ExitStack() as stack:  # both started once; the idle one waits while the other is measured
        urls = {name: stack.enter_context(running(member, 240)).url + "/classify" for name, member in members.items()}
        for rnd in range(a.rounds):
            for name in sides if rnd % 2 == 0 else reversed(list(sides)):
                # warmed up gently: a cold replica hit at once by a closed loop of clients learns a low in-flight
                # limit from its first, slow requests, and then refuses most of them for a while
                run_load(urls[name], bodies(400, seed, a.labels), 4, 5.0)
                r = run_load(urls[name], bodies(20000, seed + 1, a.labels), a.clients, a.seconds)
                seed += 2
                answered = (r.requests - r.failures) / r.duration_s  # 200s: a refusal is no throughput
                row = {"round": rnd, "rps": round(answered, 1), "p50_ms": r.p50_ms, "p95_ms": r.p95_ms,
                       "failures": r.failures, "statuses": r.statuses}  # fmt: skip
                results[name].append(row)
                say(f"round {rnd} {name}: {row['rps']} requests/s, p95 {row['p95_ms']:.0f} ms, {r.failures} failed")
    med = {name: statistics.median(x["rps"] for x in rows) for name, rows in results.items()}
    summary = {
        "endpoint": "/classify",
        "clients": a.clients,
        "seconds": a.seconds,
        "base": str(sides["base"]),
        "settings": a.env,
        "rounds": results,
        "median_rps": med,
        "ratio_head_to_base": round(med["head"] / med["base"], 3),
    }
    (a.out / "ab.json").write_text(json.dumps(summary, indent=2) + "\n")
    settings = ", ".join(a.env) or "defaults"
    lines = [f"# A/B: /classify at {a.clients} clients", "", f"base: `{sides['base']}`; settings: {settings}", ""]
    lines += table(
        ["round", "side", "answered/s (200)", "p50 ms", "p95 ms", "failed"],
        [[x["round"], n, x["rps"], f"{x['p50_ms']:.0f}", f"{x['p95_ms']:.0f}", x["failures"]]
         for n, rows in results.items() for x in rows],
    )  # fmt: skip
    lines += ["", f"median requests/s: base {med['base']:.1f}, head {med['head']:.1f}; "
              f"head / base = **{summary['ratio_head_to_base']}**"]  # fmt: skip
    (a.out / "ab.md").write_text("\n".join(lines) + "\n")
    say(f"head / base = {summary['ratio_head_to_base']} -> {a.out}")


if __name__ == "__main__":
    main()
