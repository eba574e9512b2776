"""What the job stores hold and hand out: a job's state and counters, and a chunk of its items. Pure."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

QUEUED, RUNNING, DONE, CANCELLED = "queued", "running", "done", "cancelled"
ACTIVE = (QUEUED, RUNNING)
# what completing a chunk did (the stores' ``complete``)
NOT_STORED, STORED, FINISHED = 0, 1, 2  # FINISHED: stored, and it was the job's last chunk
# a chunk's pass: a job whose items ask for calibration "job" runs every chunk twice, first to estimate
# (its texts are the sample; nothing is stored but the sample's sums), then to answer with the fit
ESTIMATE, ANSWER = "estimate", "answer"


@dataclass
class JobInfo:
    id: str
    state: str
    total: int  # items
    chunks: int
    chunk_items: int  # items per chunk (the last may hold fewer)
    created: float
    done: int = 0  # items with a stored result (answers and item errors)
    errors: int = 0  # of those, items answered with an error
    chunks_done: int = 0
    started: float | None = None
    finished: float | None = None
    ttl_s: int = 0  # the job and its results are kept this long once it has ended (done or cancelled)
    estimate_chunks: int = 0  # chunks of the estimate pass (calibration "job"): 0 = none, else all of them
    estimated: int = 0  # of those, chunks whose texts are in the job's sample

    def as_dict(self, backend: str) -> dict[str, Any]:
        end = self.finished or time.time()
        elapsed = end - self.started if self.started else 0.0
        return {
            "id": self.id,
            "state": self.state,
            "total": self.total,
            "done": self.done,
            "errors": self.errors,
            "progress": self.done / self.total if self.total else 1.0,
            "chunks": self.chunks,
            "chunks_done": self.chunks_done,
            "created": self.created,
            "started": self.started,
            "finished": self.finished,
            "elapsed_s": round(elapsed, 3),
            "items_per_s": round(self.done / elapsed, 2) if elapsed > 0 else None,
            "ttl_s": self.ttl_s,
            "backend": backend,
            "estimated": self.estimated if self.estimate_chunks else None,
        }

    def chunk_range(self, index: int) -> range:
        start = index * self.chunk_items
        return range(start, min(start + self.chunk_items, self.total))


@dataclass
class Chunk:
    job_id: str
    index: int
    items: list[dict[str, Any]]
    token: Any = None  # the store's handle to acknowledge it (a stream entry id)
    deliveries: int = 1  # how many times it was handed out, this time included
    reclaimed: bool = False  # taken over from a worker that stopped answering
    extra: dict[str, Any] = field(default_factory=dict)
    phase: str = ANSWER  # ESTIMATE: the first pass of a job calibrating on its own texts


def item_error(message: str, error_type: str) -> dict[str, Any]:
    """What an item that could not be classified gets in place of its answer."""
    return {"error": message, "error_type": error_type}


def is_error(result: dict[str, Any]) -> bool:
    return "error_type" in result and "labels" not in result
