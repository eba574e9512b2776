"""Drive the local cluster command (deploy/local/cluster.py) from tests: up, kill a member, read nginx's log, down."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.support.server import ROOT

SCRIPT = ROOT / "deploy" / "local" / "cluster.py"


def _load_module():
    spec = importlib.util.spec_from_file_location("zsc_local_cluster", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cluster_module = _load_module()


def run_command(run_dir: Path, args: list[str], env: Mapping[str, str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--run-dir", str(run_dir), *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextlib.contextmanager
def local_cluster(
    run_dir: Path, env: Mapping[str, str], replicas: int = 3, extra: list[str] | None = None, ready_timeout: float = 240
) -> Iterator[dict]:
    """``cluster.py up`` on free loopback ports; yields cluster.json; always ``cluster.py down`` at the end."""
    args = ["up", "--replicas", str(replicas), "--port", "0", "--base-port", "0", "--redis-port", "0"]
    args += ["--ready-timeout", str(ready_timeout), *(extra or [])]
    try:
        result = run_command(run_dir, args, env, timeout=ready_timeout + 120)
        assert result.returncode == 0, f"cluster up failed:\n{result.stdout}\n{result.stderr}"
        yield json.loads((run_dir / "cluster.json").read_text())
    finally:
        run_command(run_dir, ["down", "--grace", "20"], env, timeout=120)


def access_log(state: dict, settle: float = 3.0, expect: int = 0) -> list[dict]:
    """nginx's JSON access log (it is flushed every second: wait until ``expect`` lines are there)."""
    path = Path(state["nginx"]["access_log"])
    deadline = time.monotonic() + settle
    while True:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= expect or time.monotonic() > deadline:
            return [json.loads(line) for line in lines]
        time.sleep(0.2)


def attempts(entry: dict) -> list[tuple[str, str]]:
    """(upstream address, upstream status) of every attempt nginx made for one request, in order."""
    addrs = [a.strip() for a in entry["upstream_addr"].split(",") if a.strip()]
    statuses = [s.strip() for s in entry["upstream_status"].split(",")]
    return list(zip(addrs, statuses + [""] * (len(addrs) - len(statuses))))
