"""Slow and idle clients cannot shut a replica (issue 31), against a real `bentoml serve` and through the
shipped nginx in front of it: 300 connections trickling bodies, 300 sending their heads a byte at a time and
300 idle keep-alive connections for 20 s, beside an ordinary client (``loadtest/slow_clients.py``).

The ordinary client's requests are answered (>= 99% 200s, p99 within 2x of its own p99 without the attack,
before and after it), the
learned in-flight limit is not lowered (nothing slow was ever admitted), and every slow connection gets 408
or is closed by a timeout. Directly, the replica's own timeouts do it (the head's, the body's, keep-alive);
through nginx, nginx's: the head and keep-alive timeouts while the attack goes on, and the body's
between-reads timeout once the trickle stops (nginx 1.22 has no minimum rate: a trickle is held by nginx,
never by a replica, for as long as it trickles)."""

from __future__ import annotations

import asyncio

import pytest

from harness.launchers import nginx, write_nginx_conf
from harness.net import free_port
from harness.process import running
from loadtest.slow_clients import attack

pytestmark = pytest.mark.quiet  # p99 against its own: nothing else of the suite runs meanwhile

SLOW = {"bodies": 300, "heads": 300, "idle": 300}


def run_attack(url: str, metrics_url: str, settle_s: float) -> dict:
    return asyncio.run(
        attack(url, **SLOW, attack_s=20, baseline_s=10, every_s=0.05, interval_s=3, settle_s=settle_s,
               metrics_url=metrics_url)
    )  # fmt: skip


def check(result: dict, closers: dict[str, set[str]]) -> None:
    during, without = result["during"], result["without"]
    assert without["share_200"] == 1.0, without
    assert during["share_200"] >= 0.99, during
    assert result["p99_ratio"] is not None and result["p99_ratio"] <= 2.0, (without, during)
    assert result["in_flight_limit_after"] == result["in_flight_limit_before"], result
    for kind, count in SLOW.items():
        endings = result["endings"][kind]
        assert sum(endings.values()) == count and set(endings) <= closers[kind], (kind, endings)


@pytest.fixture(scope="module")
def front(default_server, tmp_path_factory):
    """The shipped nginx.conf, unchanged, in front of the session's default replica."""
    port = free_port()
    replica_port = int(default_server.rsplit(":", 1)[1])
    conf = write_nginx_conf(tmp_path_factory.mktemp("nginx"), port, [replica_port], [1])
    with running(nginx("nginx", conf, port), 30) as member:
        yield member.url


def test_a_replica_under_slow_clients_answers_everyone_else(default_server):
    result = run_attack(default_server, default_server, settle_s=10)
    check(result, {"bodies": {"408"}, "heads": {"408"}, "idle": {"closed"}})
    # each by its own timeout: heads ZSC_HEAD_TIMEOUT_S (10 s), bodies ZSC_BODY_TIMEOUT_S (15 s), idle 5 s
    held = result["longest_held_s"]
    assert held["heads"] < 13 and held["bodies"] < 19 and held["idle"] < 8, held


def test_the_same_attack_through_the_shipped_nginx(front, default_server):
    result = run_attack(front, default_server, settle_s=15)
    check(result, {"bodies": {"408", "closed"}, "heads": {"408", "closed"}, "idle": {"closed"}})
    held = result["longest_held_s"]
    assert held["heads"] < 13 and held["idle"] < 18, held  # client_header_timeout 10 s, keepalive_timeout 15 s
    assert held["bodies"] < 20 + 13, held  # client_body_timeout 10 s after the trickle stopped at 20 s
