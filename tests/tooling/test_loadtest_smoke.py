"""The load-test pipeline end to end: `python -m loadtest.compare --smoke` against the naive baseline, one
replica and two replicas behind nginx (real processes), then the report it writes. No timing asserts:
the numbers depend on the machine; what must hold is that every target answered and was reported.

Also: Locust's users count a 200 whose body is not a well-formed answer as a failure.
Locust is only ever run as a subprocess here: importing it would monkey-patch the test process with gevent.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.server import BIN, ROOT

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(importlib.util.find_spec("locust") is None, reason="locust not installed (dev extra)"),
]


@pytest.fixture(scope="module")
def smoke_run(store_env, tmp_path_factory):
    out = tmp_path_factory.mktemp("loadtest") / "smoke"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "loadtest.compare",
            "--smoke",
            "--step-s",
            "5",
            "--out",
            str(out),
        ],  # `make loadtest-smoke`, 5 s steps
        cwd=ROOT,
        env={**os.environ, **store_env, "PYTHONUNBUFFERED": "1"},
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert result.returncode == 0, f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return out, json.loads((out / "results.json").read_text())


def test_smoke_run_writes_the_report_and_charts(smoke_run):
    out, _ = smoke_run
    for name in ("report.md", "throughput.png", "latency.png", "summary.csv", "results.json"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    report = (out / "report.md").read_text()
    for heading in ("## Headline", "## Every step", "## Where everything ran", "## What this machine can"):
        assert heading in report
    assert "![throughput](throughput.png)" in report and "![latency](latency.png)" in report
    assert "failures" in report and "p50 / p95 / p99 ms" in report


def test_every_target_answered_with_its_failure_rate_reported(smoke_run):
    out, results = smoke_run
    keys = [t["key"] for t in results["targets"]]
    assert keys == ["naive", "r1-cache-on", "r2-cache-on"]
    assert not [t for t in results["targets"] if t.get("error")]
    for key in keys:
        [step] = [s for s in results["steps"] if s["target"] == key]
        assert step["requests"] > 0 and step["requests_per_s"] > 0 and step["pairs_per_s"] > 0, step
        assert 0 <= step["failure_rate"] <= 1
        assert step["p50_ms"] is not None and step["p95_ms"] is not None
        assert (out / "csv" / key / "u2_stats.csv").is_file()
    with (out / "summary.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["target"] for r in rows] == keys
    assert all(r["failure_rate"] != "" for r in rows)


def test_service_targets_go_through_their_endpoints(smoke_run):
    _, results = smoke_run
    by_key = {t["key"]: t for t in results["targets"]}
    assert [m["name"] for m in by_key["r1-cache-on"]["members"]] == ["replica-1"]
    assert [m["name"] for m in by_key["r2-cache-on"]["members"]] == ["replica-1", "replica-2"]
    for member in (m for t in by_key.values() for m in t["members"]):
        # pinned by cluster.py --cpus (or taskset for the naive server), and the worker really runs there
        assert member["cpus"] and member["threads"] == len(member["cpus"]), member
        assert member["affinity"] == member["cpus"], member
    naive = next(s for s in results["steps"] if s["target"] == "naive")
    assert set(naive["endpoints"]) == {"/classify"}  # the naive server has no /classify_batch
    for key in ("r1-cache-on", "r2-cache-on"):
        step = next(s for s in results["steps"] if s["target"] == key)
        assert set(step["x_cache"]) <= {"hit", "partial", "miss"}, step["x_cache"]


def test_a_200_with_garbage_counts_as_a_failure(tmp_path):
    class Garbage(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("content-length", 0)))
            body = b'{"labels": ["nope"], "scores": [0.5]}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Garbage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cmd = [str(BIN / "locust"), "-f", str(ROOT / "loadtest" / "locustfile.py"), "--headless", "-u", "2", "-r", "2"]
        cmd += ["--run-time", "3s", "--host", f"http://127.0.0.1:{server.server_port}", "--csv", str(tmp_path / "g")]
        cmd += ["--only-summary", "--exit-code-on-error", "0", "--zsc-think", "0-0.05"]
        cmd += ["--zsc-stats-out", str(tmp_path / "g.json")]
        result = subprocess.run(
            cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60
        )
    finally:
        server.shutdown()
    assert result.returncode == 0, result.stderr[-3000:]
    totals = json.loads((tmp_path / "g.json").read_text())
    assert totals["requests"] > 0 and totals["failures"] == totals["requests"], totals
    assert "pairs" not in totals  # nothing counted as answered
    failures = (tmp_path / "g_failures.csv").read_text()
    assert "labels" in failures or "results" in failures
