"""Drive the local cluster command (harness/cluster.py) from tests: up, down, and nginx's access log."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from harness import ROOT
from harness.process import run_command


def cluster_command(
    run_dir: Path, args: list[str], env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess:
    return run_command(
        [sys.executable, "-m", "harness.cluster", "--run-dir", str(run_dir), *args],
        {**os.environ, **env},
        timeout,
        check=False,
        cwd=ROOT,
    )


@contextlib.contextmanager
def local_cluster(
    run_dir: Path, env: Mapping[str, str], replicas: int = 3, extra: list[str] | None = None, ready_timeout: float = 240
) -> Iterator[dict]:
    """``cluster.py up`` on free loopback ports; yields cluster.json; always ``cluster.py down`` at the end."""
    args = ["up", "--replicas", str(replicas), "--port", "0", "--base-port", "0", "--redis-port", "0"]
    args += ["--jobs-redis-port", "0"]
    args += ["--ready-timeout", str(ready_timeout), *(extra or [])]
    try:
        result = cluster_command(run_dir, args, env, timeout=ready_timeout + 120)
        assert result.returncode == 0, f"cluster up failed:\n{result.stdout}\n{result.stderr}"
        yield json.loads((run_dir / "cluster.json").read_text())
    finally:
        cluster_command(run_dir, ["down", "--grace", "20"], env, timeout=120)


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
