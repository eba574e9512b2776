"""Load-test comparison: Locust against the naive baseline, one replica and N replicas behind nginx,
cache off and on, step load over user counts; writes a report with tables and charts. One command:

    make loadtest          # full run, about 10 minutes on 2 cores -> loadtest/results/<time>/report.md
    make loadtest-smoke    # about 1.5 minutes (CI): a few users, 10 s per target
    .venv/bin/python -m loadtest.compare --help

For each target in turn (never two at once): start it (``loadtest.naive_server``, or
``deploy/local/cluster.py up``) pinned to its CPU set, warm it up, run Locust headless once per user
count (``--headless -u N -r N --run-time S --csv ...``, Locust pinned to its own CPU set), stop it.
Every step is bounded by ``--step-s`` (and a hard timeout); once a step is saturated (p95 over
``--stop-p95-s`` or more than ``--stop-failures`` failed), the larger user counts of that target are
skipped. Everything listens on 127.0.0.1.

Output, under ``loadtest/results/<run>/``: ``report.md``, ``throughput.png``, ``latency.png``,
``summary.csv`` (one row per target and user count), ``results.json``, Locust's own CSVs in
``csv/<target>/``; logs in ``logs/`` (not committed).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from loadtest.procs import free_port, start, stop, wait_ready
from loadtest.workload import label_pools, load_rows, request_body

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CLUSTER = ROOT / "deploy" / "local" / "cluster.py"
LOCUSTFILE = ROOT / "loadtest" / "locustfile.py"
DEFAULT_MODEL = "all-minilm-l6-v2"
PERCENTILES = ("50%", "95%", "99%")
DATASETS = " plus ../shared/datasets (THUCNews headlines, CIC intents) when present"


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# -- plan ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    key: str  # folder name
    label: str  # what the report calls it
    replicas: int  # 0 = the naive baseline
    cache: bool


@dataclass
class Plan:
    users: list[int]
    step_s: float
    replicas: list[int]
    cache: list[bool]
    naive: bool = True
    repeat_rate: float = 0.3
    labels: str = "2-20"
    batch_share: float = 0.2
    think: str = "0-0.5"
    shipped_only: bool = False
    stop_p95_s: float = 10.0
    stop_failures: float = 0.2
    warmup_requests: int = 12

    def targets(self) -> list[Target]:
        out = [Target("naive", "naive baseline", 0, False)] if self.naive else []
        for n in self.replicas:
            for cache in self.cache:
                what = "1 replica" if n == 1 else f"{n} replicas + nginx"
                out.append(
                    Target(
                        f"r{n}-cache-{'on' if cache else 'off'}", f"{what}, cache {'on' if cache else 'off'}", n, cache
                    )
                )
        return out

    def estimate_s(self) -> float:
        per_target = 25 + self.warmup_requests * 0.3
        return len(self.targets()) * (per_target + len(self.users) * (self.step_s + 4))


FULL = Plan(users=[1, 4, 16, 32, 64], step_s=15, replicas=[1, 2], cache=[False, True])
SMOKE = Plan(users=[2], step_s=10, replicas=[1, 2], cache=[True], warmup_requests=4)


# -- CPU placement -------------------------------------------------------------------------------------
@dataclass
class Placement:
    """Who runs on which CPUs. The load generator gets its own CPUs when there are enough; the servers
    get the rest; N replicas split the server CPUs, or share CPUs with the load generator when there are
    fewer server CPUs than replicas (the 2-core case: say so in the report)."""

    loadgen: list[int]
    server: list[int]
    front: list[int]  # nginx and redis-server
    notes: list[str] = field(default_factory=list)
    pinned: bool = True

    def replicas(self, n: int) -> list[list[int] | None]:
        if not self.pinned:
            return [None] * n
        if len(self.server) >= n:
            per = len(self.server) // n
            return [self.server[i * per : (i + 1) * per] for i in range(n)]
        every = sorted(set(self.server) | set(self.loadgen))
        return [[every[i % len(every)]] for i in range(n)]


def cpu_list(cpus: list[int]) -> str:
    return ",".join(map(str, cpus))


def parse_cpus(spec: str) -> list[int]:
    out: set[int] = set()
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return sorted(out)


def placement(loadgen: str | None, server: str | None, pin: bool) -> Placement:
    cpus = sorted(os.sched_getaffinity(0))
    if not pin:
        return Placement(cpus, cpus, cpus, ["no pinning: every process may run on every CPU"], pinned=False)
    lg = parse_cpus(loadgen) if loadgen else cpus[-1:]
    sv = parse_cpus(server) if server else ([c for c in cpus if c not in lg] or cpus)
    return Placement(lg, sv, lg)


# -- the model -----------------------------------------------------------------------------------------
@dataclass
class ModelInfo:
    name: str
    kind: str
    path: Path
    template: str
    env: dict[str, str]  # BENTOML_HOME (and ZSC_MODEL) for every server


def resolve_model(name: str | None) -> ModelInfo:
    """The bundled model in $BENTOML_HOME (imported when missing), a model already in that store, or one
    of the benchmark models (minilm-nli, structbert-base: random weights) imported into .bench/."""
    import yaml

    from loadtest import bench

    env = {**os.environ, "BENTOML_DO_NOT_TRACK": "True", "PYTHONUNBUFFERED": "1"}
    if name in bench.MODELS:
        env["BENTOML_HOME"] = str(ROOT / ".bench" / "bentoml_home")
        path = bench.ensure_imported(bench.MODELS[name], ROOT / ".bench", env)
    else:
        home = Path(env.get("BENTOML_HOME") or Path.home() / "bentoml")
        env["BENTOML_HOME"] = str(home)
        name = name or DEFAULT_MODEL
        if name == DEFAULT_MODEL:
            subprocess.run(
                [str(BIN / "zsc"), "-q", "ensure-default"],
                env=env,
                check=True,
                cwd=ROOT,
                timeout=900,
                capture_output=True,
            )
        folder = home / "models" / name
        if not (folder / "latest").is_file():
            raise SystemExit(f"model {name!r} is not in {home}/models: import it first (zsc import-model)")
        path = folder / (folder / "latest").read_text().strip()
    env["ZSC_MODEL"] = name
    meta = yaml.safe_load((path / "model.yaml").read_text())["metadata"]
    return ModelInfo(name, meta["kind"], path, meta.get("default_template") or "{}", env)


# -- processes and CPU accounting ----------------------------------------------------------------------
def tree_cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by these processes and their descendants."""
    import psutil

    total, seen = 0.0, set()
    for pid in pids:
        try:
            procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        for p in procs:
            if p.pid in seen:
                continue
            seen.add(p.pid)
            with contextlib.suppress(psutil.NoSuchProcess):
                t = p.cpu_times()
                total += t.user + t.system
    return total


