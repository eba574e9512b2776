"""Real processes for integration tests: ``bentoml serve`` on a free loopback port, the ``zsc`` CLI."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from loadtest.procs import ROOT, free_port, start, stop, wait_ready

BIN = Path(sys.executable).parent
__all__ = ["ROOT", "BIN", "bento_server", "free_port", "run_cli", "stop", "wait_ready"]


@contextlib.contextmanager
def bento_server(
    env: Mapping[str, str], log_path: Path, port: int | None = None, ready_timeout: float = 180
) -> Iterator[str]:
    """``bentoml serve`` the project's service with extra env; yields its base URL."""
    port = port or free_port()
    full_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
    # Each server gets its own BentoML home sharing the model store: BentoML wipes
    # $BENTOML_HOME/prometheus_multiproc_dir at start, which would erase another server's metrics.
    store = Path(full_env.get("BENTOML_HOME") or Path.home() / "bentoml")
    home = log_path.parent / f"bentoml-home-{port}"
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "models").exists():
        (home / "models").symlink_to((store / "models").resolve())
    full_env["BENTOML_HOME"] = str(home)
    cmd = [
        str(BIN / "bentoml"),
        "serve",
        "service.service:ZeroShotClassifier",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    proc = start(cmd, full_env, log_path)
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
