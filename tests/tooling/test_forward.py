"""`python -m bench.forward` end to end on the stored default model: every candidate measured each round,
the ratios against the first, the report naming the CPU's flags."""

from __future__ import annotations

import json
import os
import sys

from harness import ROOT
from harness.process import run_command


def test_forward_pass_alone_per_candidate(store_env, tmp_path):
    out = tmp_path / "forward"
    cmd = [sys.executable, "-m", "bench.forward", "--candidates", "onnx-fp32,openvino-fp32", "--texts", "64",
           "--rounds", "2", "--out", str(out)]  # fmt: skip
    result = run_command(cmd, {**os.environ, **store_env}, timeout=600, check=False, cwd=ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    r = json.loads((out / "forward.json").read_text())
    assert set(r["texts_per_s"]) == {"onnx-fp32", "openvino-fp32"}
    assert all(len(v) == 2 and min(v) > 0 for v in r["texts_per_s"].values())
    assert r["ratio_to_first"]["onnx-fp32"] == 1.0
    md = (out / "forward.md").read_text()
    assert "| openvino-fp32 |" in md and "flags of note" in md