def machine_busy_s() -> float:
    import psutil

    t = psutil.cpu_times()
    return sum(t) - t.idle - getattr(t, "iowait", 0.0) - getattr(t, "guest", 0.0) - getattr(t, "guest_nice", 0.0)


def describe_processes(pids: list[int]) -> dict:
    """CPU affinity and OS threads of the process that does the work (the deepest descendant)."""
    import psutil

    try:
        p = psutil.Process(pids[0])
        procs = [p, *p.children(recursive=True)]
        worker = max(procs, key=lambda q: q.num_threads())
        return {"affinity": sorted(worker.cpu_affinity()), "os_threads": worker.num_threads(), "pid": worker.pid}
    except (psutil.NoSuchProcess, IndexError):
        return {}


@dataclass
class Running:
    url: str
    server_pids: list[int]
    front_pids: list[int]
    members: list[dict]  # per replica (or the naive server): name, cpus, threads, affinity seen, OS threads


@contextlib.contextmanager
def run_naive(model: ModelInfo, cpus: list[int] | None, logs: Path) -> Iterator[Running]:
    """The naive server, pinned to ``cpus`` (None: not pinned); it runs one torch thread per CPU it may use."""
    port = free_port()
    cmd = [str(BIN / "python"), "-m", "loadtest.naive_server", "--model-dir", str(model.path)]
    cmd += ["--kind", model.kind, "--port", str(port), "--template", model.template]
    taskset = shutil.which("taskset")
    if cpus and taskset:
        cmd = [taskset, "-c", cpu_list(cpus), *cmd]  # taskset execs: the PID is the server's
    proc = start(cmd, model.env, logs / "naive-server.log")
    if cpus and not taskset:  # before it imports torch, which sizes its thread pool from the affinity
        os.sched_setaffinity(proc.pid, cpus)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, proc, timeout=300, log=logs / "naive-server.log", path="/healthz")
        seen = describe_processes([proc.pid])
        threads = len(cpus or os.sched_getaffinity(0))
        member = {"name": "naive", "cpus": cpus, "threads": threads, **seen}
        yield Running(url, [proc.pid], [], [member])
    finally:
        stop(proc)


