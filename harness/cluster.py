"""A local cluster on 127.0.0.1: a cache redis-server, a jobs redis-server, N ``bentoml serve`` replicas, nginx.

    make cluster N=3                                # = python -m harness.cluster up --replicas 3
    .venv/bin/python -m harness.cluster status
    .venv/bin/python -m harness.cluster kill replica-2     # fault injection: SIGKILL every process of one member
    make cluster-down                               # = python -m harness.cluster down
    .venv/bin/python -m harness.cluster up -n 2 --cpus 0 --cpus 1 --front-cpus 1   # pin replica-1 to CPU 0, ...

Everything lives in one run directory (default ``run/cluster``): ``cluster.json`` (ports, PIDs, URLs, CPU
sets) and one folder per member with its log, its PID file and, for a replica, its own BentoML home (the
model store is shared through a symlink). ``up`` empties it first, except the jobs Redis's append-only
files (``jobs-redis/data``): jobs outlive a ``down`` and ``up`` as they outlive a restart of the jobs Redis
(``--fresh-jobs`` drops them). Every process carries the mark ``<run dir>::<member>``
(``process.MARK``), so a later ``down`` or ``kill`` (another process) finds each member's whole tree.

CPU pinning sets a member's affinity before it starts; its children (BentoML's workers, their thread pools)
inherit it. A pinned replica gets ``ZSC_CPU_THREADS`` = the size of its CPU set unless told otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from . import ROOT
from .cpus import CpuSetError, allowed_cpus, format_cpus, parse_cpus, split_cpus
from .launchers import (
    NGINX_READ_TIMEOUT_S,
    QUIET_ENV,
    bento_serve,
    http_status,
    jobs_redis_server,
    nginx,
    nginx_test_command,
    redis_ping,
    redis_server,
    write_nginx_conf,
)
from .net import HOST, free_port, port_is_free
from .process import (
    HarnessError,
    Member,
    ProcessId,
    Running,
    descendants,
    marked_processes,
    run_command,
    signal_pids,
    start,
    stop_tree,
    wait_all_ready,
)
from .store import ensure_default

DEFAULT_RUN_DIR = ROOT / "run" / "cluster"
STATE = "cluster.json"
Say = Callable[[str], None]


class ClusterError(HarnessError):
    pass


# -- what runs ------------------------------------------------------------------------------------------
@dataclass
class MemberRecord:
    name: str
    port: int
    url: str
    pid: int
    start_time: float  # the process's create time: a recorded pid is ours only while it matches
    log: str
    cpus: list[int] | None = None

    @property
    def process(self) -> ProcessId:
        return ProcessId(self.pid, self.start_time)


@dataclass
class ReplicaRecord(MemberRecord):
    weight: int = 1
    home: str = ""
    threads: int | None = None


@dataclass
class NginxRecord(MemberRecord):
    dir: str = ""
    access_log: str = ""
    error_log: str = ""


@dataclass
class ClusterState:
    run_dir: str
    started: float
    redis: MemberRecord | None = None
    replicas: list[ReplicaRecord] = field(default_factory=list)
    nginx: NginxRecord | None = None
    jobs_redis: MemberRecord | None = None

    def members(self) -> list[MemberRecord]:
        return [m for m in (self.nginx, self.redis, self.jobs_redis, *self.replicas) if m is not None]

    def save(self) -> None:
        path = Path(self.run_dir) / STATE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2) + "\n")
        tmp.replace(path)

    @classmethod
    def load(cls, run_dir: Path) -> ClusterState | None:
        path = run_dir / STATE
        if not path.exists():
            return None
        raw = json.loads(path.read_text())

        def record(kind, value):
            return kind(**{f.name: value[f.name] for f in fields(kind) if f.name in value}) if value else None

        return cls(
            run_dir=raw["run_dir"],
            started=raw["started"],
            redis=record(MemberRecord, raw.get("redis")),
            replicas=[record(ReplicaRecord, r) for r in raw.get("replicas", [])],
            nginx=record(NginxRecord, raw.get("nginx")),
            jobs_redis=record(MemberRecord, raw.get("jobs_redis")),
        )


@dataclass(frozen=True)
class ClusterSpec:
    """What ``up`` starts. Ports: 0 = any free port; fixed ones must be free."""

    replicas: int = 3
    port: int = 8080
    base_port: int = 3001
    redis: bool = True
    redis_port: int = 6390
    jobs_redis: bool = True  # a second, persistent redis-server for jobs (ZSC_JOBS_REDIS_URL)
    jobs_redis_port: int = 6391
    fresh_jobs: bool = False  # drop the jobs a previous run left in the jobs Redis
    weights: tuple[int, ...] | None = None
    env: Mapping[str, str] = field(default_factory=dict)  # extra environment for the replicas
    threads: int | None = None  # ZSC_CPU_THREADS per replica
    ready_timeout: float = 300
    cpus: tuple[str, ...] = ()  # CPU set per replica, in order, repeated; ("auto",) splits the CPUs evenly
    front_cpus: str | None = None  # nginx and redis-server


def replica_cpus(specs: Sequence[str], replicas: int) -> list[list[int] | None]:
    """One CPU set per replica from ``--cpus`` values, given in replica order and repeated cyclically;
    ``auto`` splits the CPUs this process may use into ``replicas`` disjoint sets (round robin when there
    are fewer CPUs than replicas). No values: no pinning."""
    if not specs:
        return [None] * replicas
    if list(specs) == ["auto"]:
        return split_cpus(allowed_cpus(), replicas)
    sets = [parse_cpus(s) for s in specs]
    return [sets[i % len(sets)] for i in range(replicas)]


def _mark(run_dir: Path, member: str = "") -> str:
    return f"{run_dir.resolve()}::{member}"


def member_pids(run_dir: Path, member: str | None = None) -> dict[int, str]:
    """{pid: member} of live processes started for this run directory (one member, or all): those carrying
    its mark, the recorded main processes (nginx and redis-server overwrite their environment), and their
    descendants."""
    run_dir = run_dir.resolve()
    found = marked_processes(_mark(run_dir))
    state = ClusterState.load(run_dir)
    for rec in state.members() if state else []:
        if rec.process.alive():
            found.setdefault(rec.pid, rec.name)
    for pid, name in list(found.items()):
        for child in descendants([pid]):
            found.setdefault(child, name)
    return {pid: name for pid, name in found.items() if member is None or name == member}


def kill_member(run_dir: Path, member: str, sig: int = signal.SIGKILL, wait_s: float = 10.0) -> list[int]:
    """``sig`` to every live process of one member (all its process groups); returns the PIDs. A SIGKILL
    returns once they are gone (a large process takes a moment to die), or after ``wait_s``."""
    pids = sorted(member_pids(run_dir, member))
    signal_pids(pids, sig)
    deadline = time.monotonic() + wait_s
    while sig == signal.SIGKILL and time.monotonic() < deadline and member_pids(run_dir, member):
        time.sleep(0.05)
    return pids


# -- up -------------------------------------------------------------------------------------------------
def up(run_dir: Path, spec: ClusterSpec, say: Say = print) -> ClusterState:
    """Start the cluster and return once nginx answers /readyz; state also in ``cluster.json``."""
    run_dir = run_dir.resolve()
    if spec.replicas < 1:
        raise ClusterError("--replicas must be >= 1")
    weights = list(spec.weights or [1] * spec.replicas)
    if len(weights) != spec.replicas or min(weights) < 1:
        raise ClusterError(f"--weights needs {spec.replicas} positive integers, got {weights}")
    if member_pids(run_dir):
        raise ClusterError(f"a cluster is already running from {run_dir}: stop it first (make cluster-down)")
    env = {**os.environ, **spec.env, **QUIET_ENV}
    pins = replica_cpus(spec.cpus, spec.replicas)
    front = parse_cpus(spec.front_cpus) if spec.front_cpus else None

    taken: set[int] = set()

    def pick(wanted: int, what: str) -> int:
        chosen = free_port(taken) if wanted == 0 else wanted
        if wanted and not port_is_free(chosen):
            raise ClusterError(f"port {chosen} ({what}) is in use: choose another or pass 0 for a free one")
        taken.add(chosen)
        return chosen

    nginx_port = pick(spec.port, "nginx")
    replica_ports = [pick(spec.base_port and spec.base_port + i, f"replica-{i + 1}") for i in range(spec.replicas)]
    redis_port = pick(spec.redis_port, "redis") if spec.redis else None
    jobs_redis_port = pick(spec.jobs_redis_port, "jobs-redis") if spec.jobs_redis else None

    timeout_s = int(env.get("ZSC_TIMEOUT_S") or 60)
    if timeout_s >= NGINX_READ_TIMEOUT_S:
        say(
            f"warning: ZSC_TIMEOUT_S={timeout_s} >= nginx's proxy_read_timeout ({NGINX_READ_TIMEOUT_S}s): "
            "raise it in deploy/nginx/nginx.conf or nginx answers 504 before the replica does"
        )
    if run_dir.exists():  # logs of a previous run: start clean (its jobs stay, unless told otherwise)
        _clean(run_dir, keep_jobs=not spec.fresh_jobs)
    run_dir.mkdir(parents=True, exist_ok=True)

    state = ClusterState(run_dir=str(run_dir), started=time.time())
    try:
        ports = (nginx_port, replica_ports, redis_port, jobs_redis_port)
        _up(run_dir, state, spec, env, ports, weights, pins, front, say)
    except BaseException:
        say("start-up failed: stopping what was started")
        down(run_dir, quiet=True, say=say)
        raise
    return state


def _clean(run_dir: Path, keep_jobs: bool) -> None:
    jobs_data = run_dir / "jobs-redis" / "data"
    for child in run_dir.iterdir():
        if keep_jobs and child.name == "jobs-redis" and jobs_data.is_dir():
            for part in child.iterdir():
                if part != jobs_data:
                    shutil.rmtree(part) if part.is_dir() else part.unlink()
            continue
        shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()


def _record(kind, proc: Running, log: Path, **extra) -> MemberRecord:
    m = proc.member
    cpus = list(m.cpus) if m.cpus else None
    return kind(m.name, m.port, m.url, proc.id.pid, proc.id.started, str(log), cpus, **extra)


def _started(run_dir: Path, state: ClusterState, proc: Running, record: MemberRecord) -> None:
    (run_dir / record.name / f"{record.name.split('-')[0]}.pid").write_text(f"{proc.pid}\n")
    state.save()


def _start_redis(run_dir: Path, state: ClusterState, member: Member, field: str, ready_s: float) -> Running:
    """Start one of the cluster's redis-servers, recorded as ``state.<field>`` (saved, with its PID file) before
    waiting up to ``ready_s`` for it to answer: ``down`` stops it even when it never does."""
    proc = start(member)
    record = _record(MemberRecord, proc, member.log)
    setattr(state, field, record)
    _started(run_dir, state, proc, record)
    proc.wait_ready(ready_s)
    return proc


def _up(run_dir, state, spec, env, ports, weights, pins, front, say) -> None:
    nginx_port, replica_ports, redis_port, jobs_redis_port = ports
    t0 = time.monotonic()
    # 1. Redis: the cache tier (volatile; replicas work without it), and the jobs' own (append-only)
    if redis_port is not None:
        rdir = run_dir / "redis"
        member = redis_server("redis", redis_port, rdir, cpus=front, mark=_mark(run_dir, "redis"))
        proc = _start_redis(run_dir, state, member, "redis", ready_s=20)
        say(f"redis-server on {HOST}:{redis_port} (pid {proc.pid}): the cache, no persistence")
    if jobs_redis_port is not None:
        jdir = run_dir / "jobs-redis"
        member = jobs_redis_server("jobs-redis", jobs_redis_port, jdir, cpus=front, mark=_mark(run_dir, "jobs-redis"))
        proc = _start_redis(
            run_dir, state, member, "jobs_redis", ready_s=60
        )  # loads the jobs a previous run left first
        say(f"redis-server on {HOST}:{jobs_redis_port} (pid {proc.pid}): jobs, append-only in {jdir / 'data'}")

    # 2. The model store, shared by every replica
    store_env = {**env, "BENTOML_HOME": str(Path(env.get("BENTOML_HOME") or Path.home() / "bentoml").resolve())}
    if not env.get("ZSC_MODEL"):
        say(f"model store {store_env['BENTOML_HOME']}: making sure the bundled model is in it")
        ensure_default(store_env)

    # 3. Replicas, started together (each loads its own copy of the model)
    shared_threads = spec.threads
    if spec.threads is None and not env.get("ZSC_CPU_THREADS"):
        shared_threads = max(1, (os.cpu_count() or 1) // len(replica_ports))
    procs = []
    for i, (port, weight, pin) in enumerate(zip(replica_ports, weights, pins), start=1):
        name = f"replica-{i}"
        renv = dict(store_env)
        if spec.threads is not None:
            renv["ZSC_CPU_THREADS"] = str(spec.threads)
        elif pin and not env.get("ZSC_CPU_THREADS"):
            renv["ZSC_CPU_THREADS"] = str(len(pin))  # a pinned replica: one thread per CPU of its set
        elif shared_threads is not None:
            renv["ZSC_CPU_THREADS"] = str(shared_threads)
        if state.redis:
            renv["ZSC_REDIS_URL"] = state.redis.url
        if state.jobs_redis:
            renv["ZSC_JOBS_REDIS_URL"] = state.jobs_redis.url
        rdir = run_dir / name
        member = bento_serve(name, port, rdir, renv, pin, mark=_mark(run_dir, name), log=rdir / "replica.log")
        proc = start(member)
        threads = int(renv["ZSC_CPU_THREADS"]) if renv.get("ZSC_CPU_THREADS") else None
        home = member.env["BENTOML_HOME"]
        record = _record(ReplicaRecord, proc, member.log, weight=weight, home=home, threads=threads)
        state.replicas.append(record)
        _started(run_dir, state, proc, record)
        procs.append(proc)
        where = f", CPUs {format_cpus(pin)}, {threads} threads" if pin else ""
        say(f"{name} starting on {HOST}:{port} (pid {proc.pid}{where}, log {member.log})")

    def restart(dead: Running) -> Running:
        say(f"{dead.member.name} lost a start-up port race; starting it again")
        proc = start(dead.member)
        i = next(i for i, r in enumerate(state.replicas) if r.name == dead.member.name)
        state.replicas[i] = _record(
            ReplicaRecord,
            proc,
            dead.member.log,
            **{k: getattr(state.replicas[i], k) for k in ("weight", "home", "threads")},
        )
        _started(run_dir, state, proc, state.replicas[i])
        return proc

    wait_all_ready(
        procs,
        spec.ready_timeout,
        on_ready=lambda p: say(f"{p.member.name} ready ({time.monotonic() - t0:.1f}s)"),
        on_wait=lambda names: say(f"waiting for {', '.join(names)} to load the model ({time.monotonic() - t0:.0f}s)"),
        restart=restart,
    )

    # 4. nginx in front
    ndir = run_dir / "nginx"
    conf = write_nginx_conf(ndir, nginx_port, replica_ports, weights)
    run_command(nginx_test_command(conf), what="nginx -t")
    member = nginx("nginx", conf, nginx_port, cpus=front, mark=_mark(run_dir, "nginx"))
    proc = start(member)
    state.nginx = _record(
        NginxRecord,
        proc,
        member.log,
        dir=str(ndir),
        access_log=str(ndir / "logs" / "access.json"),
        error_log=str(ndir / "logs" / "error.log"),
    )
    _started(run_dir, state, proc, state.nginx)
    proc.wait_ready(20)
    say(f"nginx on {member.url} (pid {proc.pid}) -> {', '.join(str(p) for p in replica_ports)}")
    say(
        f"ready in {time.monotonic() - t0:.1f}s: curl -s {member.url}/classify -H 'content-type: application/json' "
        """-d '{"text": "The team won the cup", "labels": ["sports", "business"]}'"""
    )
    say(f"logs and PID files under {run_dir}; stop with: make cluster-down")


# -- down / status --------------------------------------------------------------------------------------
# Front to back: stop taking requests first, then let replicas finish theirs (a worker hands its chunk back
# to the jobs Redis), then the cache and the jobs Redis (SIGTERM: it syncs its append-only file first).
_STOP_ORDER = (
    ("nginx", signal.SIGQUIT),
    ("replica-", signal.SIGTERM),
    ("redis", signal.SIGTERM),
    ("jobs-redis", signal.SIGTERM),
)


def down(run_dir: Path, grace: float = 30, quiet: bool = False, say: Say = print) -> list[int]:
    """Stop every process of the run directory: graceful signal per member, SIGKILL after ``grace``."""
    run_dir = run_dir.resolve()
    state = ClusterState.load(run_dir)
    stopped: list[int] = []
    for prefix, sig in _STOP_ORDER:
        running = member_pids(run_dir)
        procs = {pid: m for pid, m in running.items() if m.startswith(prefix)}
        if not procs:
            continue
        if not quiet:
            say(f"stopping {', '.join(sorted(set(procs.values())))} (pids {' '.join(map(str, sorted(procs)))})")
        # the main process of each member gets the graceful signal and stops its own children
        roots = {r.pid: r.process for r in (state.members() if state else []) if r.name.startswith(prefix)}
        stopped += stop_tree(roots, _mark(run_dir, prefix), sig, grace)
    rest = member_pids(run_dir)  # stragglers of no known member
    signal_pids(rest, signal.SIGKILL)
    stopped = sorted(set(stopped) | set(rest))
    for pid_file in run_dir.glob("*/*.pid"):
        pid_file.unlink()
    if not quiet:
        say(f"stopped {len(stopped)} processes; logs kept in {run_dir}" if stopped else "nothing was running")
    return stopped


def status(run_dir: Path) -> int:
    run_dir = run_dir.resolve()
    state = ClusterState.load(run_dir)
    if not state:
        print(f"no cluster in {run_dir}")
        return 1
    running = member_pids(run_dir)
    rows = []
    for store in (state.redis, state.jobs_redis):
        if store:
            rows.append((store, "ok" if redis_ping(store.port) else "down"))
    for r in state.replicas:
        code = http_status(f"{r.url}/readyz")
        rows.append((r, "ready" if code == 200 else f"not ready ({code})"))
    if state.nginx:
        rows.append((state.nginx, "ok" if http_status(f"{state.nginx.url}/nginx/health") == 200 else "down"))
    for rec, health in rows:
        pids = sorted(p for p, m in running.items() if m == rec.name)
        addr, cpus = f"{HOST}:{rec.port}", format_cpus(rec.cpus)
        print(f"{rec.name:<12} {addr:<22} {health:<20} cpus {cpus:<8} pids {' '.join(map(str, pids)) or '-'}")
    return 0 if running else 1


# -- the command line ------------------------------------------------------------------------------
def say(msg: str) -> None:
    print(f"[cluster] {msg}", flush=True)


def _env_pairs(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--env wants KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.cluster", description=__doc__.split("\n\n")[0])
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
    p_up.add_argument("--no-redis", action="store_true", help="no cache redis-server, no ZSC_REDIS_URL")
    p_up.add_argument("--jobs-redis-port", type=int, default=6391, help="the jobs Redis's port (0 = any free port)")
    p_up.add_argument(
        "--no-jobs-redis",
        action="store_true",
        help="no jobs redis-server, no ZSC_JOBS_REDIS_URL (jobs then live in the cache's Redis, if any)",
    )
    p_up.add_argument("--fresh-jobs", action="store_true", help="drop the jobs a previous run left")
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
    p_kill.add_argument("member", help="replica-N, nginx, redis or jobs-redis")
    p_kill.add_argument("--signal", default="KILL", help="signal name (default KILL)")
    args = parser.parse_args(argv)

    try:
        if args.cmd == "up":
            spec = ClusterSpec(
                replicas=args.replicas,
                port=args.port,
                base_port=args.base_port,
                redis=not args.no_redis,
                redis_port=args.redis_port,
                jobs_redis=not args.no_jobs_redis,
                jobs_redis_port=args.jobs_redis_port,
                fresh_jobs=args.fresh_jobs,
                weights=tuple(int(w) for w in args.weights.split(",")) if args.weights else None,
                env=_env_pairs(args.env),
                threads=args.threads,
                ready_timeout=args.ready_timeout,
                cpus=tuple(args.cpus),
                front_cpus=args.front_cpus,
            )
            up(args.run_dir, spec, say)
        elif args.cmd == "down":
            down(args.run_dir, args.grace, say=say)
        elif args.cmd == "status":
            return status(args.run_dir)
        elif args.cmd == "kill":
            sig = signal.Signals[f"SIG{args.signal.upper().removeprefix('SIG')}"]
            pids = kill_member(args.run_dir, args.member, sig)
            say(f"{sig.name} -> {args.member}: {' '.join(map(str, pids)) or 'no process found'}")
            return 0 if pids else 1
    except (ClusterError, CpuSetError) as e:
        say(f"error: {e}")
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
