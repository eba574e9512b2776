"""`python -m bench.accuracy` (docs/evaluation.md's numbers) end to end on the shipped English sample:
a real replica, `zsc evaluate` and `zsc tune` as subprocesses, the summary agreeing with their reports."""

from __future__ import annotations

import json
import os
import sys

from harness import ROOT
from harness.process import run_command


def test_accuracy_tool_on_the_shipped_sample(store_env, tmp_path):
    out = tmp_path / "acc"
    cmd = [sys.executable, "-m", "bench.accuracy", "--model", "multilingual-e5-small", "--cases", "en-support",
           "--out", str(out)]  # fmt: skip
    result = run_command(cmd, {**os.environ, **store_env}, timeout=600, check=False, cwd=ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = {r["case"]: r for r in json.loads((out / "summary.json").read_text())}
    assert set(summary) == {"en-support", "en-support-template", "tune-en-support"}
    for case in ("en-support", "en-support-template"):
        report = json.loads((out / "multilingual-e5-small" / case / "report.json").read_text())
        assert summary[case]["metrics"]["accuracy"] == report["metrics"]["accuracy"]
        assert report["metrics"]["items"] == 32 and summary[case]["command"].startswith("zsc evaluate loadtest/")
    assert summary["en-support-template"]["template"] == "The customer writes about {}."
    tuned = json.loads((out / "multilingual-e5-small" / "tune-en-support" / "ranking.json").read_text())
    assert summary["tune-en-support"]["best"] == tuned["best"]
    md = (out / "summary.md").read_text()
    assert f"| {tuned['best']['held_out']['macro_f1']:.3f} |" in md
    assert (out / "accuracy.png").stat().st_size > 5_000