@contextlib.contextmanager
def run_cluster(model: ModelInfo, target: Target, place: Placement, logs: Path) -> Iterator[Running]:
    run_dir = logs / f"cluster-{target.key}"
    args = ["up", "--replicas", str(target.replicas), "--port", "0", "--base-port", "0", "--redis-port", "0"]
    args += ["--ready-timeout", "240"]
    if place.pinned:
        for cpus in place.replicas(target.replicas):
            args += ["--cpus", cpu_list(cpus)]
        args += ["--front-cpus", cpu_list(place.front)]
    if not target.cache:
        args += ["--no-redis", "--env", "ZSC_CACHE_LOCAL_ENTRIES=0"]
    base = [str(BIN / "python"), str(CLUSTER), "--run-dir", str(run_dir)]
    try:
        with (logs / f"cluster-{target.key}.log").open("ab") as log:
            up = subprocess.run(
                [*base, *args], env=model.env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, timeout=420
            )
        if up.returncode != 0:
            raise RuntimeError(f"cluster up failed: see {logs / f'cluster-{target.key}.log'}")
        state = json.loads((run_dir / "cluster.json").read_text())
        members = [
            {"name": r["name"], "cpus": r.get("cpus"), "threads": r.get("threads"), **describe_processes([r["pid"]])}
            for r in state["replicas"]
        ]
        url = state["replicas"][0]["url"] if target.replicas == 1 else state["nginx"]["url"]
        front = [state["nginx"]["pid"]] + ([state["redis"]["pid"]] if state.get("redis") else [])
        yield Running(url, [r["pid"] for r in state["replicas"]], front, members)
    finally:
        with (logs / f"cluster-{target.key}.log").open("ab") as log:
            subprocess.run(
                [*base, "down", "--grace", "20"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, timeout=180
            )


def warm_up(url: str, n: int, naive: bool) -> str | None:
    """A few requests of every size, on texts no measured request carries; returns the model tag."""
    import random

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
def run_step(
    plan: Plan, target: Target, running: Running, users: int, place: Placement, out: Path, logs: Path, salt: str
) -> dict:
    csv_dir = out / "csv" / target.key
    csv_dir.mkdir(parents=True, exist_ok=True)
    prefix = csv_dir / f"u{users}"
    totals = csv_dir / f"u{users}_zsc.json"
    cmd = [str(BIN / "locust"), "-f", str(LOCUSTFILE), "--headless", "-u", str(users), "-r", str(users)]
    cmd += ["--run-time", f"{int(plan.step_s)}s", "--host", running.url, "--csv", str(prefix), "--only-summary"]
    cmd += ["--stop-timeout", "0", "--exit-code-on-error", "0", "--loglevel", "WARNING"]
    cmd += ["--logfile", str(logs / f"locust-{target.key}-u{users}.log")]
    cmd += ["--zsc-repeat-rate", str(plan.repeat_rate), "--zsc-labels", plan.labels, "--zsc-think", plan.think]
    cmd += ["--zsc-batch-share", str(plan.batch_share), "--zsc-salt", salt, "--zsc-stats-out", str(totals)]
    if plan.shipped_only:
        cmd += ["--zsc-shipped-only"]
    if target.replicas == 0:
        cmd += ["--zsc-naive", "--exclude-tags", "classify_batch"]  # the naive server has /classify only
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}

    def pin() -> None:
        if place.pinned:
            os.sched_setaffinity(0, place.loadgen)

    history = Path(f"{prefix}_stats_history.csv")
    child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with (logs / f"locust-{target.key}-u{users}.out").open("wb") as fh:
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, preexec_fn=pin)
        try:
            # CPU is counted from the moment Locust starts its test (it opens its history CSV then),
            # not from its own start-up (imports, reading the workload)
            t_start = time.monotonic() + 30
            while time.monotonic() < t_start and proc.poll() is None and not history.exists():
                time.sleep(0.05)
            locust0 = tree_cpu_s([proc.pid])
            server0, front0 = tree_cpu_s(running.server_pids), tree_cpu_s(running.front_pids)
            busy0, t0 = machine_busy_s(), time.monotonic()
            proc.wait(timeout=plan.step_s + 90)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    wall = time.monotonic() - t0
    child1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_s = tree_cpu_s(running.server_pids) - server0
    front_s = tree_cpu_s(running.front_pids) - front0
    loadgen_s = (child1.ru_utime - child0.ru_utime) + (child1.ru_stime - child0.ru_stime) - locust0
    busy_s = machine_busy_s() - busy0
    failures_csv = Path(f"{prefix}_failures.csv")
    if failures_csv.exists() and len(failures_csv.read_text().strip().splitlines()) <= 1:
        failures_csv.unlink()  # header only: no failures to keep
    # keep what the report needs next to the results; the per-second history goes with the logs
    for extra in ("_stats_history.csv", "_exceptions.csv"):
        src = Path(f"{prefix}{extra}")
        if src.exists():
            src.replace(logs / f"{target.key}-u{users}{extra}")
    if proc.returncode != 0 or not totals.exists() or not Path(f"{prefix}_stats.csv").exists():
        raise RuntimeError(f"locust failed ({proc.returncode}): see {logs / f'locust-{target.key}-u{users}.out'}")
    return summarize_step(
        target, users, prefix, json.loads(totals.read_text()), wall, server_s, front_s, loadgen_s, busy_s
    )


