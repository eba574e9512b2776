#!/usr/bin/env python3
"""A local cluster on 127.0.0.1: redis-server, N ``bentoml serve`` replicas, nginx in front.

    python deploy/local/cluster.py up --replicas 3      # make cluster N=3
    python deploy/local/cluster.py status
    python deploy/local/cluster.py kill replica-2       # fault injection: SIGKILL every process of one member
    python deploy/local/cluster.py down                 # make cluster-down
    python deploy/local/cluster.py up -n 2 --cpus 0 --cpus 1 --front-cpus 1   # pin replica-1 to CPU 0, replica-2 to 1

CPU pinning (``--cpus``, ``--front-cpus``) sets the CPU affinity of a member before it starts; its children
(BentoML's workers, their thread pools) inherit it. A pinned replica gets ``ZSC_CPU_THREADS`` = the size of
its CPU set unless ``--threads`` or ``ZSC_CPU_THREADS`` says otherwise. ``cluster.json`` records each
member's CPU set and threads.

Everything lives in one run directory (default ``run/cluster``): ``cluster.json`` (ports, PIDs, URLs),
and one folder per member with its log, its PID file and, for a replica, its own BentoML home (the
model store is shared through a symlink; BentoML wipes ``$BENTOML_HOME/prometheus_multiproc_dir`` at
start, so replicas must not share a home or they erase each other's metrics).

Every process started here carries ``ZSC_CLUSTER_MEMBER=<run dir>::<member>`` in its environment, and
so do its children. ``down`` and ``kill`` find a member's processes by that mark, one PID at a time:
``bentoml serve`` starts its workers in sessions of their own, so signalling the process group of the
``bentoml serve`` process alone leaves a worker running, still holding the port and answering.

Standard library only; run it with the project's virtualenv Python so ``bentoml`` and ``zsc`` are found.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NGINX_DIR = ROOT / "deploy" / "nginx"
DEFAULT_RUN_DIR = ROOT / "run" / "cluster"
MARK = "ZSC_CLUSTER_MEMBER"
STATE = "cluster.json"
HOST = "127.0.0.1"
# nginx.conf's proxy_read_timeout; a replica timeout at or above it turns the replica's 504 into nginx's.
NGINX_READ_TIMEOUT_S = 75


class ClusterError(RuntimeError):
    pass


def say(msg: str) -> None:
    print(f"[cluster] {msg}", flush=True)


# -- processes ----------------------------------------------------------------------------------------


def _mark(run_dir: Path, member: str) -> str:
    return f"{run_dir.resolve()}::{member}"


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time in clock ticks since boot) of a live process, else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1]), int(fields[19])


def _start_time(pid: int) -> int | None:
    stat = _proc_stat(pid)
    return stat[2] if stat else None


def member_pids(run_dir: Path, member: str | None = None) -> dict[int, str]:
    """{pid: member} of live processes started for this run directory (one member, or all).

    A process belongs to a member when its environment carries the member's mark, when it is the PID
    recorded at start with the same start time (nginx and redis-server rewrite their environment
    block with their process title, so the mark cannot be read back from them), or when it descends
    from one of those.
    """
    run_dir = run_dir.resolve()
    prefix = f"{MARK}={run_dir}::".encode()
    found: dict[int, str] = {}
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        stat = _proc_stat(pid)
        if stat is None or stat[0] == "Z":  # gone, or exited and waiting to be reaped
            continue
        parents[pid] = stat[1]
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # not ours to read
            continue
        for var in environ.split(b"\0"):
            if var.startswith(prefix):
                found[pid] = var[len(prefix) :].decode()
                break
    for name, info in _recorded(load_state(run_dir) or {}):
        pid = info.get("pid")
        if pid in parents and info.get("start_time") == _start_time(pid):
            found.setdefault(pid, name)
    grew = True
    while grew:  # add descendants
        grew = False
        for pid, ppid in parents.items():
            if pid not in found and ppid in found:
                found[pid] = found[ppid]
                grew = True
    return {pid: name for pid, name in found.items() if member is None or name == member}


def _recorded(state: dict) -> list[tuple[str, dict]]:
    """(member name, recorded info) for every member in cluster.json."""
    out = [("nginx", state.get("nginx")), ("redis", state.get("redis"))]
    out += [(r["name"], r) for r in state.get("replicas", [])]
    return [(name, info) for name, info in out if info]


def _signal_pids(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def kill_member(run_dir: Path, member: str, sig: int = signal.SIGKILL) -> list[int]:
    """Send ``sig`` to every live process of one member (all its process groups); returns the PIDs."""
    pids = sorted(member_pids(run_dir, member))
    _signal_pids(pids, sig)
    return pids


def parse_cpus(spec: str) -> list[int]:
    """A CPU list as taskset and cgroups write it: ``0``, ``0,2``, ``0-3``, ``0-1,6``."""
    cpus: set[int] = set()
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        if not (lo.isdigit() and (not sep or hi.isdigit())):
            raise ClusterError(f"bad CPU list {spec!r}: use forms like 0, 0,2 or 0-3")
        cpus.update(range(int(lo), int(hi if sep else lo) + 1))
    if not cpus:
        raise ClusterError(f"empty CPU list {spec!r}")
    allowed = os.sched_getaffinity(0)
    if not cpus <= allowed:
        raise ClusterError(f"CPUs {sorted(cpus - allowed)} of {spec!r} are not available (allowed: {sorted(allowed)})")
    return sorted(cpus)


def replica_cpus(specs: list[str], replicas: int) -> list[list[int] | None]:
    """One CPU set per replica from ``--cpus`` values, given in replica order and repeated cyclically;
    ``auto`` splits the CPUs this process may use into ``replicas`` disjoint sets (round robin when there
    are fewer CPUs than replicas). No values: no pinning."""
    if not specs:
        return [None] * replicas
    if specs == ["auto"]:
        allowed = sorted(os.sched_getaffinity(0))
        if len(allowed) < replicas:
            return [[allowed[i % len(allowed)]] for i in range(replicas)]
        per = len(allowed) // replicas
        return [allowed[i * per : (i + 1) * per] for i in range(replicas)]
    sets = [parse_cpus(s) for s in specs]
    return [sets[i % len(sets)] for i in range(replicas)]


def _start(
    cmd: list[str], env: dict[str, str], log: Path, pid_file: Path, cwd: Path = ROOT, cpus: list[int] | None = None
) -> int:
    def pin() -> None:  # runs in the child between fork and exec: everything it starts inherits the set
        os.sched_setaffinity(0, cpus)

    with log.open("ab") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=pin if cpus else None,  # safe: this script starts no threads
        )
    pid_file.write_text(f"{proc.pid}\n")
    return proc.pid


def _alive(pid: int) -> bool:
    stat = _proc_stat(pid)
    return stat is not None and stat[0] != "Z"


# -- probes -------------------------------------------------------------------------------------------


def _http_status(url: str, timeout: float = 2.0) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 (loopback URL we built)
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, urllib.error.URLError):
        return None


def _redis_ping(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def _free_port(taken: set[int]) -> int:
    while True:
        with socket.socket() as s:
            s.bind((HOST, 0))
            port = s.getsockname()[1]
        if port not in taken:
            return port


def _tail(path: Path, n: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return ""


# -- state --------------------------------------------------------------------------------------------


def load_state(run_dir: Path) -> dict | None:
    path = run_dir / STATE
    return json.loads(path.read_text()) if path.exists() else None


def _save_state(run_dir: Path, state: dict) -> None:
    tmp = run_dir / f"{STATE}.tmp"
    tmp.write_text(json.dumps(state, indent=2) + "\n")
    tmp.replace(run_dir / STATE)


# -- nginx config -------------------------------------------------------------------------------------


def upstream_conf(template: str, ports: list[int], weights: list[int]) -> str:
    """The shipped zsc-upstream.conf with its `server` lines replaced by ours (same parameters)."""
    out: list[str] = []
    params: list[str] | None = None
    inserted = False
    for line in template.splitlines():
        words = line.strip().rstrip(";").split()
        if words[:1] == ["server"]:
            if params is None:
                params = [w for w in words[2:] if not w.startswith("weight=")]
            if not inserted:
                indent = line[: len(line) - len(line.lstrip())]
                for port, weight in zip(ports, weights):
                    extra = [f"weight={weight}"] if weight != 1 else []
                    out.append(f"{indent}server " + " ".join([f"{HOST}:{port}", *extra, *params]) + ";")
                inserted = True
            continue
        out.append(line)
    if not inserted:
        raise ClusterError("deploy/nginx/zsc-upstream.conf has no `server` line to take parameters from")
    return "\n".join(out) + "\n"


def write_nginx_conf(conf_dir: Path, port: int, replica_ports: list[int], weights: list[int]) -> Path:
    conf_dir.mkdir(parents=True, exist_ok=True)
    (conf_dir / "logs").mkdir(exist_ok=True)
    shutil.copyfile(NGINX_DIR / "nginx.conf", conf_dir / "nginx.conf")
    template = (NGINX_DIR / "zsc-upstream.conf").read_text()
    (conf_dir / "zsc-upstream.conf").write_text(upstream_conf(template, replica_ports, weights))
    (conf_dir / "zsc-listen.conf").write_text(f"# written by deploy/local/cluster.py\nlisten {HOST}:{port};\n")
    return conf_dir / "nginx.conf"


def _nginx_bin() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if not found:
        raise ClusterError("nginx not found: apt-get install nginx")
    return found


# -- up -----------------------------------------------------------------------------------------------


def _venv_bin(name: str) -> str:
    for folder in (Path(sys.executable).parent, ROOT / ".venv" / "bin"):
        if (folder / name).exists():
            return str(folder / name)
    raise ClusterError(f"{name} not found next to {sys.executable}: run `make venv` and use .venv/bin/python")


def up(
    run_dir: Path,
    replicas: int = 3,
    port: int = 8080,
    base_port: int = 3001,
    redis: bool = True,
    redis_port: int = 6390,
    weights: list[int] | None = None,
    extra_env: dict[str, str] | None = None,
    threads: int | None = None,
    ready_timeout: float = 300,
    cpus: list[str] | None = None,
    front_cpus: str | None = None,
) -> dict:
    """Start the cluster and wait until nginx answers /readyz; returns the state written to cluster.json."""
    run_dir = run_dir.resolve()
    if replicas < 1:
        raise ClusterError("--replicas must be >= 1")
    weights = weights or [1] * replicas
    if len(weights) != replicas or min(weights) < 1:
        raise ClusterError(f"--weights needs {replicas} positive integers, got {weights}")
    if member_pids(run_dir):
        raise ClusterError(f"a cluster is already running from {run_dir}: stop it first (make cluster-down)")
    extra_env = dict(extra_env or {})
    base_env = {**os.environ, **extra_env}
    pins = replica_cpus(list(cpus or []), replicas)
    front = parse_cpus(front_cpus) if front_cpus else None

    # ports: fixed ones must be free; 0 means "any free port"
    taken: set[int] = set()

    def pick(wanted: int, what: str) -> int:
        chosen = _free_port(taken) if wanted == 0 else wanted
        if wanted and not _port_free(chosen):
            raise ClusterError(f"port {chosen} ({what}) is in use: choose another or pass 0 for a free one")
        taken.add(chosen)
        return chosen

    nginx_port = pick(port, "nginx")
    replica_ports = [pick(base_port + i if base_port else 0, f"replica-{i + 1}") for i in range(replicas)]
    rport = pick(redis_port, "redis") if redis else None

    timeout_s = int(base_env.get("ZSC_TIMEOUT_S") or 60)
    if timeout_s >= NGINX_READ_TIMEOUT_S:
        say(
            f"warning: ZSC_TIMEOUT_S={timeout_s} >= nginx's proxy_read_timeout ({NGINX_READ_TIMEOUT_S}s): "
            "raise it in deploy/nginx/nginx.conf or nginx answers 504 before the replica does"
        )

    if run_dir.exists():  # logs of a previous run: start clean
        for child in run_dir.iterdir():
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    run_dir.mkdir(parents=True, exist_ok=True)

    state: dict = {"run_dir": str(run_dir), "started": time.time(), "redis": None, "replicas": [], "nginx": None}
    try:
        _up(run_dir, state, base_env, nginx_port, replica_ports, rport, weights, threads, ready_timeout, pins, front)
    except BaseException:
        say("start-up failed: stopping what was started")
        down(run_dir, quiet=True)
        raise
    return state


def _up(
    run_dir, state, base_env, nginx_port, replica_ports, rport, weights, threads, ready_timeout, pins, front
) -> None:
    t0 = time.monotonic()
    common = {"BENTOML_DO_NOT_TRACK": "True", "PYTHONUNBUFFERED": "1"}

    # 1. Redis (the cache tier; replicas work without it)
    if rport is not None:
        redis_bin = shutil.which("redis-server")
        if not redis_bin:
            raise ClusterError("redis-server not found: apt-get install redis-server (or pass --no-redis)")
        rdir = run_dir / "redis"
        rdir.mkdir()
        cmd = [
            redis_bin,
            "--bind",
            HOST,
            "--port",
            str(rport),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            str(rdir),
            "--maxmemory",
            "256mb",
            "--maxmemory-policy",
            "allkeys-lru",
        ]
        env = {**base_env, **common, MARK: _mark(run_dir, "redis")}
        pid = _start(cmd, env, rdir / "redis.log", rdir / "redis.pid", cwd=rdir, cpus=front)
        state["redis"] = {
            "port": rport,
            "pid": pid,
            "start_time": _start_time(pid),
            "cpus": front,
            "url": f"redis://{HOST}:{rport}/0",
            "log": str(rdir / "redis.log"),
        }
        _save_state(run_dir, state)
        _wait(lambda: _redis_ping(rport), pid, rdir / "redis.log", 20, "redis-server")
        say(f"redis-server on {HOST}:{rport} (pid {pid})")

    # 2. The model store, shared by every replica
    store = Path(base_env.get("BENTOML_HOME") or Path.home() / "bentoml").resolve()
    if not base_env.get("ZSC_MODEL"):
        say(f"model store {store}: making sure the bundled model is in it")
        result = subprocess.run(
            [_venv_bin("zsc"), "-q", "ensure-default"],
            cwd=ROOT,
            env={**base_env, **common, "BENTOML_HOME": str(store)},
            capture_output=True,
            text=True,
            timeout=900,
        )
        if result.returncode != 0:
            raise ClusterError(f"zsc ensure-default failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    (store / "models").mkdir(parents=True, exist_ok=True)

    # 3. Replicas, started together (each loads its own copy of the model)
    n = len(replica_ports)
    shared_threads = threads
    if threads is None and not base_env.get("ZSC_CPU_THREADS"):
        shared_threads = max(1, (os.cpu_count() or 1) // n)
    bentoml = _venv_bin("bentoml")
    for i, (rp, weight, pin) in enumerate(zip(replica_ports, weights, pins), start=1):
        name = f"replica-{i}"
        rdir = run_dir / name
        home = rdir / "bentoml_home"
        home.mkdir(parents=True)
        (home / "models").symlink_to(store / "models")
        env = {**base_env, **common, "BENTOML_HOME": str(home), MARK: _mark(run_dir, name)}
        if threads is not None:
            env["ZSC_CPU_THREADS"] = str(threads)
        elif pin and not base_env.get("ZSC_CPU_THREADS"):
            env["ZSC_CPU_THREADS"] = str(len(pin))  # a pinned replica: one thread per CPU of its set
        elif shared_threads is not None:
            env["ZSC_CPU_THREADS"] = str(shared_threads)
        if state["redis"]:
            env["ZSC_REDIS_URL"] = state["redis"]["url"]
        cmd = [bentoml, "serve", "service.service:ZeroShotClassifier", "--host", HOST, "--port", str(rp)]
        pid = _start(cmd, env, rdir / "replica.log", rdir / "replica.pid", cpus=pin)
        state["replicas"].append(
            {
                "name": name,
                "port": rp,
                "url": f"http://{HOST}:{rp}",
                "pid": pid,
                "start_time": _start_time(pid),
                "weight": weight,
                "log": str(rdir / "replica.log"),
                "home": str(home),
                "cpus": pin,
                "threads": int(env["ZSC_CPU_THREADS"]) if env.get("ZSC_CPU_THREADS") else None,
            }
        )
        _save_state(run_dir, state)
        where = f", CPUs {_cpu_list(pin)}, {env['ZSC_CPU_THREADS']} threads" if pin else ""
        say(f"{name} starting on {HOST}:{rp} (pid {pid}{where}, log {rdir / 'replica.log'})")

    deadline = time.monotonic() + ready_timeout
    pending = {r["name"]: r for r in state["replicas"]}
    last_report = time.monotonic()
    while pending:
        for name, r in list(pending.items()):
            if not _alive(r["pid"]):
                raise ClusterError(f"{name} exited before it was ready; its log ends with:\n{_tail(Path(r['log']))}")
            if _http_status(f"{r['url']}/readyz") == 200:
                say(f"{name} ready ({time.monotonic() - t0:.1f}s)")
                del pending[name]
        if not pending:
            break
        if time.monotonic() > deadline:
            name, r = next(iter(pending.items()))
            raise ClusterError(
                f"{name} not ready after {ready_timeout:.0f}s; its log ends with:\n{_tail(Path(r['log']))}"
            )
        if time.monotonic() - last_report > 10:
            say(f"waiting for {', '.join(pending)} to load the model ({time.monotonic() - t0:.0f}s)")
            last_report = time.monotonic()
        time.sleep(0.5)

    # 4. nginx in front
    ndir = run_dir / "nginx"
    conf = write_nginx_conf(ndir, nginx_port, replica_ports, weights)
    nginx = _nginx_bin()
    check = subprocess.run([nginx, "-t", "-q", "-p", f"{ndir}/", "-c", str(conf)], capture_output=True, text=True)
    if check.returncode != 0:
        raise ClusterError(f"nginx -t failed:\n{check.stderr}")
    env = {**base_env, MARK: _mark(run_dir, "nginx")}
    pid = _start(
        [nginx, "-p", f"{ndir}/", "-c", str(conf), "-g", "daemon off;"],
        env,
        ndir / "nginx.out",
        ndir / "nginx.pid",
        cwd=ndir,
        cpus=front,
    )
    url = f"http://{HOST}:{nginx_port}"
    state["nginx"] = {
        "port": nginx_port,
        "url": url,
        "pid": pid,
        "start_time": _start_time(pid),
        "cpus": front,
        "dir": str(ndir),
        "access_log": str(ndir / "logs" / "access.json"),
        "error_log": str(ndir / "logs" / "error.log"),
    }
    _save_state(run_dir, state)
    _wait(lambda: _http_status(f"{url}/readyz") == 200, pid, ndir / "logs" / "error.log", 20, "nginx")
    say(f"nginx on {url} (pid {pid}) -> {', '.join(str(p) for p in replica_ports)}")
    say(
        f"ready in {time.monotonic() - t0:.1f}s: curl -s {url}/classify -H 'content-type: application/json' "
        """-d '{"text": "The team won the cup", "labels": ["sports", "business"]}'"""
    )
    say(f"logs and PID files under {run_dir}; stop with: make cluster-down")


def _cpu_list(cpus: list[int] | None) -> str:
    return ",".join(map(str, cpus)) if cpus else "all"


def _wait(ok, pid: int, log: Path, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if not _alive(pid):
            raise ClusterError(f"{what} exited; its log ends with:\n{_tail(log)}")
        if time.monotonic() > deadline:
            raise ClusterError(f"{what} did not come up in {timeout:.0f}s; its log ends with:\n{_tail(log)}")
        time.sleep(0.2)


# -- down / status ------------------------------------------------------------------------------------

# Front to back: stop taking requests first, then let replicas finish theirs, then the cache.
_STOP_ORDER = (("nginx", signal.SIGQUIT), ("replica-", signal.SIGTERM), ("redis", signal.SIGTERM))


def down(run_dir: Path, grace: float = 30, quiet: bool = False) -> list[int]:
    """Stop every process of the run directory by PID: graceful signal, then SIGKILL after ``grace``."""
    run_dir = run_dir.resolve()
    stopped: list[int] = []
    state = load_state(run_dir) or {}
    for prefix, sig in _STOP_ORDER:
        procs = {pid: m for pid, m in member_pids(run_dir).items() if m.startswith(prefix)}
        if not procs:
            continue
        # the main process of each member gets the graceful signal and stops its own children
        mains = _main_pids(state, prefix) & set(procs) or set(procs)
        if not quiet:
            say(f"stopping {', '.join(sorted(set(procs.values())))} (pids {' '.join(map(str, sorted(procs)))})")
        _signal_pids(mains, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(_alive(p) for p in procs):
            time.sleep(0.2)
        left = [p for p in procs if _alive(p)]
        if left:
            say(f"still running after {grace:.0f}s, killing: {' '.join(map(str, left))}")
            _signal_pids(left, signal.SIGKILL)
        stopped.extend(procs)
    # stragglers (anything of ours not matched above)
    rest = member_pids(run_dir)
    _signal_pids(rest, signal.SIGKILL)
    stopped.extend(rest)
    for pid_file in run_dir.glob("*/*.pid"):
        pid_file.unlink()
    if not quiet:
        say(f"stopped {len(stopped)} processes; logs kept in {run_dir}" if stopped else "nothing was running")
    return stopped


def _main_pids(state: dict, prefix: str) -> set[int]:
    """PIDs recorded at start (bentoml serve, nginx's master, redis-server) of the members named prefix*."""
    return {info["pid"] for name, info in _recorded(state) if name.startswith(prefix)}


def status(run_dir: Path) -> int:
    run_dir = run_dir.resolve()
    state = load_state(run_dir)
    running = member_pids(run_dir)
    if not state:
        print(f"no cluster in {run_dir}")
        return 1
    rows = []
    if state.get("redis"):
        r = state["redis"]
        rows.append(("redis", f"{HOST}:{r['port']}", "ok" if _redis_ping(r["port"]) else "down", r.get("cpus")))
    for r in state["replicas"]:
        code = _http_status(f"{r['url']}/readyz")
        health = "ready" if code == 200 else f"not ready ({code})"
        rows.append((r["name"], f"{HOST}:{r['port']}", health, r.get("cpus")))
    if state.get("nginx"):
        code = _http_status(f"{state['nginx']['url']}/nginx/health")
        rows.append(
            ("nginx", f"{HOST}:{state['nginx']['port']}", "ok" if code == 200 else "down", state["nginx"].get("cpus"))
        )
    for name, addr, health, cpus in rows:
        pids = sorted(p for p, m in running.items() if m == name)
        print(f"{name:<12} {addr:<22} {health:<20} cpus {_cpu_list(cpus):<8} pids {' '.join(map(str, pids)) or '-'}")
    return 0 if running else 1


# -- command line -------------------------------------------------------------------------------------


def _env_pairs(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--env wants KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--run-dir",
        type=Path,
        default=Path(os.environ.get("ZSC_CLUSTER_DIR") or DEFAULT_RUN_DIR),
        help="where state, logs and PID files go (default run/cluster)",
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_up = sub.add_parser("up", help="start redis, N replicas and nginx; return once all are ready")
    p_up.add_argument("--replicas", "-n", type=int, default=3)
    p_up.add_argument("--port", type=int, default=8080, help="nginx port (0 = any free port)")
    p_up.add_argument("--base-port", type=int, default=3001, help="first replica port (0 = free ports)")
    p_up.add_argument("--redis-port", type=int, default=6390, help="0 = any free port")
    p_up.add_argument("--no-redis", action="store_true", help="no redis-server, no ZSC_REDIS_URL")
    p_up.add_argument("--weights", help="nginx weight per replica, e.g. 4,1,1 (default all 1)")
    p_up.add_argument(
        "--threads",
        type=int,
        help="ZSC_CPU_THREADS per replica (default: size of its CPU set if pinned, else cores / replicas)",
    )
    p_up.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="extra env for replicas")
    p_up.add_argument("--ready-timeout", type=float, default=300)
    p_up.add_argument(
        "--cpus",
        action="append",
        default=[],
        metavar="LIST",
        help="pin replicas to CPU sets: one --cpus per replica in order (0, 0-1, 0,2), repeated cyclically; "
        "`--cpus auto` splits the available CPUs evenly (default: no pinning)",
    )
    p_up.add_argument("--front-cpus", metavar="LIST", help="pin nginx and redis-server to this CPU set")
    p_down = sub.add_parser("down", help="stop everything this run directory started")
    p_down.add_argument("--grace", type=float, default=30, help="seconds before SIGKILL")
    sub.add_parser("status", help="what is running and healthy")
    p_kill = sub.add_parser("kill", help="signal every process of one member (fault injection)")
    p_kill.add_argument("member", help="replica-N, nginx or redis")
    p_kill.add_argument("--signal", default="KILL", help="signal name (default KILL)")
    args = parser.parse_args(argv)

    try:
        if args.cmd == "up":
            weights = [int(w) for w in args.weights.split(",")] if args.weights else None
            up(
                args.run_dir,
                args.replicas,
                args.port,
                args.base_port,
                not args.no_redis,
                args.redis_port,
                weights,
                _env_pairs(args.env),
                args.threads,
                args.ready_timeout,
                args.cpus,
                args.front_cpus,
            )
        elif args.cmd == "down":
            down(args.run_dir, args.grace)
        elif args.cmd == "status":
            return status(args.run_dir)
        elif args.cmd == "kill":
            sig = signal.Signals[f"SIG{args.signal.upper().removeprefix('SIG')}"]
            pids = kill_member(args.run_dir, args.member, sig)
            say(f"{sig.name} -> {args.member}: {' '.join(map(str, pids)) or 'no process found'}")
            return 0 if pids else 1
    except ClusterError as e:
        say(f"error: {e}")
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
