"""Members for the processes the tooling starts: ``bentoml serve``, redis-server, nginx, the naive baseline.

Each function describes one process (``process.Member``); ``process.start``/``process.running`` run it.
Everything listens on 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx

from . import ROOT
from .net import HOST
from .process import HarnessError, Member, Probe

SERVICE = "service.http.app:ZeroShotClassifier"
NGINX_DIR = ROOT / "deploy" / "nginx"
# nginx.conf's proxy_read_timeout; a replica timeout at or above it turns the replica's 504 into nginx's.
NGINX_READ_TIMEOUT_S = 75
# what every process the harness starts gets, on top of the caller's environment
QUIET_ENV = {"BENTOML_DO_NOT_TRACK": "True", "PYTHONUNBUFFERED": "1"}


def venv_bin(name: str) -> str:
    """A console script of this project's virtualenv (the one running the harness, else .venv)."""
    for folder in (Path(sys.executable).parent, ROOT / ".venv" / "bin"):
        if (folder / name).exists():
            return str(folder / name)
    raise HarnessError(f"{name} not found next to {sys.executable}: run `make venv` and use .venv/bin/python")


def tool(script: str, module: str) -> list[str]:
    """The command for one of our tools: the virtualenv's console script, else ``python -m module`` with
    this interpreter (a machine where the project is on PYTHONPATH, not installed: the GPU benchmark)."""
    try:
        return [venv_bin(script)]
    except HarnessError:
        return [sys.executable, "-m", module]


def system_bin(name: str) -> str:
    found = shutil.which(name) or next((p for p in (f"/usr/sbin/{name}",) if os.access(p, os.X_OK)), None)
    if not found:
        raise HarnessError(f"{name} not found: apt-get install {'redis-server' if name == 'redis-server' else name}")
    return found


def http_probe(url: str, path: str = "/readyz", timeout: float = 2.0) -> Probe:
    return Probe(f"200 from {path}", lambda: httpx.get(f"{url}{path}", timeout=timeout).status_code == 200)


def http_status(url: str, timeout: float = 2.0) -> int | None:
    """The status of a GET, or None when nothing answers."""
    try:
        return httpx.get(url, timeout=timeout).status_code
    except httpx.HTTPError:
        return None


def redis_url(port: int, db: int = 0) -> str:
    return f"redis://{HOST}:{port}/{db}"