def _num(value: str) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def read_locust_csv(prefix: Path) -> dict[str, dict]:
    with open(f"{prefix}_stats.csv", newline="") as fh:
        return {row["Name"]: row for row in csv.DictReader(fh)}


def summarize_step(target, users, prefix, totals, wall, server_s, front_s, loadgen_s, busy_s) -> dict:
    rows = read_locust_csv(prefix)
    agg = rows.get("Aggregated", {})
    window = totals.get("window_s") or 0.0
    requests, failures = totals.get("requests", 0), totals.get("failures", 0)
    ok = max(0, requests - failures)
    cache = {k.split(" ", 1)[1]: v for k, v in totals.items() if k.startswith("x-cache ")}
    rate = (lambda n: n / window) if window > 0 else (lambda n: 0.0)
    endpoints = {}
    for name, row in rows.items():
        if name == "Aggregated":
            continue
        endpoints[name] = {
            "requests": int(row["Request Count"]),
            "failures": int(row["Failure Count"]),
            "requests_per_s": _num(row["Requests/s"]),
            **{f"p{p.rstrip('%')}_ms": _num(row.get(p)) for p in PERCENTILES},
        }
    return {
        "target": target.key,
        "label": target.label,
        "users": users,
        "window_s": round(window, 2),
        "requests": requests,
        "failures": failures,
        "failure_rate": failures / requests if requests else 0.0,
        "requests_per_s": rate(requests),
        "texts_per_s": rate(totals.get("texts", 0)),
        "pairs_per_s": rate(totals.get("pairs", 0)),
        "labels_per_text": totals.get("pairs", 0) / totals["texts"] if totals.get("texts") else None,
        **{f"p{p.rstrip('%')}_ms": _num(agg.get(p)) for p in PERCENTILES},
        "cache_hit_rate": cache.get("hit", 0) / ok if ok else None,
        "x_cache": cache,
        "endpoints": endpoints,
        "server_cores": server_s / wall,
        "front_cores": front_s / wall,
        "loadgen_cores": loadgen_s / wall,
        "other_cores": max(0.0, (busy_s - server_s - front_s - loadgen_s) / wall),
    }


# -- the run -------------------------------------------------------------------------------------------
def versions() -> dict:
    from importlib.metadata import version

    import bentoml
    import psutil

    # locust's version from its metadata: importing locust would monkey-patch this process with gevent
    out = {"python": platform.python_version(), "bentoml": bentoml.__version__, "locust": version("locust")}
    for mod in ("onnxruntime", "torch", "transformers"):
        with contextlib.suppress(ImportError):
            out[mod] = __import__(mod).__version__
    for name, args in (("nginx", ["-v"]), ("redis-server", ["--version"])):
        exe = shutil.which(name) or (f"/usr/sbin/{name}" if os.access(f"/usr/sbin/{name}", os.X_OK) else None)
        if exe:
            r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=10)
            found = re.search(r"(?:nginx/|v=)([\w.]+)", r.stdout + r.stderr)
            out[name] = found[1] if found else "?"
    cpu = "unknown"
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    return {
        "machine": {
            "cpu": cpu,
            "cpus": len(os.sched_getaffinity(0)),
            "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "kernel": platform.release(),
            "os": _os_name(),
        },
        "versions": out,
    }


def _os_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    return platform.system()


class Quiet:
    """Waits, within a total allowance, until other processes leave the CPUs alone (a shared machine)."""

    def __init__(self, allowance_s: float, threshold_cores: float = 0.25) -> None:
        self.left, self.threshold, self.waited = allowance_s, threshold_cores, 0.0

    def others(self, own_pids: list[int], sample_s: float = 2.0) -> float:
        busy0, own0 = machine_busy_s(), tree_cpu_s(own_pids)
        time.sleep(sample_s)
        return max(0.0, (machine_busy_s() - busy0 - (tree_cpu_s(own_pids) - own0)) / sample_s)

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


