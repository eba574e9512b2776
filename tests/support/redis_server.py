"""A real redis-server on a loopback port, which tests can stop, kill and restart on the same port."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import redis

from loadtest.procs import free_port


class RedisServer:
    def __init__(self, workdir: Path, port: int | None = None) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed (make test installs it: apt-get install redis-server)")
        self.port = port or free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = (self.workdir / "redis.log").open("ab")
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--enable-debug-command",
                "local",
                "--dir",
                str(self.workdir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if self.client().ping():
                    return self
            except redis.ConnectionError:
                time.sleep(0.05)
        raise TimeoutError(f"redis-server on {self.port} did not start")

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
