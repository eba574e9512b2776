"""The runtime ``auto`` chose, remembered on disk so that a second start does not measure again.

A choice holds for one model revision on one CPU with the same runtimes: the key is made of the revision,
the CPU's model name and flags (read at run time from ``/proc/cpuinfo``), the worker's threads, the
candidates and the runtimes' versions; anything else (another CPU, an upgraded OpenVINO) measures afresh.
The record is one small JSON file per key, written whole (a temporary file renamed); the workers of one
replica measure one at a time (``exclusive``: a lock file), so the second reads what the first wrote.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from service.core.runtime_choice import RULE

log = logging.getLogger("zsc.runtime")

RUNTIME_PACKAGES = ("onnxruntime", "openvino", "torch")


def cpu_info() -> tuple[str, tuple[str, ...]]:
    """(the CPU's model name, its flags), from /proc/cpuinfo; ("unknown", ()) where there is none."""
    name, flags = "unknown", ()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and name == "unknown":
                name = value.strip()
            elif key.strip() in ("flags", "Features") and not flags:
                flags = tuple(sorted(value.split()))
    return name, flags


def runtime_versions() -> dict[str, str]:
    out = {}
    for name in RUNTIME_PACKAGES:
        with contextlib.suppress(PackageNotFoundError):
            out[name] = version(name)
    return out


def choice_key(revision: str, threads: int, candidates: Sequence[object]) -> str:
    name, flags = cpu_info()
    what = {
        "revision": revision,
        "cpu": name,
        "flags": flags,
        "threads": threads,
        "candidates": [str(c) for c in candidates],
        "versions": runtime_versions(),
        "rule": RULE,
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:24]


def recall(folder: Path, key: str) -> dict[str, Any] | None:
    """The record remembered under ``key``, or None (never measured, or unreadable)."""
    with contextlib.suppress(OSError, ValueError):
        return json.loads((folder / f"choice-{key}.json").read_text())
    return None


def remember(folder: Path, key: str, record: dict[str, Any]) -> None:
    """Write the record; a folder that cannot be written is logged, not fatal (the next start measures)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as out:
            json.dump(record, out, indent=1)
        os.replace(tmp, folder / f"choice-{key}.json")
    except OSError as exc:
        log.warning("could not remember the runtime choice in %s (%s): the next start measures again", folder, exc)


@contextlib.contextmanager
def exclusive(folder: Path) -> Iterator[None]:
    """One process of this machine at a time chooses (the workers of a replica measure one after another,
    not on each other's cores); without a writable folder, no lock."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / "choice.lock", "w")  # noqa: SIM115 (held across the yield)
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
