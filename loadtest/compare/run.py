"""Running a load-test plan: start each target (naive server, or redis + replicas + nginx), warm it up, run
Locust headless once per user count (pinned to its own CPUs), measure CPU use, stop the target."""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from harness import ROOT
from harness import cluster as local_cluster
from harness.launchers import QUIET_ENV, naive_server, venv_bin
from harness.machine import machine_info, versions
from harness.net import free_port
from harness.process import (
    HarnessError,
    Member,
    busiest_process,
    machine_busy_seconds,
    running,
    start,
    tree_cpu_seconds,
)
from harness.progress import say
from harness.store import StoredModel, ensure_default, stored_model, use_home
from loadtest.workload import label_pools, load_rows, request_body
from service.config import DEFAULT_MODEL

from .plan import Placement, Plan, Target
from .results import EndpointStats, MemberInfo, ModelInfo, Results, Step, TargetResult

LOCUSTFILE = ROOT / "loadtest" / "locustfile.py"
PERCENTILES = ("50%", "95%", "99%")


# -- the model -----------------------------------------------------------------------------------------
@dataclass
class ServedModel:
    stored: StoredModel
    name: str
    env: dict[str, str]  # BENTOML_HOME (and ZSC_MODEL) for every server

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(self.name, self.stored.kind, self.stored.metadata.get("default_template") or "{}")


def resolve_model(name: str | None) -> ServedModel:
    """The bundled model in $BENTOML_HOME (imported when missing), a model already in that store, or one
    of the benchmark models (minilm-nli, structbert-base: random weights) imported into .bench/."""
    from loadtest.models import MODELS, ensure_imported

    env = {**os.environ, **QUIET_ENV}
    if name in MODELS:
        env["BENTOML_HOME"] = str(ROOT / ".bench" / "bentoml_home")
        ensure_imported(MODELS[name], ROOT / ".bench", env)
    else:
        env["BENTOML_HOME"] = str(Path(env.get("BENTOML_HOME") or Path.home() / "bentoml"))
        name = name or DEFAULT_MODEL
        ensure_default({**env, "ZSC_MODEL": name})  # imports a bundled model when missing
    use_home(Path(env["BENTOML_HOME"]))
    env["ZSC_MODEL"] = name
    return ServedModel(stored_model(name), name, env)


# -- targets -------------------------------------------------------------------------------------------
@dataclass
class LiveTarget:
    url: str
    server_pids: list[int]
    front_pids: list[int]
    members: list[MemberInfo]


def _member_info(name: str, pid: int, cpus: list[int] | None, threads: int | None) -> MemberInfo:
    seen = busiest_process(pid)
    if seen is None:
        return MemberInfo(name, cpus, threads)
    return MemberInfo(name, cpus, threads, seen.affinity, seen.os_threads, seen.pid)


@contextlib.contextmanager
def run_naive(model: ServedModel, cpus: list[int] | None, logs: Path) -> Iterator[LiveTarget]:
    """The naive server, pinned to ``cpus`` (None: not pinned); it runs one torch thread per CPU it may use."""
    member = naive_server(
        "naive-server", free_port(), logs, model.stored.path, model.info.kind, model.info.template, model.env, cpus
    )
    with running(member, ready_timeout=300) as server:
        threads = len(cpus or os.sched_getaffinity(0))
        yield LiveTarget(server.url, [server.pid], [], [_member_info("naive", server.pid, cpus, threads)])


@contextlib.contextmanager
def run_cluster(model: ServedModel, target: Target, place: Placement, logs: Path) -> Iterator[LiveTarget]:
    run_dir = logs / f"cluster-{target.key}"
    spec = local_cluster.ClusterSpec(
        replicas=target.replicas,
        port=0,
        base_port=0,
        redis=target.cache,
        redis_port=0,
        jobs_redis=False,  # no jobs here: the same processes as the recorded runs
        env={**model.env, **({} if target.cache else {"ZSC_CACHE_LOCAL_ENTRIES": "0"})},
        ready_timeout=240,
        cpus=tuple(",".join(map(str, c)) for c in place.replicas(target.replicas)) if place.pinned else (),
        front_cpus=",".join(map(str, place.front)) if place.pinned else None,
    )
    log_path = logs / f"cluster-{target.key}.log"

    def log(msg: str) -> None:
        with log_path.open("a") as fh:
            fh.write(f"[cluster] {msg}\n")

    try:
        state = local_cluster.up(run_dir, spec, log)
        members = [_member_info(r.name, r.pid, r.cpus, r.threads) for r in state.replicas]
        url = state.replicas[0].url if target.replicas == 1 else state.nginx.url
        front = [state.nginx.pid] + ([state.redis.pid] if state.redis else [])
        yield LiveTarget(url, [r.pid for r in state.replicas], front, members)
    except HarnessError as exc:
        raise RuntimeError(f"cluster up failed: see {log_path}: {str(exc)[:500]}") from exc
    finally:
        local_cluster.down(run_dir, grace=20, say=log)


