"""What a load test runs: targets, user counts, step length, the workload's knobs, who gets which CPUs."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.cpus import allowed_cpus, parse_cpus, split_cpus


@dataclass(frozen=True)
class Target:
    key: str  # folder name
    label: str  # what the report calls it
    replicas: int  # 0 = the naive baseline
    cache: bool


@dataclass
class Plan:
    users: list[int]
    step_s: float
    replicas: list[int]
    cache: list[bool]
    naive: bool = True
    repeat_rate: float = 0.3
    labels: str = "2-20"
    batch_share: float = 0.2
    think: str = "0-0.5"
    shipped_only: bool = False
    stop_p95_s: float = 10.0
    stop_failures: float = 0.2
    warmup_requests: int = 12

    def targets(self) -> list[Target]:
        out = [Target("naive", "naive baseline", 0, False)] if self.naive else []
        for n in self.replicas:
            for cache in self.cache:
                what = "1 replica" if n == 1 else f"{n} replicas + nginx"
                on = "on" if cache else "off"
                out.append(Target(f"r{n}-cache-{on}", f"{what}, cache {on}", n, cache))
        return out

    def estimate_s(self) -> float:
        per_target = 25 + self.warmup_requests * 0.3
        return len(self.targets()) * (per_target + len(self.users) * (self.step_s + 4))


FULL = Plan(users=[1, 4, 16, 32, 64], step_s=15, replicas=[1, 2], cache=[False, True])
SMOKE = Plan(users=[2], step_s=10, replicas=[1, 2], cache=[True], warmup_requests=4)


@dataclass
class Placement:
    """Who runs on which CPUs. The load generator gets its own CPUs when there are enough; the servers
    get the rest; N replicas split the server CPUs, or share CPUs with the load generator when there are
    fewer server CPUs than replicas (the 2-core case: say so in the report)."""

    loadgen: list[int]
    server: list[int]
    front: list[int]  # nginx and redis-server
    notes: list[str] = field(default_factory=list)
    pinned: bool = True

    def replicas(self, n: int) -> list[list[int] | None]:
        if not self.pinned:
            return [None] * n
        if len(self.server) >= n:
            return split_cpus(self.server, n)
        every = sorted(set(self.server) | set(self.loadgen))
        return [[every[i % len(every)]] for i in range(n)]


def placement(loadgen: str | None, server: str | None, pin: bool) -> Placement:
    cpus = allowed_cpus()
    if not pin:
        return Placement(cpus, cpus, cpus, ["no pinning: every process may run on every CPU"], pinned=False)
    lg = parse_cpus(loadgen) if loadgen else cpus[-1:]
    sv = parse_cpus(server) if server else ([c for c in cpus if c not in lg] or cpus)
    return Placement(lg, sv, lg)
