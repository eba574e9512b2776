"""Start and stop real processes for integration tests: ``bentoml serve`` on a free loopback port."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, proc: subprocess.Popen | None, timeout: float, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = log.read_text()[-4000:] if log and log.exists() else ""
            raise RuntimeError(f"server exited with {proc.returncode} before ready:\n{tail}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    tail = log.read_text()[-4000:] if log and log.exists() else ""
    raise TimeoutError(f"{url} not ready after {timeout}s:\n{tail}")


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


@contextlib.contextmanager
def bento_server(
    env: Mapping[str, str], log_path: Path, port: int | None = None, ready_timeout: float = 180
) -> Iterator[str]:
    """``bentoml serve`` the project's service with extra env; yields its base URL."""
    port = port or free_port()
    full_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
    cmd = [
        str(BIN / "bentoml"),
        "serve",
        "service.service:ZeroShotClassifier",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, proc, ready_timeout, log_path)
        yield url
    finally:
        stop(proc)


def run_cli(args: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "zsc"), "-q", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
