"""What a measurement ran on: the machine and the versions of everything in the path."""

from __future__ import annotations

import contextlib
import platform
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import psutil

from .cpus import allowed_cpus
from .launchers import system_bin
from .process import HarnessError, run_command

PACKAGES = ("bentoml", "locust", "onnxruntime", "openvino", "torch", "transformers")
# the CPU features that decide which runtime and precision serve fastest (ZSC_RUNTIME=auto)
FLAGS_OF_NOTE = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_int8", "amx_fp16")


def machine_info() -> dict:
    cpu = "unknown"
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    return {
        "cpu": cpu,
        "cpu_flags": cpu_flags(),
        "cpus": len(allowed_cpus()),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "kernel": platform.release(),
        "os": _os_name(),
    }


def cpu_flags() -> list[str]:
    """The flags of note this CPU has (``FLAGS_OF_NOTE``), read from /proc/cpuinfo as the service reads them."""
    from service.engine.runtime_memory import cpu_info

    _, flags = cpu_info()
    return [f for f in FLAGS_OF_NOTE if f in flags]


def versions(packages: tuple[str, ...] = PACKAGES, servers: bool = True) -> dict[str, str]:
    """Python and package versions from their metadata (importing locust would monkey-patch this process with
    gevent), plus nginx and redis-server when ``servers``."""
    out = {"python": platform.python_version()}
    for name in packages:
        with contextlib.suppress(PackageNotFoundError):
            out[name] = version(name)
    if servers:
        for name, args in (("nginx", ["-v"]), ("redis-server", ["--version"])):
            with contextlib.suppress(HarnessError, OSError):
                r = run_command([system_bin(name), *args], timeout=10, check=False)
                found = re.search(r"(?:nginx/|v=)([\w.]+)", r.stdout + r.stderr)
                out[name] = found[1] if found else "?"
    return out


def _os_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    return platform.system()
