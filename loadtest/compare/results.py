"""A load test's results: typed while the run fills them in, ``results.json`` on disk, read back for reports."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .plan import Placement, Plan


@dataclass
class MemberInfo:
    """One server process of a target and where it really ran."""

    name: str
    cpus: list[int] | None
    threads: int | None
    affinity: list[int] = field(default_factory=list)
    os_threads: int | None = None
    pid: int | None = None


@dataclass(frozen=True)
class EndpointStats:
    """Locust's numbers for one endpoint at one step."""

    requests: int
    failures: int
    requests_per_s: float | None
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None


@dataclass
class Step:
    """One user count against one target: Locust's numbers plus what its CSVs lack."""

    target: str
    label: str
    users: int
    window_s: float
    requests: int
    failures: int
    failure_rate: float
    requests_per_s: float
    texts_per_s: float
    pairs_per_s: float
    labels_per_text: float | None
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    cache_hit_rate: float | None
    x_cache: dict[str, int]
    endpoints: dict[str, EndpointStats]
    server_cores: float
    front_cores: float
    loadgen_cores: float
    other_cores: float
    others_before_cores: float = 0.0


@dataclass
class TargetResult:
    """One target of the plan: where it ran, what it served, and why steps were skipped or failed."""

    key: str
    label: str
    replicas: int
    cache: bool
    url: str | None = None
    members: list[MemberInfo] = field(default_factory=list)
    skipped_users: list[int] = field(default_factory=list)
    skip_reason: str | None = None
    skipped: str | None = None
    error: str | None = None
    model_tag: str | None = None


@dataclass
class ModelInfo:
    name: str
    kind: str
    template: str


@dataclass
class Results:
    """Everything one run measured, with the plan, placement, machine and versions it ran under."""

    run: str
    started: float
    plan: Plan
    placement: Placement
    model: ModelInfo
    machine: dict[str, Any]
    versions: dict[str, str]
    targets: list[TargetResult] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    finished: float = 0.0
    waited_for_quiet_s: float = 0.0

    def target(self, key: str) -> TargetResult:
        return next(t for t in self.targets if t.key == key)

    def steps_of(self, key: str) -> list[Step]:
        return [s for s in self.steps if s.target == key]

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> Results:
        raw = json.loads(path.read_text())
        targets = [
            TargetResult(**{**_known(TargetResult, t), "members": [MemberInfo(**_known(MemberInfo, m)) for m in ms]})
            for t in raw["targets"]
            for ms in [t["members"]]
        ]
        steps = [
            Step(**{**_known(Step, s), "endpoints": {k: EndpointStats(**v) for k, v in s["endpoints"].items()}})
            for s in raw["steps"]
        ]
        return cls(
            **{
                **_known(cls, raw),
                "plan": Plan(**_known(Plan, raw["plan"])),
                "placement": Placement(**_known(Placement, raw["placement"])),
                "model": ModelInfo(**_known(ModelInfo, raw["model"])),
                "targets": targets,
                "steps": steps,
            }
        )


def _known(cls, raw: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in raw.items() if k in names}