def run(plan: Plan, place: Placement, model: ModelInfo, out: Path, limit_s: float, quiet: Quiet) -> dict:
    """Every target in turn; a step starts only while the time limit (plus time spent waiting for a quiet
    machine) allows; a step disturbed by other processes is run again once when ``quiet`` allows waiting."""
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    run_id = out.name
    t_start = time.monotonic()

    def time_left() -> float:
        return t_start + limit_s + quiet.waited - time.monotonic()

    results: dict = {
        "run": run_id,
        "started": time.time(),
        "plan": asdict(plan),
        "placement": asdict(place),
        "model": {"name": model.name, "kind": model.kind, "template": model.template},
        **versions(),
        "targets": [],
        "steps": [],
    }
    for target in plan.targets():
        entry = {**asdict(target), "url": None, "members": [], "skipped_users": []}
        results["targets"].append(entry)
        if time_left() < plan.step_s:
            say(f"{target.label}: skipped, the run's time limit is reached")
            entry["skipped"] = "time limit"
            continue
        say(f"{target.label}: starting")
        if target.replicas == 0:
            ctx = run_naive(model, place.server if place.pinned else None, logs)
        else:
            ctx = run_cluster(model, target, place, logs)
        try:
            with ctx as running:
                entry["url"], entry["members"] = running.url, running.members
                entry["model_tag"] = warm_up(running.url, plan.warmup_requests, target.replicas == 0)
                for i, users in enumerate(plan.users):
                    own = running.server_pids + running.front_pids
                    step = None
                    for attempt in (1, 2):
                        before = quiet.wait(own)
                        if time_left() < plan.step_s:
                            break
                        salt = f"{run_id}.{target.key}.u{users}.{attempt}"
                        step = run_step(plan, target, running, users, place, out, logs, salt)
                        step["others_before_cores"] = round(before, 3)
                        _say_step(step)
                        if step["other_cores"] <= quiet.threshold or quiet.left <= 0 or attempt == 2:
                            break
                        say("  other processes shared the machine during this step: running it again")
                    if step is None:
                        entry["skipped_users"], entry["skip_reason"] = plan.users[i:], "time limit"
                        break
                    results["steps"].append(step)
                    saturated = (step["p95_ms"] or 0) > plan.stop_p95_s * 1000
                    saturated |= step["failure_rate"] > plan.stop_failures
                    if saturated and i + 1 < len(plan.users):
                        entry["skipped_users"] = plan.users[i + 1 :]
                        entry["skip_reason"] = (
                            f"saturated at {users} users (p95 over {plan.stop_p95_s:g} s or failures over "
                            f"{plan.stop_failures:.0%})"
                        )
                        say(f"  saturated: skipping {entry['skipped_users']}")
                        break
        except (RuntimeError, subprocess.TimeoutExpired, httpx.HTTPError, TimeoutError) as exc:
            say(f"{target.label}: FAILED: {exc}")
            entry["error"] = str(exc)[:2000]
    results["finished"] = time.time()
    results["waited_for_quiet_s"] = round(quiet.waited, 1)
    return results


def _say_step(step: dict) -> None:
    say(
        f"  {step['users']:>3} users: {step['requests_per_s']:.1f} req/s, {step['pairs_per_s']:.0f} pairs/s, "
        f"p50/p95/p99 {_ms(step['p50_ms'])}/{_ms(step['p95_ms'])}/{_ms(step['p99_ms'])} ms, "
        f"failures {step['failure_rate']:.1%}, server {step['server_cores']:.2f} cores, "
        f"locust {step['loadgen_cores']:.2f}, other {step['other_cores']:.2f}"
    )


def _ms(v: float | None) -> str:
    return "—" if v is None else f"{v:.0f}"


# -- report --------------------------------------------------------------------------------------------
def write_summary_csv(results: dict, path: Path) -> None:
    cols = [
        "target", "users", "requests", "failures", "failure_rate", "requests_per_s", "texts_per_s", "pairs_per_s",
        "p50_ms", "p95_ms", "p99_ms", "cache_hit_rate", "server_cores", "front_cores", "loadgen_cores", "other_cores",
    ]  # fmt: skip
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for s in results["steps"]:
            w.writerow([_fmt_csv(s.get(c)) for c in cols])


def _fmt_csv(v) -> str:
    if v is None:
        return ""
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def peaks(results: dict) -> dict[str, dict]:
    """Per target: the step with the most pairs/s among those with under 1% failures (else any)."""
    out = {}
    for t in results["targets"]:
        steps = [s for s in results["steps"] if s["target"] == t["key"]]
        good = [s for s in steps if s["failure_rate"] < 0.01] or steps
        if good:
            out[t["key"]] = max(good, key=lambda s: s["pairs_per_s"])
    return out


def knee(steps: list[dict], gain: float = 1.2) -> tuple[int, bool] | None:
    """(users, found): the last user count after which more users raised pairs/s by under ``gain`` (20%):
    past it, more users mostly add latency. found is False when throughput still grew at the last step."""
    steps = sorted(steps, key=lambda s: s["users"])
    if not steps:
        return None
    for a, b in zip(steps, steps[1:]):
        if b["pairs_per_s"] < gain * a["pairs_per_s"]:
            return a["users"], True
    return steps[-1]["users"], False


