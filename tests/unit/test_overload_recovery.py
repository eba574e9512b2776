"""How `make overload` reads a recovery (loadtest/overload.py): the first second from which on every request
is a 200 and their p99 is within the bound; a lone slow request late in the window does not undo it, a
backlog or a refusal does; each second's connections and the worst window."""

from __future__ import annotations

from loadtest.overload import Phase, Sent, per_second, recovery_s, worst_window


def calm(seconds: int, per_s: int = 50, latency_s: float = 0.01, start: float = 0.0) -> list[Sent]:
    return [Sent(start + i / per_s, "200", latency_s) for i in range(seconds * per_s)]


def test_a_calm_window_has_recovered_at_once():
    assert recovery_s(calm(20), slow_ms=30) == 0.0


def test_a_backlog_draining_for_three_seconds_is_three_seconds():
    draining = [Sent(i / 50, "200", 0.5 - i / 300) for i in range(150)]  # slow for the first 3 s
    assert recovery_s(draining + calm(17, start=3.0), slow_ms=30) == 3.0


def test_a_refusal_counts_as_not_recovered():
    assert recovery_s([Sent(0.5, "429", 0.001), *calm(20, start=1.0)], slow_ms=30) == 1.0


def test_one_slow_request_late_in_the_window_does_not_undo_a_recovery():
    window = calm(20)
    window[900] = Sent(window[900].at, "200", 0.25)  # a collection or a scrape at 18 s: one of 1,000
    assert recovery_s(window, slow_ms=30) == 0.0


def test_each_second_counts_the_connections_the_client_opened_and_the_worst_window_is_judged_on_the_overload():
    sent = [Sent(0.1, "200", 1.2), Sent(0.2, "429", 0.01), Sent(1.5, "200", 0.3), Sent(3.5, "200", 0.05)]
    windows = per_second(Phase(sent, opened=[0.01, 0.02, 1.1]), offset=0)
    assert [(w["t"], w["connections_opened"]) for w in windows] == [(0, 2), (1, 1), (3, 0)]
    run = {"target_latency_ms": None, "timeline": windows}
    assert worst_window(run, overload_s=3) == "1200 (1)"  # 1.2 s is over 2 x the CPU default of 500 ms
    assert worst_window(run, overload_s=1) == "1200 (1)"
    assert worst_window({**run, "target_latency_ms": 800}, overload_s=3) == "1200 (0)"
