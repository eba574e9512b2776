"""Start, probe and stop the local processes that tests, benchmarks and load tests drive (loopback only)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd: list[str], env: Mapping[str, str], log: Path) -> subprocess.Popen:
    """A process in its own session (so stop() takes its children too), output to ``log``."""
    with log.open("wb") as fh:
        return subprocess.Popen(
            list(cmd), env=dict(env), cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )


def wait_ready(
    url: str, proc: subprocess.Popen | None, timeout: float, log: Path | None = None, path: str = "/readyz"
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{url}: process exited with {proc.returncode} before ready:\n{_tail(log)}")
        try:
            if httpx.get(f"{url}{path}", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{url} not ready after {timeout}s:\n{_tail(log)}")


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM the process group (graceful), then SIGKILL every process of the tree that is left.
    The tree matters: `bentoml serve` starts its workers in sessions of their own."""
    import psutil

    if proc.poll() is not None:
        return
    try:
        tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        tree = []
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)
    for p in tree:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()


def _tail(log: Path | None) -> str:
    return log.read_text(errors="replace")[-4000:] if log and log.exists() else ""