def markdown(results: dict) -> str:
    plan, m, v = results["plan"], results["machine"], results["versions"]
    place = results["placement"]
    minutes = (results["finished"] - results["started"]) / 60
    by_target = {t["key"]: t for t in results["targets"]}
    top = peaks(results)
    naive = top.get("naive")
    lines = [
        f"# Load test {results['run']}",
        "",
        f"Model `{results['model']['name']}` ({results['model']['kind']}); "
        f"{m['cpu']}, {m['cpus']} CPUs, {m['memory_gib']} GiB, {m['os']} (kernel {m['kernel']}). "
        f"Run took {minutes:.1f} min"
        + (
            f" ({results['waited_for_quiet_s'] / 60:.1f} of them waiting for other processes to leave the CPUs)."
            if results.get("waited_for_quiet_s")
            else "."
        ),
        "",
        "Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()) + ".",
        "",
        "## Headline",
        "",
        "| target | best pairs/s | req/s there | users | p50 / p95 / p99 ms | failures | × naive pairs/s "
        "| knee (users) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in results["targets"]:
        s = top.get(t["key"])
        if not s:
            why = t.get("error") or t.get("skipped") or "no data"
            lines.append(f"| {t['label']} | — | — | — | — | — | — | {why[:80]} |")
            continue
        k = knee([x for x in results["steps"] if x["target"] == t["key"]])
        k_text = "—" if not k else (str(k[0]) if k[1] else f"> {k[0]} (still rising)")
        ratio = f"{s['pairs_per_s'] / naive['pairs_per_s']:.1f}" if naive and naive["pairs_per_s"] else "—"
        lines.append(
            f"| {t['label']} | {s['pairs_per_s']:.0f} | {s['requests_per_s']:.1f} | {s['users']} | "
            f"{_ms(s['p50_ms'])} / {_ms(s['p95_ms'])} / {_ms(s['p99_ms'])} | {s['failure_rate']:.1%} | {ratio} | "
            f"{k_text} |"
        )
    lines += [
        "",
        "Best = the step with the most (text, label) pairs answered per second (under 1% failures). Knee = the "
        "last user count after which more users raised pairs/s by under 20%: past it, more users mostly add "
        "latency. × naive compares pairs/s with the naive baseline's best.",
        "",
        "![throughput](throughput.png)",
        "",
        "![latency](latency.png)",
        "",
        "## Every step",
        "",
        "Rates are over the step's measuring window; pairs = (text, label) pairs answered, texts = texts "
        "classified (a `/classify_batch` call carries several). Latency percentiles are Locust's, over both "
        "endpoints. Cache hit = share of answers served entirely from the cache (`X-Cache: hit`). CPU columns "
        "are cores busy on average during the step: the servers (replicas or the naive server), nginx + "
        "Redis, Locust, and everything else on the machine (should be near 0: otherwise the step shared the "
        "machine with something else). A 1-user step carries only a few dozen requests: its percentiles are rough.",
        "",
        "| target | users | requests | req/s | texts/s | pairs/s | p50 / p95 / p99 ms | failures | cache hit | "
        "server CPU | nginx+redis CPU | Locust CPU | other CPU |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in results["steps"]:
        hit = "—" if s["cache_hit_rate"] is None or s["target"] == "naive" else f"{s['cache_hit_rate']:.0%}"
        lines.append(
            f"| {by_target[s['target']]['label']} | {s['users']} | {s['requests']} | {s['requests_per_s']:.1f} | "
            f"{s['texts_per_s']:.1f} | {s['pairs_per_s']:.0f} | {_ms(s['p50_ms'])} / {_ms(s['p95_ms'])} / "
            f"{_ms(s['p99_ms'])} | {s['failure_rate']:.1%} | {hit} | {s['server_cores']:.2f} | "
            f"{s['front_cores']:.2f} | {s['loadgen_cores']:.2f} | {s['other_cores']:.2f} |"
        )
    skipped = [t for t in results["targets"] if t.get("skipped_users")]
    if skipped:
        lines += [""] + [
            f"- {t['label']}: {', '.join(map(str, t['skipped_users']))} users not run: {t.get('skip_reason')}."
            for t in skipped
        ]
    lines += ["", "## By endpoint (at each target's best step)", ""]
    lines += ["| target | endpoint | requests | req/s | p50 / p95 / p99 ms | failures |", "|---|---|---|---|---|---|"]
    for key, s in top.items():
        for name, e in s["endpoints"].items():
            lines.append(
                f"| {by_target[key]['label']} ({s['users']} users) | `{name}` | {e['requests']} | "
                f"{(e['requests_per_s'] or 0):.1f} | {_ms(e['p50_ms'])} / {_ms(e['p95_ms'])} / {_ms(e['p99_ms'])} | "
                f"{e['failures']} |"
            )
    lines += ["", "## Where everything ran", ""]
    lines += [
        f"Locust on CPU {cpu_list(place['loadgen'])}; nginx and redis-server on CPU {cpu_list(place['front'])}.",
        "",
        "| target | member | CPU set | intra-op threads | affinity seen | OS threads in the worker |",
        "|---|---|---|---|---|---|",
    ]
    for t in results["targets"]:
        for mem in t.get("members", []):
            lines.append(
                f"| {t['label']} | {mem['name']} | {cpu_list(mem['cpus']) if mem.get('cpus') else 'all'} | "
                f"{mem.get('threads') or 'auto'} | {cpu_list(mem.get('affinity', [])) or '?'} | "
                f"{mem.get('os_threads', '?')} |"
            )
    lines += ["", "## What this machine can and cannot show", ""] + limits(results)
    lines += [
        "",
        "## Configuration",
        "",
        f"- Users per step: {', '.join(map(str, plan['users']))}; {plan['step_s']:g} s per step, all users "
        "started at once (`-r` = `-u`), think time "
        f"{plan['think']} s (uniform) between a user's requests.",
        f"- Workload: `loadtest/data/workload.jsonl`{'' if plan['shipped_only'] else DATASETS}; "
        f"{plan['labels']} labels per text (capped by the dataset's classes; {_mean_labels(results)} on average); "
        f"{plan['batch_share']:.0%} of requests "
        "are `/classify_batch` with 2-8 items (the naive baseline has `/classify` only, so compare pairs/s, not "
        f"req/s); {plan['repeat_rate']:.0%} of texts drawn from a Zipf-weighted hot set (s = 1.1, 200 requests), "
        "the rest never seen before.",
        "- Cache off: `ZSC_CACHE_LOCAL_ENTRIES=0`, no Redis (an embedding model still encodes each label once "
        "per process: that is the model's design, not the cache). Cache on: the in-process tier plus Redis.",
        f"- A step stops the target's larger user counts when p95 > {plan['stop_p95_s']:g} s or failures > "
        f"{plan['stop_failures']:.0%}. Each target gets {plan['warmup_requests']} warm-up requests first.",
        "- Model template: `"
        + results["model"]["template"]
        + "`; model tag served: "
        + ", ".join(sorted({str(t.get("model_tag")) for t in results["targets"] if t.get("model_tag")}) or ["—"])
        + ".",
        f"- Shared machine: waited {results.get('waited_for_quiet_s', 0):g} s in all for other processes to "
        "leave the CPUs before steps; a step during which they used over 0.25 cores was run again once (the "
        "cache keeps what the first attempt put in it).",
        "- Locust's CSVs: `csv/<target>/u<users>_stats.csv` (`_failures.csv` when a step had failures; "
        "`_zsc.json`: pairs, texts and X-Cache counts); every step in `summary.csv`, everything in `results.json`.",
    ]
    return "\n".join(lines) + "\n"


def _mean_labels(results: dict) -> str:
    texts = sum(s["texts_per_s"] * s["window_s"] for s in results["steps"])
    pairs = sum(s["pairs_per_s"] * s["window_s"] for s in results["steps"])
    return f"{pairs / texts:.1f}" if texts else "—"


def limits(results: dict) -> list[str]:
    place, n_cpus = results["placement"], results["machine"]["cpus"]
    out = []
    shared = [
        (t["label"], mem["name"])
        for t in results["targets"]
        for mem in t.get("members", [])
        if mem.get("cpus") and set(mem["cpus"]) & set(place["loadgen"]) and t["replicas"] > 0
    ]
    steps = results["steps"]
    lg = max((s["loadgen_cores"] for s in steps), default=0.0)
    other = max((s["other_cores"] for s in steps), default=0.0)
    if place.get("notes"):
        out += [f"- {n}." for n in place["notes"]]
    if place.get("pinned", True):
        out.append(
            f"- {n_cpus} CPUs in all. The naive server and the single replica each get "
            f"CPU {cpu_list(place['server'])}; Locust gets CPU {cpu_list(place['loadgen'])} "
            f"(it used up to {lg:.2f} of a core)."
        )
    else:
        out.append(
            f"- {n_cpus} CPUs in all, nothing pinned: servers, Locust (up to {lg:.2f} of a core), nginx and "
            "Redis all compete for every CPU."
        )
    if shared:
        who = " and ".join(sorted({m for _label, m in shared}))
        out.append(
            f"- Not enough CPUs for every replica to have its own: in the multi-replica targets {who} shares CPU "
            f"{cpu_list(place['loadgen'])} with Locust, nginx and Redis. So N replicas here measure N cores of "
            "serving minus what the load generator and the proxy take; the gain over one replica is a lower "
            "bound of what separate cores or machines give."
        )
    out += [
        "- What it can show: throughput per core, where the knee is (the user count past which only "
        "latency grows), the naive baseline against the batched service on identical cores, what nginx adds, "
        "what the cache gives for a stated repeat rate, and failures under overload.",
        f"- What it cannot show: scaling past {n_cpus} cores, replicas on separate machines (a real network, "
        "separate memory bandwidth), a load generator that never competes with the servers, GPU numbers. "
        "Per-core figures from here multiply only as far as the next bottleneck (nginx, Redis, the network).",
    ]
    if other > 0.2:
        out.append(
            f"- Other processes used up to {other:.2f} cores during some steps (column 'other CPU'): those "
            "steps shared the machine and understate the servers."
        )
    return out


def _style(target: dict) -> dict:
    """Colour by replica count, dashed = cache off, black dotted = the naive baseline."""
    if target["replicas"] == 0:
        return {"color": "black", "linestyle": ":", "marker": "s"}
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    return {
        "color": colours[(target["replicas"] - 1) % len(colours)],
        "linestyle": "-" if target["cache"] else "--",
        "marker": "o" if target["cache"] else "^",
    }


def charts(results: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator, ScalarFormatter

    targets = {t["key"]: t for t in results["targets"]}
    series: dict[str, list[dict]] = {}
    for s in results["steps"]:
        series.setdefault(s["target"], []).append(s)
    users = sorted({s["users"] for s in results["steps"]}) or [1]
    title = f"{results['model']['name']}, {results['machine']['cpus']} CPUs"

    def users_axis(ax) -> None:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(users))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(users[0] / 1.4, users[-1] * 1.4)
        ax.set_xlabel("concurrent users")
        ax.grid(alpha=0.3, which="both")

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for key, steps in series.items():
        x = [s["users"] for s in steps]
        kw = {"label": targets[key]["label"], **_style(targets[key])}
        axes[0].plot(x, [s["pairs_per_s"] for s in steps], **kw)
        axes[1].plot(x, [s["requests_per_s"] for s in steps], **kw)
    for ax, what in zip(axes, ("(text, label) pairs / s", "requests / s")):
        users_axis(ax)
        ax.set_ylabel(what)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Throughput vs users ({title}; higher is better)")
    fig.tight_layout()
    fig.savefig(out / "throughput.png", dpi=100)
    plt.close(fig)

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    for ax, p in zip(axes, ("p50", "p95", "p99")):
        for key, steps in series.items():
            pts = [(s["users"], s[f"{p}_ms"]) for s in steps if s[f"{p}_ms"]]
            if pts:
                ax.plot(*zip(*pts), label=targets[key]["label"], **_style(targets[key]))
        users_axis(ax)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(p)
    axes[0].set_ylabel("latency, ms (log scale)")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Latency percentiles vs users ({title}; lower is better)")
    fig.tight_layout()
    fig.savefig(out / "latency.png", dpi=100)
    plt.close(fig)


def write_report(results: dict, out: Path) -> None:
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    write_summary_csv(results, out / "summary.csv")
    charts(results, out)
    (out / "report.md").write_text(markdown(results))


# -- command line --------------------------------------------------------------------------------------
def _ints(spec: str) -> list[int]:
    return [int(x) for x in spec.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    parser.add_argument("--out", type=Path, help="result folder (default loadtest/results/<time>)")
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
    out = (args.out or ROOT / "loadtest" / "results" / time.strftime("%Y%m%d-%H%M%S")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    estimate = plan.estimate_s()
    limit_s = (args.max_minutes * 60) if args.max_minutes else estimate * 1.5 + 60
    say(f"load test -> {out}")
    say(
        f"targets: {', '.join(t.label for t in plan.targets())}; users {plan.users}, {plan.step_s:g} s each; "
        f"about {estimate / 60:.1f} min (stops starting steps after {limit_s / 60:.1f} min)"
    )
    say(
        f"CPUs: Locust {cpu_list(place.loadgen)}, servers {cpu_list(place.server)}, nginx+redis {cpu_list(place.front)}"
    )
    model = resolve_model(args.model)
    say(f"model {model.name} ({model.kind}) from {model.path}")
    wait_quiet = args.wait_quiet if args.wait_quiet is not None else (0 if args.smoke else 600)
    results = run(plan, place, model, out, limit_s, Quiet(wait_quiet))
    write_report(results, out)
    say(f"wrote {out / 'report.md'}, {out / 'throughput.png'}, {out / 'latency.png'}, {out / 'summary.csv'}")
    failed = [t["label"] for t in results["targets"] if t.get("error")]
    if failed:
        say(f"targets that failed: {', '.join(failed)}")
    return 1 if failed or not results["steps"] else 0


if __name__ == "__main__":
    sys.exit(main())
