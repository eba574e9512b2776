"""Two checkouts of the service side by side, one run: requests/s and latency of the same endpoint at the same
concurrency, alternated A, B, A, B, ... so that a noisy machine's drift falls on both.

    git worktree add ../wt-base <commit>
    .venv/bin/python -m bench.ab --base ../wt-base               # /classify at 32 clients, 4 rounds of 20 s
    # this checkout against itself with other settings: the default runtime against ONNX Runtime fp32, each
    # server pinned to CPU 0 and the load generator to CPU 1
    .venv/bin/python -m bench.ab --base-env ZSC_RUNTIME=onnx --base-env ZSC_PRECISION=fp32 --cpus 0 --loadgen-cpus 1

``--base`` is another checkout (a ``git worktree`` of the commit to compare with; default: this one, then
``--base-env`` says what differs); "head" is this one (``--head-env``: settings of its own). Each
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
from harness.machine import machine_info
from harness.net import free_port
from harness.process import running, thread_cpu_seconds
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
    p.add_argument("--base", type=Path, default=ROOT, help="the other checkout (e.g. a git worktree); default this one")
    p.add_argument("--base-env", action="append", default=[], metavar="ZSC_X=V", help="a setting of the base side")
    p.add_argument("--head-env", action="append", default=[], metavar="ZSC_X=V", help="a setting of the head side")
    p.add_argument("--loadgen-cpus", help="CPUs for this process, the load generator (default: not pinned)")
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--rounds", type=int, default=4, help="per checkout")
    p.add_argument("--labels", type=int, default=5, help="labels per request (make bench's default)")
    p.add_argument("--cpus", help="CPUs for the servers (default: all this process may use)")
    p.add_argument("--env", action="append", default=[], metavar="ZSC_X=V", help="a setting for both sides")
    p.add_argument("--out", type=Path, default=ROOT / "results" / f"ab-{time.strftime('%Y%m%d-%H%M%S')}")
    p.add_argument("--model", help="a model in the store both sides serve (default: the bundled default)")
    a = p.parse_args()
    a.out = a.out.resolve()  # the servers run from other directories
    if a.model:
        a.env.append(f"ZSC_MODEL={a.model}")
    else:
        ensure_default(os.environ)
    cpus = parse_cpus(a.cpus) if a.cpus else allowed_cpus()
    if a.loadgen_cpus:  # the servers' children are pinned by the harness; this process keeps to its own
        os.sched_setaffinity(0, parse_cpus(a.loadgen_cpus))
    sides = {"base": a.base.resolve(), "head": ROOT}
    if sides["base"] == sides["head"] and a.base_env == a.head_env:
        p.error("--base is this checkout: give the sides different settings (--base-env, --head-env)")
    own = {"base": a.base_env, "head": a.head_env}
    a.out.mkdir(parents=True, exist_ok=True)
    say(f"A/B on {format_cpus(cpus)}: /classify at {a.clients} clients, {a.rounds} x {a.seconds:g} s each")
    results: dict[str, list[dict]] = {name: [] for name in sides}
    members = {}
    servers = Path(tempfile.mkdtemp(prefix="zsc-ab-"))  # their homes and logs: not results
    say(f"servers' logs under {servers}")
    for name, checkout in sides.items():
        port = free_port()
        settings = dict(kv.split("=", 1) for kv in [*a.env, *own[name]])
        member = bento_serve(f"ab-{name}", port, servers / name, settings, cpus=cpus, log=servers / f"{name}.log")
        # the checkout first, then what this process was given (packages installed outside a venv, say)
        path = os.pathsep.join(filter(None, [str(checkout), os.environ.get("PYTHONPATH")]))
        members[name] = replace(member, cwd=checkout, env={**member.env, "PYTHONPATH": path})
    seed = int(time.time())
    with contextlib.ExitStack() as stack:  # both started once; the idle one waits while the other is measured
        live = {name: stack.enter_context(running(member, 240)) for name, member in members.items()}
        urls = {name: server.url + "/classify" for name, server in live.items()}
        for rnd in range(a.rounds):
            for name in sides if rnd % 2 == 0 else reversed(list(sides)):
                # warmed up gently: a cold replica hit at once by a closed loop of clients learns a low in-flight
                # limit from its first, slow requests, and then refuses most of them for a while
                run_load(urls[name], bodies(400, seed, a.labels), 4, 5.0)
                cost0 = cost(live[name])
                r = run_load(urls[name], bodies(20000, seed + 1, a.labels), a.clients, a.seconds)
                used = spent(cost0, cost(live[name]))
                seed += 2
                answers = r.requests - r.failures
                answered = r.answered_per_s
                cpu_ms = 1000 * used["cpu_s"] / max(1, answers)
                model_ms = 1000 * used["model_s"] / max(1, answers)
                row = {"round": rnd, "rps": round(answered, 1), "p50_ms": r.p50_ms, "p95_ms": r.p95_ms,
                       "failures": r.failures, "statuses": r.statuses, "cpu_ms": round(cpu_ms, 2),
                       "model_ms": round(model_ms, 2), "outside_ms": round(cpu_ms - model_ms, 2)}  # fmt: skip
                results[name].append(row)
                say(f"round {rnd} {name}: {row['rps']} requests/s, p95 {row['p95_ms']:.0f} ms, {r.failures} failed")
    med = {name: statistics.median(x["rps"] for x in rows) for name, rows in results.items()}
    outside = {name: statistics.median(x["outside_ms"] for x in rows) for name, rows in results.items()}
    summary = {
        "endpoint": "/classify",
        "clients": a.clients,
        "seconds": a.seconds,
        "base": str(sides["base"]),
        "settings": a.env,
        "side_settings": own,
        "cpus": format_cpus(cpus),
        "loadgen_cpus": a.loadgen_cpus or "not pinned",
        "machine": machine_info(),
        "rounds": results,
        "median_rps": med,
        "ratio_head_to_base": round(med["head"] / med["base"], 3),
        "median_outside_model_thread_cpu_ms": outside,
        "outside_ratio_head_to_base": round(outside["head"] / outside["base"], 3) if outside["base"] > 0 else None,
    }
    (a.out / "ab.json").write_text(json.dumps(summary, indent=2) + "\n")
    settings = ", ".join(a.env) or "defaults"
    info = summary["machine"]
    lines = [f"# A/B: /classify at {a.clients} clients", "", f"base: `{sides['base']}`; settings: {settings}; "
             f"base's own: {', '.join(a.base_env) or 'none'}; head's own: {', '.join(a.head_env) or 'none'}", "",
             f"{info['cpu']}; flags of note: {' '.join(info['cpu_flags']) or 'none'}; servers on CPUs "
             f"{format_cpus(cpus)}, load generator on {a.loadgen_cpus or 'any'}", ""]  # fmt: skip
    lines += table(
        ["round", "side", "answered/s (200)", "p50 ms", "p95 ms", "failed", "CPU ms/answer", "model thread ms",
         "outside ms"],
        [[x["round"], n, x["rps"], f"{x['p50_ms']:.0f}", f"{x['p95_ms']:.0f}", x["failures"], x["cpu_ms"],
          x["model_ms"], x["outside_ms"]] for n, rows in results.items() for x in rows],
    )  # fmt: skip
    lines += ["", f"median requests/s: base {med['base']:.1f}, head {med['head']:.1f}; "
              f"head / base = **{summary['ratio_head_to_base']}**", "",
              f"median CPU ms per answer outside the model's thread: base {outside['base']:.2f}, head "
              f"{outside['head']:.2f}; head / base = **{summary['outside_ratio_head_to_base']}**"]  # fmt: skip
    (a.out / "ab.md").write_text("\n".join(lines) + "\n")
    say(f"head / base = {summary['ratio_head_to_base']} -> {a.out}")


def cost(server) -> dict[tuple[int, int], float]:
    """CPU seconds each thread of a server's process tree (every worker, the supervisor) has used so far."""
    return thread_cpu_seconds(server.pids())


def spent(before: dict[tuple[int, int], float], after: dict[tuple[int, int], float]) -> dict[str, float]:
    """CPU seconds between two ``cost``s: in all, and in each process's busiest thread, where the model runs
    (its forward pass, with its batch's tokenization); the rest is the request path: HTTP, validation, the
    cache, batching, the answer. Threads, not the forward-pass histogram: that one is wall time, which a
    core shared with anything else inflates."""
    used: dict[int, list[float]] = {}
    for (pid, tid), seconds in after.items():
        used.setdefault(pid, []).append(seconds - before.get((pid, tid), 0.0))
    return {"cpu_s": sum(sum(v) for v in used.values()), "model_s": sum(max(v) for v in used.values())}


if __name__ == "__main__":
    main()
