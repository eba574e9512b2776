"""The load-test report from stored results: knee, peaks, and the markdown of a recorded run."""

from __future__ import annotations

from harness import ROOT
from loadtest.compare.report import knee, markdown, peaks
from loadtest.compare.results import Results

RECORDED = ROOT / "results" / "20261130-002158"


def steps(*pairs):
    return [type("S", (), {"users": u, "pairs_per_s": p, "failure_rate": 0.0})() for u, p in pairs]


def test_knee_is_where_more_users_stop_adding_throughput():
    recorded = steps((64, 98), (1, 10), (4, 40), (16, 95), (32, 100))
    assert knee(recorded) == (16, True)  # 16 -> 32 users added under 20%
    assert knee(steps((1, 10), (4, 40))) == (4, False)  # still rising at the last step
    assert knee([]) is None


def test_a_stored_run_renders_its_recorded_report():
    """results.json is enough to write the report again, identical to the one written after the run."""
    results = Results.load(RECORDED / "results.json")
    assert markdown(results) == (RECORDED / "report.md").read_text()
    best = peaks(results)
    assert best["naive"].pairs_per_s < best["r2-cache-on"].pairs_per_s
    assert all(s.failure_rate < 0.01 for s in best.values())
