"""The benchmark harness end to end in its short form: it runs, and every number it reports is sane.
No timing is asserted: speed is measured by `make bench`, not tested."""

from __future__ import annotations

import json
import math
import subprocess
import sys

from tests.support.server import ROOT


def test_bench_smoke_produces_table_chart_and_sane_numbers(tmp_path):
    out = tmp_path / "bench"
    result = subprocess.run(
        # `make bench-smoke` on the NLI model only: its pair path, the two runtimes `auto` chooses between on
        # a CPU, the naive baseline and the cache benchmark (the embedding path is what most other tests
        # serve; torch is the NLI parity tests' reference)
        [
            sys.executable,
            "-m",
            "bench.suite",
            "--smoke",
            "--models",
            "minilm-nli",
            "--runtimes",
            "onnx-fp32,openvino-fp32",
            "--out",
            str(out),
            "--work",
            str(tmp_path / "work"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    results = json.loads((out / "bench.json").read_text())
    assert (out / "bench.png").stat().st_size > 10_000
    table = (out / "bench.md").read_text()
    assert "| minilm-nli | onnx-fp32 |" in table and "| minilm-nli | openvino-fp32 |" in table
    assert "fully cached /classify" in table and "CPU flags of note:" in table

    for name, entry in results["models"].items():
        for runtime, r in entry["runtimes"].items():
            assert r["ceiling"]["sequences_per_s"] > 0 and r["engine"]["sequences_per_s"] > 0, (name, runtime)
            for level in r["service"]:
                assert level["requests"] > 0 and level["failures"] == 0, (name, runtime, level)
                assert all(math.isfinite(level[k]) for k in ("p50_ms", "p95_ms", "p99_ms"))
        assert all(s["requests"] > 0 for s in entry["naive"])
    cache = results["cache"]
    assert cache["cached"]["requests"] > 0 and cache["cached"]["failures"] == 0
    assert cache["zipf_cache_on"]["hit_rate"] > 0
