"""nginx in front of real replicas: the shipped config, and a live 3-replica cluster on loopback.

The live tests share one cluster started by the real `python -m harness.cluster up` (the cache's
redis-server, the jobs' append-only one, three `bentoml serve` replicas, nginx) and run in file order: the
last one takes the cluster down.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import redis as redis_client

from harness import ROOT
from harness.cluster import kill_member, member_pids
from harness.launchers import NGINX_READ_TIMEOUT_S, redis_ping, write_nginx_conf
from service.config import Settings
from tests.support.cluster import access_log, attempts, cluster_command, local_cluster

NGINX_DIR = ROOT / "deploy" / "nginx"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

pytestmark = pytest.mark.timeout(300)


def directives(text: str) -> dict[str, list[list[str]]]:
    """{name: [args, ...]} of every simple directive in an nginx config (comments dropped)."""
    out: dict[str, list[list[str]]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line.endswith(";"):
            continue
        words = line.rstrip(";").split()
        out.setdefault(words[0], []).append(words[1:])
    return out


def seconds(value: str) -> float:
    m = re.fullmatch(r"(\d+)(ms|s|m)?", value)
    assert m, value
    return int(m[1]) * {"ms": 0.001, "s": 1, "m": 60, None: 1}[m[2]]


def nginx_t(conf: Path, prefix: Path) -> subprocess.CompletedProcess:
    (prefix / "logs").mkdir(parents=True, exist_ok=True)
    return subprocess.run([NGINX, "-t", "-p", f"{prefix}/", "-c", str(conf)], capture_output=True, text=True)


# -- the shipped config ---------------------------------------------------------------------------------


def test_shipped_config_passes_nginx_t(tmp_path):
    result = nginx_t(NGINX_DIR / "nginx.conf", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr
    assert not re.search(r"\[(warn|emerg|alert)\]", result.stderr), result.stderr


def test_shipped_config_matches_the_service_settings():
    conf = directives((NGINX_DIR / "nginx.conf").read_text())
    upstream = directives((NGINX_DIR / "zsc-upstream.conf").read_text())
    s = Settings()

    # the replica's own 504 (after ZSC_TIMEOUT_S) must reach the client before nginx gives up
    [[read_timeout]] = conf["proxy_read_timeout"]
    assert seconds(read_timeout) > s.timeout_s
    assert seconds(read_timeout) == NGINX_READ_TIMEOUT_S
    [[next_timeout]] = conf["proxy_next_upstream_timeout"]
    assert 0 < seconds(next_timeout) <= seconds(read_timeout), "retries must be bounded in time"

    # retried: connection errors, 502, 503 (load shed), POST included; passed through: 429, 504, 500
    retry_on, jobs_retry_on = conf["proxy_next_upstream"]  # the server's, then the jobs location's
    assert {"error", "timeout", "http_502", "http_503", "non_idempotent"} <= set(retry_on)
    assert not {"http_429", "http_504", "http_500", "off"} & set(retry_on)
    [[tries]] = conf["proxy_next_upstream_tries"]
    assert 2 <= int(tries) <= 5
    assert conf.get("proxy_intercept_errors", [["off"]]) == [["off"]]
    assert conf["proxy_request_buffering"] == [["on"]], "a body must be buffered to be re-sent"

    # the largest legal request fits the body limit; the jobs location takes the largest legal upload
    [[body], [jobs_body]] = conf["client_max_body_size"]
    largest = s.max_batch_items * s.max_text_chars * 4 + s.max_pairs_per_request * s.max_label_chars * 4
    assert int(body.rstrip("m")) * 2**20 > largest
    assert int(body.rstrip("m")) == s.max_body_mb, "nginx refuses what the replica would (413), no more, no less"
    assert int(jobs_body.rstrip("m")) > s.job_max_mb
    jobs_location = (NGINX_DIR / "nginx.conf").read_text().split("location /jobs {", 1)[1].split("}", 1)[0]
    assert "non_idempotent" not in jobs_location and "non_idempotent" not in jobs_retry_on, "a job is created once"

    assert re.search(r"^upstream zsc_backends \{", (NGINX_DIR / "zsc-upstream.conf").read_text(), re.M)
    assert ["http://zsc_backends"] in conf["proxy_pass"]
    assert "least_conn" in upstream and "zone" in upstream and "keepalive" in upstream
    assert all(any(p.startswith("max_fails=") for p in args) for args in upstream["server"])
    # keepalive connections are dropped by nginx before uvicorn's 5 s idle timeout closes them
    [[keepalive_timeout]] = upstream["keepalive_timeout"]
    assert seconds(keepalive_timeout) < 5

    # slow clients: nginx gives up on a head and an unread answer when a replica would, and cuts a body that
    # stops arriving no later than a replica would cut it whole (nginx times the gap between two reads)
    [[header_timeout]] = conf["client_header_timeout"]
    assert seconds(header_timeout) == s.head_timeout_s
    [[send_timeout]] = conf["send_timeout"]
    assert seconds(send_timeout) == s.send_timeout_s
    body_timeout, _jobs_body_timeout = conf["client_body_timeout"]
    assert seconds(body_timeout[0]) <= s.body_timeout_s
    assert conf["reset_timedout_connection"] == [["on"]]
    [[connections]] = conf["worker_connections"]
    assert int(connections) >= 4 * s.max_pending_connections, "room for thousands of slow clients"

    log_format = (NGINX_DIR / "nginx.conf").read_text().split("log_format", 1)[1].split(";", 1)[0]
    for field in ("$upstream_addr", "$upstream_status", "$upstream_response_time", "$request_time", "$status"):
        assert field in log_format


def test_cluster_upstream_keeps_the_shipped_parameters(tmp_path):
    conf = write_nginx_conf(tmp_path / "nginx", 18080, [13001, 13002, 13003], [4, 1, 1])
    assert conf.read_text() == (NGINX_DIR / "nginx.conf").read_text()
    upstream = directives((conf.parent / "zsc-upstream.conf").read_text())
    assert upstream["server"] == [
        ["127.0.0.1:13001", "weight=4", "max_fails=3", "fail_timeout=5s"],
        ["127.0.0.1:13002", "max_fails=3", "fail_timeout=5s"],
        ["127.0.0.1:13003", "max_fails=3", "fail_timeout=5s"],
    ]
    shipped = directives((NGINX_DIR / "zsc-upstream.conf").read_text())
    assert {k: v for k, v in upstream.items() if k != "server"} == {k: v for k, v in shipped.items() if k != "server"}
    result = nginx_t(conf, tmp_path / "nginx")
    assert result.returncode == 0, result.stderr


# -- a live cluster -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(store_env, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("cluster")
    with local_cluster(run_dir, store_env, replicas=3) as state:
        yield state


def body(i: int) -> dict:
    topics = ["sports", "business", "technology", "politics", "health", "travel"]
    text = f"The striker scored twice and the team won the cup after extra time, match report number {i}. " * 3
    return {"text": text, "labels": topics, "multi_label": i % 3 == 0}


def stream_entries(cluster: dict, total: int) -> list[dict]:
    """The access log's lines for the stream's requests (tagged X-Request-ID: stream-N), once all are flushed."""
    deadline = time.monotonic() + 10
    while True:
        entries = [e for e in access_log(cluster, settle=0) if e["request_id"].startswith("stream-")]
        if len(entries) >= total or time.monotonic() > deadline:
            return entries
        time.sleep(0.3)


def test_cluster_wiring(cluster):
    url = cluster["nginx"]["url"]
    assert httpx.get(f"{url}/nginx/health", timeout=5).status_code == 200
    r = httpx.post(f"{url}/classify", json=body(0), headers={"X-Request-ID": "abc-123"}, timeout=60)
    assert r.status_code == 200, r.text
    assert r.json()["labels"][0] == "sports"
    assert r.headers["x-request-id"] == "abc-123"

    redis_url, jobs_redis_url = cluster["redis"]["url"], cluster["jobs_redis"]["url"]
    assert redis_ping(cluster["redis"]["port"]) and redis_ping(cluster["jobs_redis"]["port"])
    # the cache's Redis is volatile, the jobs' appends every write to its own directory
    cache, jobs = (redis_client.Redis(port=cluster[m]["port"], decode_responses=True) for m in ("redis", "jobs_redis"))
    assert cache.config_get("appendonly") == {"appendonly": "no"}
    assert jobs.config_get("appendonly") == {"appendonly": "yes"}
    assert jobs.config_get("dir")["dir"] == str(Path(cluster["run_dir"]) / "jobs-redis" / "data")
    assert jobs.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
    homes = set()
    for replica in cluster["replicas"]:
        environ = Path(f"/proc/{replica['pid']}/environ").read_bytes().split(b"\0")
        assert f"ZSC_REDIS_URL={redis_url}".encode() in environ
        assert f"ZSC_JOBS_REDIS_URL={jobs_redis_url}".encode() in environ
        homes.add(next(v for v in environ if v.startswith(b"BENTOML_HOME=")))
        assert (Path(cluster["run_dir"]) / replica["name"] / "replica.pid").read_text().strip() == str(replica["pid"])
    assert len(homes) == 3, "each replica needs its own BENTOML_HOME (its Prometheus directory is wiped at start)"


def test_errors_pass_through_unchanged(cluster):
    bad = {"text": "", "labels": ["a", "a"]}
    via_nginx = httpx.post(f"{cluster['nginx']['url']}/classify", json=bad, timeout=30)
    direct = httpx.post(f"{cluster['replicas'][0]['url']}/classify", json=bad, timeout=30)
    assert via_nginx.status_code == direct.status_code == 400
    assert via_nginx.json() == direct.json()


def test_requests_spread_and_a_killed_replica_costs_no_request(cluster):
    """A steady stream through nginx; replica-2 is SIGKILLed (every process of it) a third of the way in."""
    url = cluster["nginx"]["url"]
    total, kill_after, concurrency = 240, 80, 6
    victim = cluster["replicas"][1]
    victim_addr = f"127.0.0.1:{victim['port']}"
    lock = threading.Lock()
    done = [0]
    killed: dict[str, object] = {}
    results: list[tuple[int, int, str]] = []

    def send(i: int) -> None:
        try:
            with httpx.Client(timeout=90) as client:
                r = client.post(f"{url}/classify", json=body(i), headers={"X-Request-ID": f"stream-{i}"})
            outcome = (i, r.status_code, r.text[:200])
        except httpx.HTTPError as e:  # a client-visible failure too
            outcome = (i, -1, repr(e))
        with lock:
            results.append(outcome)
            done[0] += 1
            if done[0] == kill_after:
                killed["at"] = time.time()
                killed["pids"] = kill_member(Path(cluster["run_dir"]), victim["name"])

    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(send, range(total)))

    assert killed["pids"], "nothing was killed"
    assert not member_pids(Path(cluster["run_dir"]), victim["name"]), "the victim survived"
    failures = [r for r in results if r[1] != 200]
    assert not failures, f"{len(failures)} client-visible failures, e.g. {failures[:3]}"
    assert len(results) == total

    entries = stream_entries(cluster, total)
    assert sorted(int(e["request_id"].removeprefix("stream-")) for e in entries) == list(range(total))
    assert all(e["status"] == 200 for e in entries)
    kill_at = killed["at"]
    served_by = lambda e: attempts(e)[-1][0]  # noqa: E731

    # before the kill: all three replicas took a fair share (least_conn over equal replicas)
    before = Counter(served_by(e) for e in entries if e["msec"] < kill_at)
    assert len(before) == 3 and min(before.values()) >= 0.15 * sum(before.values()), before

    # after: requests that went to the dead replica were retried on a live one, in the same request
    retried = [e for e in entries if len(attempts(e)) > 1]
    assert any(attempts(e)[0][0] == victim_addr and served_by(e) != victim_addr for e in retried), retried
    late = [e for e in entries if e["msec"] > kill_at + 1.0]
    assert late, "the stream ended right at the kill: nothing shows the survivors took over"
    assert victim_addr not in {served_by(e) for e in late}
    assert len({served_by(e) for e in late}) == 2


def long_batch(items: int = 16) -> dict:
    """A /classify_batch call of distinct long texts: seconds of work for one replica on any CPU."""
    words = "the market rallied after the central bank held rates while the striker scored twice in the final"
    labels = ["sports", "finance", "politics"]
    return {"items": [{"text": f"{words} {i} " * 25, "labels": labels} for i in range(items)]}


def in_progress(replica: dict, endpoint: str) -> float:
    """Requests to ``endpoint`` the replica's BentoML counts in progress (its /metrics gauge)."""
    text = httpx.get(f"{replica['url']}/metrics", timeout=10).text
    pattern = rf'^bentoml_service_request_in_progress\{{[^}}]*endpoint="{re.escape(endpoint)}"[^}}]*\}} ([0-9.e+]+)$'
    return sum(float(v) for v in re.findall(pattern, text, re.M))


