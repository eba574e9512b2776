"""The process's memory: what it holds, what it may still take, and giving a retired model's memory back."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def resident_mb() -> float:
    """This process's resident memory (Linux; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def memory_left_mb(limit_mb: int = 0) -> float | None:
    """Memory the replica may still use: ``limit_mb`` (ZSC_MEMORY_LIMIT_MB) or the cgroup's limit, minus what
    it holds; with neither, what the machine has available; None when none of these can be read."""
    limit = float(limit_mb) if limit_mb else _cgroup_limit_mb()
    if limit is not None:
        return limit - resident_mb()
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _cgroup_limit_mb() -> float | None:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            raw = Path(path).read_text().strip()
        except OSError:
            continue
        if raw.isdigit() and int(raw) < 2**60:  # "max", or v1's "no limit" near 2^63
            return int(raw) / 2**20
    return None


def release_memory() -> None:
    """Give a retired model's memory back: the objects loaded at start-up were frozen out of the collector's
    sight (service.http.app), so thaw, collect, freeze again; then ask glibc to return free pages."""
    import ctypes
    import gc

    gc.unfreeze()
    gc.collect()
    gc.freeze()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
