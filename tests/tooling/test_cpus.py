"""CPU sets: parsing with validation, splitting among replicas, the load test's placement."""

from __future__ import annotations

import pytest

from harness.cluster import replica_cpus
from harness.cpus import CpuSetError, allowed_cpus, format_cpus, parse_cpus, split_cpus
from loadtest.compare.plan import Placement


def test_parse_cpus_accepts_taskset_forms():
    allowed = range(8)
    assert parse_cpus("0", allowed) == [0]
    assert parse_cpus("0,2", allowed) == [0, 2]
    assert parse_cpus("0-3", allowed) == [0, 1, 2, 3]
    assert parse_cpus("0-1, 6", allowed) == [0, 1, 6]
    assert parse_cpus("3,1,1", allowed) == [1, 3]


@pytest.mark.parametrize("spec", ["", ",", "a-b", "1-", "-1", "3-1", "1.5"])
def test_parse_cpus_rejects_nonsense(spec):
    with pytest.raises(CpuSetError, match="CPU list"):
        parse_cpus(spec, range(8))


def test_parse_cpus_rejects_cpus_this_process_may_not_use():
    with pytest.raises(CpuSetError, match=r"\[9\].*not available"):
        parse_cpus("0,9", range(4))
    with pytest.raises(CpuSetError, match="not available"):
        parse_cpus("99999")  # default: this process's own CPUs


def test_split_cpus_disjoint_when_enough_else_round_robin():
    assert split_cpus([0, 1, 2, 3], 2) == [[0, 1], [2, 3]]
    assert split_cpus([0, 1, 2], 3) == [[0], [1], [2]]
    assert split_cpus([0, 1], 3) == [[0], [1], [0]]
    with pytest.raises(CpuSetError):
        split_cpus([0], 0)
    assert format_cpus([0, 2]) == "0,2" and format_cpus(None) == "all"


def test_cluster_cpu_sets_per_replica():
    allowed = allowed_cpus()
    assert replica_cpus([], 2) == [None, None]
    assert replica_cpus([str(allowed[0])], 3) == [[allowed[0]]] * 3  # repeated cyclically
    auto = replica_cpus(["auto"], 2)
    assert all(cpus and set(cpus) <= set(allowed) for cpus in auto)
    if len(allowed) >= 2:
        assert not set(auto[0]) & set(auto[1])  # disjoint when there are enough CPUs


def test_placement_gives_each_replica_its_own_cpus_when_it_can():
    four = Placement(loadgen=[3], server=[0, 1, 2], front=[3])
    assert four.replicas(1) == [[0, 1, 2]]
    assert four.replicas(3) == [[0], [1], [2]]
    two = Placement(loadgen=[1], server=[0], front=[1])
    assert two.replicas(1) == [[0]]
    assert two.replicas(2) == [[0], [1]]  # the second replica shares the load generator's CPU: reported
    assert Placement([0], [0], [0], pinned=False).replicas(2) == [None, None]