def warm_up(url: str, n: int, naive: bool) -> str | None:
    """A few requests of every size, on texts no measured request carries; returns the model tag."""
    rows = load_rows()
    pools = label_pools(rows)
    rng = random.Random(99)
    tag = None
    with httpx.Client(timeout=120) as client:
        for i in range(n):
            body = request_body(rng.choice(rows), pools, rng, 2 + (i * 5) % 19)
            body["text"] = f"warm-up {i}: {body['text']}"
            r = client.post(f"{url}/classify", json=body)
            r.raise_for_status()
            tag = r.json().get("model", tag)
            if not naive and i == 0:
                client.post(f"{url}/classify_batch", json={"items": [body, body]}).raise_for_status()
    return tag


# -- one step: Locust headless -------------------------------------------------------------------------
@dataclass
class CpuUse:
    """Cores busy on average over a step's wall time, by who used them."""

    wall_s: float
    server_s: float
    front_s: float
    loadgen_s: float
    machine_s: float

    def cores(self, seconds: float) -> float:
        return seconds / self.wall_s

    @property
    def other_s(self) -> float:
        return max(0.0, self.machine_s - self.server_s - self.front_s - self.loadgen_s)


def locust_member(plan: Plan, target: Target, url: str, users: int, salt: str, prefix: Path, totals: Path, logs: Path):
    cmd = [venv_bin("locust"), "-f", str(LOCUSTFILE), "--headless", "-u", str(users), "-r", str(users)]
    cmd += ["--run-time", f"{int(plan.step_s)}s", "--host", url, "--csv", str(prefix), "--only-summary"]
    cmd += ["--stop-timeout", "0", "--exit-code-on-error", "0", "--loglevel", "WARNING"]
    cmd += ["--logfile", str(logs / f"locust-{target.key}-u{users}.log")]
    cmd += ["--zsc-repeat-rate", str(plan.repeat_rate), "--zsc-labels", plan.labels, "--zsc-think", plan.think]
    cmd += ["--zsc-batch-share", str(plan.batch_share), "--zsc-salt", salt, "--zsc-stats-out", str(totals)]
    if plan.shipped_only:
        cmd += ["--zsc-shipped-only"]
    if target.replicas == 0:
        cmd += ["--zsc-naive", "--exclude-tags", "classify_batch"]  # the naive server has /classify only
    return cmd


