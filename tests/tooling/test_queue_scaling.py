"""Jobs replicas on their queue: KEDA's rule (pure), then `python -m loadtest.queue_scaling --smoke` end to end
(a real append-only redis-server, an api replica and jobs replicas of tiny-hf started and stopped on the
consumer group's lag), a jobs replica SIGKILLed mid-chunk."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from loadtest.keda_rule import KedaRule
from tests.support.server import ROOT


def test_keda_rule_scales_from_zero_on_lag_and_back_after_the_cooldown():
    rule = KedaRule(lag_count=10, activation_lag_count=2, max_replicas=4, cooldown_s=30)
    assert rule.desired(0, lag=2, pending=0, current=0) == 0  # at the activation value: stays at zero
    assert rule.desired(1, lag=3, pending=0, current=0) == 1  # above it: woken, at least one
    assert rule.desired(2, lag=35, pending=0, current=1) == 4  # ceil(35 / 10)
    assert rule.desired(3, lag=500, pending=0, current=4) == 4  # at most maxReplicaCount
    assert rule.desired(4, lag=0, pending=3, current=4) == 3  # chunks at work keep their replicas
    assert rule.desired(5, lag=0, pending=0, current=3) == 1  # inactive, within the cooldown: the HPA's floor
    assert rule.desired(33, lag=0, pending=0, current=1) == 1
    assert rule.desired(34, lag=0, pending=0, current=1) == 0  # inactive 30 s since the last chunk: to zero


def test_keda_rule_scale_down_waits_out_the_window():
    rule = KedaRule(lag_count=10, max_replicas=5, cooldown_s=300, scale_down_window_s=10)
    assert rule.desired(0, lag=50, pending=0, current=0) == 5
    assert rule.desired(5, lag=10, pending=0, current=5) == 5  # the window still holds the 5
    assert rule.desired(11, lag=10, pending=0, current=5) == 1
    assert rule.desired(12, lag=40, pending=0, current=1) == 4  # up at once


def run_smoke(env: dict[str, str], out, *extra: str) -> dict:
    cmd = [sys.executable, "-m", "loadtest.queue_scaling", "--smoke", "--model", "tiny-hf", "--runtime", "torch"]
    result = subprocess.run(
        [*cmd, "--out", str(out), *extra], cwd=ROOT, env=env, capture_output=True, text=True, timeout=400
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    line = json.loads(result.stdout.strip().splitlines()[-1])  # the JSON line is last
    samples = json.loads((out / "queue-scaling.json").read_text())["samples"]
    assert (out / "queue-scaling.png").stat().st_size > 10_000
    return {**line, "workers": [s["workers"] for s in samples]}


@pytest.mark.timeout(420)
def test_queue_scaling_smoke_answers_every_item_once_from_zero_to_zero_through_a_kill(tiny_models, tmp_path):
    """One run covers both: the replicas drain the queue to zero, and the one SIGKILLed mid-chunk loses
    nothing (its chunk is claimed by another after the visibility timeout)."""
    import os

    got = run_smoke({**os.environ, **tiny_models}, tmp_path, "--kill")
    assert got["jobs"] == 2 and got["items"] == 3000
    # every item answered exactly once, as /classify_batch answers it
    assert (got["lost"], got["duplicated"], got["different"], got["compared"]) == (0, 0, 0, 3000)
    # from no jobs replica to at least two that took chunks, and back to none
    assert got["workers"][0] == 0 and got["max_workers"] >= 2 and got["final_workers"] == got["workers"][-1] == 0
    assert got["consumers"] >= 2 and got["api_consumed"] is False
    assert 0 < got["drain_s"] < 100
    assert got["killed"] and got["reclaimed_s"] is not None and got["reclaimed_s"] > 0
