"""The capacity plan's arithmetic, checked against a worked example on a recorded load test
(results/20261130-002158: MiniLM on this 2-core machine; docs/capacity.md)."""

from __future__ import annotations

import json
import math

import pytest

from bench.capacity import CapacityError, load_steps, main, operating_point, plan
from harness import ROOT

RECORDED = ROOT / "results" / "20261130-002158"


def test_worked_example_on_the_recorded_run():
    # 1 replica, cache off: users 16 -> 32.84 req/s at p95 470 ms; users 32 -> 39.31 req/s at 1500 ms.
    # 500 ms lies 30/1030 of the way: 32.84 + 30/1030 * (39.31 - 32.84) req/s, median 210 + 30/1030 * 300 ms
    share1 = 30 / 1030
    c1 = 32.84 + share1 * (39.31 - 32.84)
    p50 = 210 + share1 * (510 - 210)
    # 2 replicas: users 32 -> 85.16 req/s at 310 ms; users 64 -> 99.8 at 670 ms: 190/360 of the way
    c2 = 85.16 + 190 / 360 * (99.8 - 85.16)
    efficiency = c2 / (2 * c1)  # 1.41: more than linear, planned as 1.0
    p = plan(RECORDED, rate=400, p95_ms=500, cache=False, min_rate=50)
    assert p.per_replica_rps == pytest.approx(c1) and c1 == pytest.approx(33.03, abs=0.01)
    assert p.efficiency == pytest.approx(efficiency) and p.planned_efficiency == 1.0
    assert p.replicas == math.ceil(400 / c1) == 13 and p.extrapolated
    assert p.hpa_in_flight_per_pod == math.floor(c1 * p50 / 1000) == 7  # Little's law: 33.0/s x 0.219 s
    assert (p.min_replicas, p.max_replicas) == (max(2, math.ceil(50 / c1)), 13) == (2, 13)


def test_requests_with_fewer_labels_scale_by_their_pairs():
    share = 30 / 1030
    measured = 453.7 / 32.84 + share * (488.4 / 39.31 - 453.7 / 32.84)  # pairs per request there: 13.8
    c1 = (32.84 + share * (39.31 - 32.84)) * measured / 6
    p = plan(RECORDED, rate=400, p95_ms=500, labels=6)
    assert p.per_replica_rps == pytest.approx(c1) and p.replicas == math.ceil(400 / c1) == 6


def test_a_step_within_the_target_with_no_crossing_is_taken_as_it_is():
    steps, _ = load_steps(RECORDED, cache=True)
    point = operating_point(steps[1], 1, p95_ms=2000)  # every step within 2 s: the last, 52.89 req/s
    assert point.requests_per_s == 52.89 and not point.interpolated


def test_a_target_no_step_meets_is_an_error_that_says_so():
    with pytest.raises(CapacityError, match="within 50 ms"):
        plan(RECORDED, rate=10, p95_ms=50)


def test_failing_steps_do_not_count_and_the_cli_writes_json(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    targets = [{"key": "r1", "replicas": 1, "cache": False}, {"key": "r3", "replicas": 3, "cache": False}]
    (run / "results.json").write_text(json.dumps({"targets": targets, "model": {"name": "m"}}))
    rows = [
        "target,users,requests,failures,failure_rate,requests_per_s,texts_per_s,pairs_per_s,p50_ms,p95_ms,p99_ms",
        "r1,4,100,0,0,10,10,50,100,200,300",
        "r1,16,100,5,0.05,30,30,150,150,250,400",  # 5 % failures: not capacity
        "r3,4,100,0,0,27,27,135,100,200,300",
    ]
    (run / "summary.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "plan.json"
    assert main([str(run), "--rate", "100", "--p95-ms", "300", "--json", str(out)]) == 0
    cpu = json.loads(out.read_text())["cpu"]
    assert cpu["per_replica_rps"] == 10 and cpu["efficiency"] == pytest.approx(0.9)
    assert cpu["replicas"] == math.ceil(100 / (10 * 0.9)) == 12
    assert cpu["hpa_in_flight_per_pod"] == max(1, math.floor(9 * 0.1)) == 1  # at least one
    assert "replicas needed: ceil(100 / (10.0 x 0.90)) = **12**" in capsys.readouterr().out
