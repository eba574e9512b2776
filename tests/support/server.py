"""Real processes for integration tests, through the harness: ``bentoml serve`` on a free loopback port,
a redis-server, the ``zsc`` CLI."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from harness import ROOT
from harness.launchers import bento_serve, redis_server
from harness.net import free_port
from harness.process import Running, run_command, running, start

BIN = Path(sys.executable).parent
KEYS = ("zsc-test-key-one-4f1c9a", "zsc-test-key-two-77b2e0")  # the keyed server's two keys (a rotation)
__all__ = ["ROOT", "BIN", "KEYS", "bento_server", "redis", "run_cli"]


@contextlib.contextmanager
def bento_server(
    env: Mapping[str, str],
    log_path: Path,
    port: int | None = None,
    ready_timeout: float = 180,
    target: str | None = None,
) -> Iterator[str]:
    """``bentoml serve`` the project's service (or ``target``) with extra env; yields its base URL."""
    port = port or free_port()
    extra = {"target": target} if target else {}
    member = bento_serve(log_path.stem, port, log_path.parent / f"server-{port}", env, log=log_path, **extra)
    with running(member, ready_timeout) as server:
        yield server.url


def redis(workdir: Path, port: int | None = None) -> Running:
    """A started, answering redis-server (DEBUG allowed, for stalls); ``.kill()``/``.stop()`` it, start
    another on ``.member.port`` to restart."""
    return start(redis_server("redis", port or free_port(), workdir, maxmemory=None, debug_command=True)).wait_ready(10)


def run_cli(args: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess:
    return run_command([str(BIN / "zsc"), "-q", *args], {**os.environ, **env}, timeout=300, check=False)
