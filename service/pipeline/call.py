"""One call at the pipeline's seam: the classifications every surface builds from its own protocol types,
and how they are run (interactive or a job's, with a job's calibration, with the tokens read counted)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from service.core.classification import Classification
from service.pipeline.calibration import JobCalibration
from service.pipeline.label_sets import Resolved


@dataclass(frozen=True)
class Sender:
    """Who sent a call, for traffic calibration (never a request field a client could forge): ``key`` the id of
    its API key (None with keys off), ``address`` the client's address."""

    key: str | None = None
    address: str | None = None


@dataclass(frozen=True)
class Call:
    """``items``: classifications, or ones resolved already (a job's items are resolved at intake).

    ``job``: a slice of a job's items, each answered on its own (its error in its place), holding no
    admission slot and not counted as interactive traffic; ``job_calibration``: that job's own fit, or its
    sample (its items asking for calibration "job"); ``usage``: count the tokens the model read; ``sender``: whose
    traffic calibration records it reads and adds to."""

    items: tuple[Classification | Resolved, ...]
    job: bool = False
    job_calibration: JobCalibration | None = None
    usage: bool = False
    sender: Sender = Sender()

    def part(self, positions: list[int]) -> Call:
        """The same call over some of its items (one model's), in this order."""
        return replace(self, items=tuple(self.items[i] for i in positions))
