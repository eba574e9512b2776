"""Jobs over plain HTTP for the tests: the harness's client (harness/jobs.py) and /classify_batch to
compare with."""

from __future__ import annotations

import httpx

from harness.jobs import cancel, delete, results_jsonl, status, submit, wait

__all__ = ["batch_answers", "cancel", "delete", "results_jsonl", "status", "submit", "wait"]


def batch_answers(url: str, items: list[dict], size: int = 256) -> list[dict]:
    """The same items through /classify_batch, in calls of ``size``."""
    out: list[dict] = []
    for start in range(0, len(items), size):
        r = httpx.post(f"{url}/classify_batch", json={"items": items[start : start + size]}, timeout=300)
        assert r.status_code == 200, r.text
        out += r.json()["results"]
    return out