def redis_ping(port: int) -> bool:
    import redis

    try:
        return bool(redis.Redis(host=HOST, port=port, socket_timeout=1, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def model_store(env: Mapping[str, str]) -> Path:
    """The model store a BentoML process with this environment uses."""
    return Path(env.get("BENTOML_HOME") or Path.home() / "bentoml").resolve() / "models"


def bento_serve(
    name: str,
    port: int,
    workdir: Path,
    env: Mapping[str, str] | None = None,
    cpus: Sequence[int] | None = None,
    target: str = SERVICE,
    mark: str | None = None,
    log: Path | None = None,
) -> Member:
    """``bentoml serve`` on loopback with a BentoML home of its own (``workdir/bentoml_home``) whose
    ``models`` links to the caller's model store: BentoML wipes ``$BENTOML_HOME/prometheus_multiproc_dir``
    at start, so servers that shared a home would erase each other's metrics. The runtime each model runs on
    (``ZSC_RUNTIME=auto``: measured once, then remembered) is kept beside the store, shared like it, unless
    ``ZSC_RUNTIME_CACHE_DIR`` says where."""
    env = {**os.environ, **(env or {}), **QUIET_ENV}
    store = model_store(env)
    env.setdefault("ZSC_RUNTIME_CACHE_DIR", str(store.parent / "zsc-runtime"))
    home = workdir / "bentoml_home"
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "models").exists():
        store.mkdir(parents=True, exist_ok=True)
        (home / "models").symlink_to(store)
    url = f"http://{HOST}:{port}"
    return Member(
        name=name,
        cmd=[*tool("bentoml", "bentoml"), "serve", target, "--host", HOST, "--port", str(port)],
        log=log or workdir / f"{name}.log",
        env={**env, "BENTOML_HOME": str(home)},
        cpus=cpus,
        probe=http_probe(url),
        mark=mark,
        port=port,
        url=url,
    )


def redis_server(
    name: str,
    port: int,
    workdir: Path,
    cpus: Sequence[int] | None = None,
    maxmemory: str | None = "256mb",
    debug_command: bool = False,
    mark: str | None = None,
) -> Member:
    """A cache-shaped redis-server: no persistence, LRU eviction at ``maxmemory`` (None: unbounded)."""
    workdir.mkdir(parents=True, exist_ok=True)
    cmd = [system_bin("redis-server"), "--bind", HOST, "--port", str(port), "--save", "", "--appendonly", "no"]
    cmd += ["--daemonize", "no", "--dir", str(workdir)]
    if maxmemory:
        # volatile-lru: cache entries (each with a TTL) are evicted, never the job stream (none)
        cmd += ["--maxmemory", maxmemory, "--maxmemory-policy", "volatile-lru"]
    if debug_command:  # DEBUG SLEEP, for tests that stall Redis
        cmd += ["--enable-debug-command", "local"]
    return _redis_member(name, port, workdir, cmd, cpus, mark)


def _redis_member(
    name: str, port: int, workdir: Path, cmd: list[str], cpus: Sequence[int] | None, mark: str | None
) -> Member:
    """A redis-server command as a cluster member, ready once it answers PING."""
    return Member(
        name=name,
        cmd=cmd,
        log=workdir / f"{name}.log",
        cwd=workdir,
        cpus=cpus,
        probe=Probe("PONG", lambda: redis_ping(port)),
        mark=mark,
        port=port,
        url=redis_url(port),
    )


def jobs_redis_server(
    name: str,
    port: int,
    workdir: Path,
    fsync: str = "everysec",
    cpus: Sequence[int] | None = None,
    mark: str | None = None,
) -> Member:
    """A jobs-shaped redis-server: append-only persistence in ``workdir/data`` (started again on the same
    ``workdir``, it loads its jobs back), ``fsync`` every second (or ``always``: no write acknowledged that
    is not on disk), and never an eviction (a full Redis refuses new jobs instead of dropping old ones)."""
    (workdir / "data").mkdir(parents=True, exist_ok=True)
    cmd = [system_bin("redis-server"), "--bind", HOST, "--port", str(port), "--save", ""]
    cmd += ["--appendonly", "yes", "--appendfsync", fsync, "--maxmemory-policy", "noeviction"]
    cmd += ["--daemonize", "no", "--dir", str(workdir / "data")]
    return _redis_member(name, port, workdir, cmd, cpus, mark)


def upstream_conf(template: str, ports: Sequence[int], weights: Sequence[int]) -> str:
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
        raise HarnessError("deploy/nginx/zsc-upstream.conf has no `server` line to take parameters from")
    return "\n".join(out) + "\n"


def write_nginx_conf(conf_dir: Path, port: int, replica_ports: Sequence[int], weights: Sequence[int]) -> Path:
    """The shipped nginx.conf, unchanged, with our listen address and upstream servers next to it."""
    conf_dir.mkdir(parents=True, exist_ok=True)
    (conf_dir / "logs").mkdir(exist_ok=True)
    shutil.copyfile(NGINX_DIR / "nginx.conf", conf_dir / "nginx.conf")
    template = (NGINX_DIR / "zsc-upstream.conf").read_text()
    (conf_dir / "zsc-upstream.conf").write_text(upstream_conf(template, replica_ports, weights))
    (conf_dir / "zsc-listen.conf").write_text(f"# written by harness/launchers.py\nlisten {HOST}:{port};\n")
    return conf_dir / "nginx.conf"


def nginx_test_command(conf: Path) -> list[str]:
    return [system_bin("nginx"), "-t", "-q", "-p", f"{conf.parent}/", "-c", str(conf)]


def nginx(
    name: str, conf: Path, port: int, cpus: Sequence[int] | None = None, mark: str | None = None, probe_path="/readyz"
) -> Member:
    """nginx in the foreground with the config written by ``write_nginx_conf``; ready when ``probe_path``
    answers through it (``/readyz`` is proxied: ready means a replica behind it is)."""
    url = f"http://{HOST}:{port}"
    return Member(
        name=name,
        cmd=[system_bin("nginx"), "-p", f"{conf.parent}/", "-c", str(conf), "-g", "daemon off;"],
        log=conf.parent / "nginx.out",
        cwd=conf.parent,
        cpus=cpus,
        probe=http_probe(url, probe_path),
        mark=mark,
        port=port,
        url=url,
    )


def naive_server(
    name: str,
    port: int,
    workdir: Path,
    model_dir: Path,
    kind: str,
    template: str,
    env: Mapping[str, str] | None = None,
    cpus: Sequence[int] | None = None,
    device: str = "cpu",
) -> Member:
    """The naive baseline (loadtest/naive_server.py): one request at a time, no batching, no cache. Its torch
    sizes its thread pool from the CPU set it is pinned to."""
    url = f"http://{HOST}:{port}"
    cmd = [sys.executable, "-m", "loadtest.naive_server", "--model-dir", str(model_dir), "--device", device]
    cmd += ["--kind", kind, "--port", str(port), "--template", template]
    return Member(
        name=name,
        cmd=cmd,
        log=workdir / f"{name}.log",
        env={**os.environ, **(env or {}), **QUIET_ENV},
        cpus=cpus,
        probe=http_probe(url, "/healthz"),
        port=port,
        url=url,
    )


def gpu_monitor(log: Path, interval_ms: int = 200) -> Member:
    """nvidia-smi sampling GPU 0's utilisation and memory into ``log``: ``time, %, MiB`` per line."""
    query = "--query-gpu=timestamp,utilization.gpu,memory.used"
    return Member(
        name="gpu-monitor",
        cmd=[system_bin("nvidia-smi"), query, "--format=csv,noheader,nounits", "-i", "0", f"-lms={interval_ms}"],
        log=log,
    )