def test_sigterm_to_a_replica_under_a_steady_stream_costs_no_request(cluster):
    """A rolling update's view: replica-3 gets SIGTERM (what Kubernetes sends) while a stream runs through nginx
    and while it holds a long call of its own. That call finishes; meanwhile the replica answers new requests
    503 `shutting_down` (nginx sends them to another replica at once) and /readyz 503, then exits: no request
    waits on a replica going away."""
    url = cluster["nginx"]["url"]
    total, stop_after, concurrency = 120, 40, 6
    victim = cluster["replicas"][2]
    done = [0]
    results: list[tuple[int, int, str]] = []
    lock = threading.Lock()

    def send(i: int) -> None:
        try:
            with httpx.Client(timeout=90) as client:
                r = client.post(f"{url}/classify", json=body(10_000 + i), headers={"X-Request-ID": f"term-{i}"})
            outcome = (i, r.status_code, r.text[:200])
        except httpx.HTTPError as e:
            outcome = (i, -1, repr(e))
        with lock:
            results.append(outcome)
            done[0] += 1

    def held_call() -> httpx.Response:
        return httpx.post(f"{victim['url']}/classify_batch", json=long_batch(), timeout=120)

    with ThreadPoolExecutor(concurrency) as pool, ThreadPoolExecutor(1) as own:
        stream = [pool.submit(send, i) for i in range(total)]
        deadline = time.monotonic() + 120
        while done[0] < stop_after and time.monotonic() < deadline:
            time.sleep(0.05)
        held = own.submit(held_call)
        # the long call is in before the signal (only it uses /classify_batch: the stream's calls are /classify);
        # BentoML counts it once its head is read, the edge admits it once its body is: two reads more
        seen = 0
        while seen < 3 and not held.done() and time.monotonic() < deadline:
            seen = seen + 1 if in_progress(victim, "/classify_batch") >= 1 else 0
        os.kill(victim["pid"], signal.SIGTERM)
        refused = ready = None
        while not held.done() and (refused is None or ready is None) and time.monotonic() < deadline:
            if refused is None:
                r = httpx.post(f"{victim['url']}/classify", json=body(1), timeout=30)
                refused = r if r.status_code == 503 else None
            if ready is None:
                r = httpx.get(f"{victim['url']}/readyz", timeout=30)
                ready = r if r.status_code == 503 else None
        assert held.result().status_code == 200, held.result().text[:300]
        for future in stream:
            future.result()

    assert refused is not None and ready is not None, "no refusal seen while the replica drained its long call"
    assert refused.json()["error_type"] == "shutting_down", refused.text
    assert "another replica" in refused.json()["error"] and refused.headers["Retry-After"] == "1"
    failures = [r for r in results if r[1] != 200]
    assert not failures, f"{len(failures)} client-visible failures, e.g. {failures[:3]}"
    deadline = time.monotonic() + 30
    while member_pids(Path(cluster["run_dir"]), victim["name"]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not member_pids(Path(cluster["run_dir"]), victim["name"]), "the replica did not stop on SIGTERM"
    log = (Path(cluster["run_dir"]) / victim["name"] / "replica.log").read_text()
    assert "SIGTERM: refusing new requests, finishing" in log


def test_no_replica_left_answers_json_502_then_down_stops_everything(cluster):
    run_dir = Path(cluster["run_dir"])
    for replica in cluster["replicas"]:
        kill_member(run_dir, replica["name"])
    r = httpx.post(f"{cluster['nginx']['url']}/classify", json=body(1), timeout=30)
    assert r.status_code == 502
    assert r.json()["error_type"] == "upstream_unavailable"

    assert member_pids(run_dir), "nginx and redis should still be running"
    result = cluster_command(run_dir, ["down"], {}, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not member_pids(run_dir)
    assert not list(run_dir.glob("*/*.pid"))
    for port in (cluster["nginx"]["port"], cluster["redis"]["port"], cluster["jobs_redis"]["port"]):
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
    assert Path(cluster["nginx"]["access_log"]).stat().st_size > 0, "logs are kept"
