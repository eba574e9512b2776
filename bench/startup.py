"""Seconds from ``bentoml serve`` to a 200 from /readyz, the default model on a warm store: the runtime pinned
(``ZSC_RUNTIME=onnx ZSC_PRECISION=fp32``, what a start cost before the choice existed), ``auto`` with nothing
remembered (the first start on a machine: every candidate measured), and ``auto`` again (the choice and
OpenVINO's compiled model remembered), alternated over ``--rounds``.

    .venv/bin/python -m bench.startup                        # 3 rounds
    .venv/bin/python -m bench.startup --cpus 0 --rounds 5

The issue's bar: the first ``auto`` start at most 15 s longer than the pinned one, the second no longer.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from harness.cpus import format_cpus, parse_cpus
from harness.launchers import bento_serve
from harness.machine import machine_info
from harness.net import free_port
from harness.process import start
from harness.progress import say
from harness.store import ensure_default

PINNED = {"ZSC_RUNTIME": "onnx", "ZSC_PRECISION": "fp32"}


def seconds_to_ready(name: str, env: dict[str, str], work: Path, cpus: list[int] | None) -> float:
    member = bento_serve(name, free_port(), work / name, env, cpus=cpus)
    t0 = time.perf_counter()
    proc = start(member)
    try:
        proc.wait_ready(600)
        return time.perf_counter() - t0
    finally:
        proc.stop(20)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--cpus", help="CPUs for the server (default: all)")
    a = p.parse_args()
    ensure_default(os.environ)
    cpus = parse_cpus(a.cpus) if a.cpus else None
    work = Path(tempfile.mkdtemp(prefix="zsc-startup-"))
    times: dict[str, list[float]] = {"pinned": [], "auto, first start": [], "auto, remembered": []}
    for rnd in range(a.rounds):
        fresh = str(work / f"choices-{rnd}")  # nothing remembered, nothing compiled
        times["pinned"].append(
            seconds_to_ready(f"pinned-{rnd}", {**PINNED, "ZSC_RUNTIME_CACHE_DIR": fresh}, work, cpus)
        )
        for case in ("auto, first start", "auto, remembered"):
            env = {"ZSC_RUNTIME_CACHE_DIR": fresh}
            times[case].append(seconds_to_ready(f"{case[:4]}-{rnd}-{len(times[case])}", env, work, cpus))
        say(f"round {rnd}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in times.items()))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{machine_info()['cpu']}, CPUs {format_cpus(cpus)}; median seconds to /readyz over {a.rounds} rounds:")
    for k, v in med.items():
        print(f"  {k}: {v:.1f} s ({', '.join(f'{x:.1f}' for x in times[k])})")
    print(f"first auto start - pinned = {med['auto, first start'] - med['pinned']:+.1f} s (bar: <= +15 s); "
          f"remembered - pinned = {med['auto, remembered'] - med['pinned']:+.1f} s (bar: <= 0)")  # fmt: skip


if __name__ == "__main__":
    main()
