"""The cluster-wide interactive signal's decisions (jobs/activity.py), on an injected clock: when a process
calls Redis at all, what the worker is told, how long a view counts, and the fall-back to the replica's own
signal when the jobs Redis does not answer. (Against a real redis-server and real replicas:
tests/integration/test_jobs_activity.py.)"""

from __future__ import annotations

import asyncio
import logging

from service.jobs.activity import ActivityView, ClusterActivity, local_only


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def view(local: list[bool]) -> tuple[ActivityView, Clock]:
    clock = Clock()
    return ActivityView(lambda: local[0], clock, stale_s=0.5, want_s=1.0, retry_s=1.0), clock


def test_an_idle_process_running_no_job_makes_no_redis_call():
    v, clock = view([False])
    for _ in range(20):
        assert v.plan() is None
        clock.now += 0.1


def test_a_busy_process_marks_itself_and_yields_to_itself_first():
    local = [True]
    v, _ = view(local)
    assert v.plan() is True  # mark (and read)
    v.seen(others=2)
    assert v.busy() == "replica"  # its own calls come first, whatever the others do
    local[0] = False
    assert v.busy() == "cluster"


def test_a_process_running_a_job_reads_while_its_worker_asks():
    v, clock = view([False])
    assert v.busy() is None  # the worker's first question: nothing known yet
    assert v.plan() is False  # so the next tick reads (without marking)
    clock.now += 0.9
    assert v.plan() is False
    clock.now += 0.2  # the worker stopped asking a second ago (its job is done): no more reads
    assert v.plan() is None


def test_another_replicas_activity_counts_while_the_view_is_fresh():
    v, clock = view([False])
    v.busy()
    v.seen(others=1)
    clock.now += 0.4
    assert v.busy() == "cluster"
    v.seen(others=0)  # the other replica went quiet: at once
    assert v.busy() is None
    v.seen(others=1)
    clock.now += 0.6  # no read since (Redis slow): a view this old counts for nothing
    assert v.busy() is None


def test_a_failed_call_drops_the_view_and_waits_before_the_next():
    local = [False]
    v, clock = view(local)
    v.busy()
    v.seen(others=3)
    v.failed()
    assert v.busy() is None  # the replica's own signal only
    local[0] = True
    assert v.busy() == "replica"
    assert v.plan() is None  # not before retry_s, however busy
    clock.now += 0.99
    assert v.plan() is None
    clock.now += 0.02
    assert v.plan() is True


def test_the_job_workers_running_in_the_cluster_are_counted_while_fresh():
    v, clock = view([False])
    assert v.workers() == 1 and not v.running_job()  # nothing known: this one alone
    v.busy()  # the worker asks after a slice: this process runs a job, its ticks mark it so
    assert v.running_job()
    v.seen(others=1, working=3)
    assert v.workers() == 3
    clock.now += 0.6  # no read since: the count is stale, the worker goes by itself
    assert v.workers() == 1
    v.seen(others=0, working=2)
    assert v.workers() == 2
    v.failed()
    assert v.workers() == 1
    clock.now += 1.1  # the worker stopped asking (its job is done): its ticks no longer mark it
    assert not v.running_job()


def test_local_only_is_the_replicas_own_signal():
    local = [False]
    busy = local_only(lambda: local[0])
    assert busy() is None
    local[0] = True
    assert busy() == "replica"


def test_redis_down_the_worker_falls_back_to_its_own_replica(caplog):
    """A real client against a port nothing listens on: the call fails fast, the view is dropped, the warning
    is logged once per outage, and the worker still yields to its own replica's calls."""
    local = [False]
    clock = Clock()
    activity = ClusterActivity("redis://127.0.0.1:1/0", "zsc", "a-1", lambda: local[0], timeout_s=0.2, clock=clock)
    activity.view.seen(others=1)  # another replica was busy when Redis went away
    assert activity.busy() == "cluster"

    async def go():
        with caplog.at_level(logging.WARNING, "zsc.jobs.activity"):
            await activity.tick()
            assert activity.busy() is None
            local[0] = True
            assert activity.busy() == "replica"
            clock.now += 1.1
            await activity.tick()  # fails again: no second warning
        await activity.stop()

    asyncio.run(go())
    warnings = [r for r in caplog.records if r.name == "zsc.jobs.activity"]
    assert len(warnings) == 1 and "does not answer" in warnings[0].getMessage()
