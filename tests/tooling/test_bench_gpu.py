"""The GPU benchmark's pure parts: reading nvidia-smi's samples, the headline's arithmetic, wheel pins."""

from __future__ import annotations

import re
from datetime import datetime

from bench.gpu import GOAL_PAIRS_PER_S, gpu_summary, headline
from harness import ROOT


def test_gpu_samples_after_the_step_start_are_summarised(tmp_path):
    log = tmp_path / "gpu.csv"
    t0 = datetime(2026, 11, 30, 12, 0, 0)
    lines = [
        f"{t0.replace(second=s):%Y/%m/%d %H:%M:%S}.000, {u}, {m}"
        for s, u, m in ((1, 10, 900), (5, 80, 5000), (6, 90, 5200))
    ]
    log.write_text("\n".join([*lines, "garbage", "", "2026/11/30 12:00:07.000, [N/A], 1"]) + "\n")
    summary = gpu_summary(log, t0.replace(second=4).timestamp())
    assert summary == {"gpu_util_pct": 85.0, "gpu_mem_mib": 5200.0}
    assert gpu_summary(tmp_path / "missing.csv", 0) == {"gpu_util_pct": None, "gpu_mem_mib": None}


def step(pairs, p99, failures=0, workers=1):
    return {"pairs_per_s": pairs, "p99_ms": p99, "failures": failures, "workers": workers}


def test_headline_takes_the_best_step_within_the_latency_bound():
    results = {
        "service": [step(30_000, 1500), step(21_000, 800, workers=4), step(25_000, 700, failures=3), step(9_000, 90)],
        "naive": [{"pairs_per_s": 130}, {"pairs_per_s": 120}],
        "ceiling": {"pairs_per_s": 35_000},
    }
    h = headline(results)
    assert h["best"]["workers"] == 4
    assert h["share_of_ceiling"] == 21_000 / 35_000 and h["times_naive"] == 21_000 / 130
    assert h["goal_met"] and GOAL_PAIRS_PER_S == 20_000
    assert not headline({"service": [step(9_000, 90)], "naive": [], "ceiling": {}})["goal_met"]
    assert headline({})["best"] is None


def test_gpu_wheels_are_pinned_once_each():
    names = []
    for line in (ROOT / "requirements" / "gpu-bench.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.]+", line), line
            names.append(re.sub(r"[-_.]+", "-", line.split("==")[0]).lower())
    assert len(names) == len(set(names))
    assert {"bentoml", "transformers", "tokenizers", "pydantic", "uvicorn", "starlette"} <= set(names)


def test_refusals_are_not_throughput():
    from loadtest.loadgen import LoadResult

    fields = {f: 0 for f in LoadResult.__dataclass_fields__}
    r = LoadResult(**{**fields, "requests": 21_087, "failures": 20_265, "duration_s": 5.0, "statuses": {}})
    assert r.answered_per_s == (21_087 - 20_265) / 5.0


def test_a_part_that_fails_is_recorded_and_the_next_runs():
    from bench.gpu import part

    results: dict = {"errors": {}}
    with part(results, "naive", "naive pipeline"):
        raise RuntimeError("no CUDA kernel image")
    with part(results, "ceiling", "ceiling"):
        results["ceiling"] = {"pairs_per_s": 1.0}
    assert results["errors"] == {"naive": "RuntimeError: no CUDA kernel image"} and results["ceiling"]