def run_step(
    plan: Plan, target: Target, live: LiveTarget, users: int, place: Placement, out: Path, logs: Path, salt: str
) -> Step:
    csv_dir = out / "csv" / target.key
    csv_dir.mkdir(parents=True, exist_ok=True)
    prefix = csv_dir / f"u{users}"
    totals = csv_dir / f"u{users}_zsc.json"
    member = Member(
        name=f"locust-{target.key}-u{users}",
        cmd=locust_member(plan, target, live.url, users, salt, prefix, totals, logs),
        log=logs / f"locust-{target.key}-u{users}.out",
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
        cpus=place.loadgen if place.pinned else None,
    )
    history = Path(f"{prefix}_stats_history.csv")
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = start(member)
    try:
        # CPU is counted from the moment Locust starts its test (it opens its history CSV then),
        # not from its own start-up (imports, reading the workload)
        t_start = time.monotonic() + 30
        while time.monotonic() < t_start and proc.alive() and not history.exists():
            time.sleep(0.05)
        locust0 = tree_cpu_seconds([proc.pid])
        server0, front0 = tree_cpu_seconds(live.server_pids), tree_cpu_seconds(live.front_pids)
        busy0, t0 = machine_busy_seconds(), time.monotonic()
        returncode = proc.wait(timeout=plan.step_s + 90)
    except subprocess.TimeoutExpired:
        returncode = None
    finally:
        proc.stop(grace=5)
    # Locust's CPU from the kernel's account of reaped children: it has exited, psutil cannot read it now
    children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    locust_s = (children1.ru_utime - children0.ru_utime) + (children1.ru_stime - children0.ru_stime)
    use = CpuUse(
        wall_s=time.monotonic() - t0,
        server_s=tree_cpu_seconds(live.server_pids) - server0,
        front_s=tree_cpu_seconds(live.front_pids) - front0,
        loadgen_s=locust_s - locust0,
        machine_s=machine_busy_seconds() - busy0,
    )
    failures_csv = Path(f"{prefix}_failures.csv")
    if failures_csv.exists() and len(failures_csv.read_text().strip().splitlines()) <= 1:
        failures_csv.unlink()  # header only: no failures to keep
    # keep what the report needs next to the results; the per-second history goes with the logs
    for extra in ("_stats_history.csv", "_exceptions.csv"):
        src = Path(f"{prefix}{extra}")
        if src.exists():
            src.replace(logs / f"{target.key}-u{users}{extra}")
    if returncode != 0 or not totals.exists() or not Path(f"{prefix}_stats.csv").exists():
        raise RuntimeError(f"locust failed ({returncode}): see {member.log}")
    return summarize_step(target, users, prefix, json.loads(totals.read_text()), use)


def _num(value: str | None) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def read_locust_csv(prefix: Path) -> dict[str, dict]:
    import csv

    with open(f"{prefix}_stats.csv", newline="") as fh:
        return {row["Name"]: row for row in csv.DictReader(fh)}


def summarize_step(target: Target, users: int, prefix: Path, totals: dict, use: CpuUse) -> Step:
    rows = read_locust_csv(prefix)
    agg = rows.get("Aggregated", {})
    window = totals.get("window_s") or 0.0
    requests, failures = totals.get("requests", 0), totals.get("failures", 0)
    ok = max(0, requests - failures)
    cache = {k.split(" ", 1)[1]: v for k, v in totals.items() if k.startswith("x-cache ")}
    rate = (lambda n: n / window) if window > 0 else (lambda n: 0.0)

    def percentiles(row: dict) -> dict[str, float | None]:
        return {f"p{p.rstrip('%')}_ms": _num(row.get(p)) for p in PERCENTILES}

    endpoints = {
        name: EndpointStats(
            requests=int(row["Request Count"]),
            failures=int(row["Failure Count"]),
            requests_per_s=_num(row["Requests/s"]),
            **percentiles(row),
        )
        for name, row in rows.items()
        if name != "Aggregated"
    }
    return Step(
        target=target.key,
        label=target.label,
        users=users,
        window_s=round(window, 2),
        requests=requests,
        failures=failures,
        failure_rate=failures / requests if requests else 0.0,
        requests_per_s=rate(requests),
        texts_per_s=rate(totals.get("texts", 0)),
        pairs_per_s=rate(totals.get("pairs", 0)),
        labels_per_text=totals.get("pairs", 0) / totals["texts"] if totals.get("texts") else None,
        **percentiles(agg),
        cache_hit_rate=cache.get("hit", 0) / ok if ok else None,
        x_cache=cache,
        endpoints=endpoints,
        server_cores=use.cores(use.server_s),
        front_cores=use.cores(use.front_s),
        loadgen_cores=use.cores(use.loadgen_s),
        other_cores=use.cores(use.other_s),
    )


