"""CPU sets as taskset and cgroups write them (``0``, ``0,2``, ``0-3``, ``0-1,6``), validated."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence


class CpuSetError(ValueError):
    pass


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on."""
    return sorted(os.sched_getaffinity(0))


def parse_cpus(spec: str, allowed: Collection[int] | None = None) -> list[int]:
    """Sorted CPU numbers of ``spec``; every one must be in ``allowed`` (default: this process's CPUs)."""
    cpus: set[int] = set()
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        if not (lo.isdigit() and (not sep or hi.isdigit())) or (sep and int(hi) < int(lo)):
            raise CpuSetError(f"bad CPU list {spec!r}: use forms like 0, 0,2 or 0-3")
        cpus.update(range(int(lo), int(hi if sep else lo) + 1))
    if not cpus:
        raise CpuSetError(f"empty CPU list {spec!r}")
    allowed = set(allowed_cpus() if allowed is None else allowed)
    if not cpus <= allowed:
        raise CpuSetError(f"CPUs {sorted(cpus - allowed)} of {spec!r} are not available (allowed: {sorted(allowed)})")
    return sorted(cpus)


def format_cpus(cpus: Sequence[int] | None) -> str:
    return ",".join(map(str, cpus)) if cpus else "all"


def split_cpus(cpus: Sequence[int], n: int) -> list[list[int]]:
    """``n`` disjoint, equal slices of ``cpus`` when there are enough; otherwise one CPU each, round robin."""
    cpus = sorted(cpus)
    if n < 1:
        raise CpuSetError("need at least one set")
    if len(cpus) < n:
        return [[cpus[i % len(cpus)]] for i in range(n)]
    per = len(cpus) // n
    return [cpus[i * per : (i + 1) * per] for i in range(n)]
