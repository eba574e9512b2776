"""`make bench-gpu`'s CPU dry run (ZSC_DEVICE=cpu, tiny sizes): the script the GPU machine runs, end to end,
with real `bentoml serve` workers, the naive pipeline and the report. No timing is asserted."""

from __future__ import annotations

import json
import math
import os

from harness import ROOT
from harness.process import run_command


def test_gpu_benchmark_dry_run_on_cpu(tmp_path):
    out = tmp_path / "gpu"
    env = {**os.environ, "ZSC_DEVICE": "cpu"}
    cmd = ["build/bench-gpu.sh", "--out", str(out), "--work", str(tmp_path / "work"), "--step-s", "2"]
    result = run_command(cmd, env, timeout=600, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    results = json.loads((out / "bench-gpu.json").read_text())
    report = (out / "bench-gpu.md").read_text()
    for heading in ("## Headline", "## Parity", "## Ceiling", "## Service", "## Naive"):
        assert heading in report, heading

    assert results["parity"]["tiny"]["top1_agreement"] == 1.0  # fp32 on the CPU both ways in the dry run
    assert results["ceiling"]["pairs_per_s"] > 0 and set(results["ceiling"]["by_batch"]) >= {"planned"}
    steps = results["service"]
    assert {s["workers"] for s in steps} == {1, 2}
    assert {s["endpoint"] for s in steps} == {"/classify", "/classify_batch"}
    for s in steps:
        assert s["requests"] > 0 and s["failures"] == 0, s
        assert s["pairs_per_s"] > 0 and all(math.isfinite(s[k]) for k in ("p50_ms", "p95_ms", "p99_ms"))
        assert s["gpu_util_pct"] is None  # no nvidia-smi on a CPU run
    assert results["naive"] and results["naive"][0]["failures"] == 0
    assert not results["skipped"]
    assert (ROOT / "build" / "gpu-wheels.sh").is_file()