# -- the run -------------------------------------------------------------------------------------------
class Quiet:
    """Waits, within a total allowance, until other processes leave the CPUs alone (a shared machine)."""

    def __init__(self, allowance_s: float, threshold_cores: float = 0.25) -> None:
        self.left, self.threshold, self.waited = allowance_s, threshold_cores, 0.0

    def others(self, own_pids: list[int], sample_s: float = 2.0) -> float:
        busy0, own0 = machine_busy_seconds(), tree_cpu_seconds(own_pids)
        time.sleep(sample_s)
        return max(0.0, (machine_busy_seconds() - busy0 - (tree_cpu_seconds(own_pids) - own0)) / sample_s)

    def wait(self, own_pids: list[int]) -> float:
        """Cores other processes used just now (after waiting, when that was allowed)."""
        others, said = self.others(own_pids), False
        while others > self.threshold and self.left > 0:
            if not said:
                say(f"  other processes use {others:.2f} cores: waiting for them (up to {self.left:.0f} s)")
                said = True
            t0 = time.monotonic()
            time.sleep(min(10.0, self.left))
            others = self.others(own_pids)
            spent = time.monotonic() - t0
            self.left -= spent
            self.waited += spent
        return others


def run(plan: Plan, place: Placement, model: ServedModel, out: Path, limit_s: float, quiet: Quiet) -> Results:
    """Every target in turn; a step starts only while the time limit (plus time spent waiting for a quiet
    machine) allows; a step disturbed by other processes is run again once when ``quiet`` allows waiting."""
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    t_start = time.monotonic()

    def time_left() -> float:
        return t_start + limit_s + quiet.waited - time.monotonic()

    results = Results(
        run=out.name,
        started=time.time(),
        plan=plan,
        placement=place,
        model=model.info,
        machine=machine_info(),
        versions=versions(),
    )
    for target in plan.targets():
        entry = TargetResult(target.key, target.label, target.replicas, target.cache)
        results.targets.append(entry)
        if time_left() < plan.step_s:
            say(f"{target.label}: skipped, the run's time limit is reached")
            entry.skipped = "time limit"
            continue
        say(f"{target.label}: starting")
        if target.replicas == 0:
            ctx = run_naive(model, place.server if place.pinned else None, logs)
        else:
            ctx = run_cluster(model, target, place, logs)
        try:
            with ctx as live:
                entry.url, entry.members = live.url, live.members
                entry.model_tag = warm_up(live.url, plan.warmup_requests, target.replicas == 0)
                _run_steps(plan, target, entry, live, place, out, logs, quiet, time_left, results)
        except (RuntimeError, subprocess.TimeoutExpired, httpx.HTTPError, TimeoutError) as exc:
            say(f"{target.label}: FAILED: {exc}")
            entry.error = str(exc)[:2000]
    results.finished = time.time()
    results.waited_for_quiet_s = round(quiet.waited, 1)
    return results


def _run_steps(plan, target, entry, live, place, out, logs, quiet, time_left, results) -> None:
    for i, users in enumerate(plan.users):
        own = live.server_pids + live.front_pids
        step = None
        for attempt in (1, 2):
            before = quiet.wait(own)
            if time_left() < plan.step_s:
                break
            salt = f"{results.run}.{target.key}.u{users}.{attempt}"
            step = run_step(plan, target, live, users, place, out, logs, salt)
            step.others_before_cores = round(before, 3)
            _say_step(step)
            if step.other_cores <= quiet.threshold or quiet.left <= 0 or attempt == 2:
                break
            say("  other processes shared the machine during this step: running it again")
        if step is None:
            entry.skipped_users, entry.skip_reason = plan.users[i:], "time limit"
            return
        results.steps.append(step)
        saturated = (step.p95_ms or 0) > plan.stop_p95_s * 1000 or step.failure_rate > plan.stop_failures
        if saturated and i + 1 < len(plan.users):
            entry.skipped_users = plan.users[i + 1 :]
            entry.skip_reason = (
                f"saturated at {users} users (p95 over {plan.stop_p95_s:g} s or failures over {plan.stop_failures:.0%})"
            )
            say(f"  saturated: skipping {entry.skipped_users}")
            return


def _say_step(step: Step) -> None:
    from harness.report import ms

    say(
        f"  {step.users:>3} users: {step.requests_per_s:.1f} req/s, {step.pairs_per_s:.0f} pairs/s, "
        f"p50/p95/p99 {ms(step.p50_ms)}/{ms(step.p95_ms)}/{ms(step.p99_ms)} ms, "
        f"failures {step.failure_rate:.1%}, server {step.server_cores:.2f} cores, "
        f"locust {step.loadgen_cores:.2f}, other {step.other_cores:.2f}"
    )
