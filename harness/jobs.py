"""Submit a job, wait for it, read its results, cancel or delete it, over plain HTTP: what a user's script
does (the tests and the jobs benchmark drive the jobs API through these)."""

from __future__ import annotations

import json
import time

import httpx

from .process import HarnessError


def _request(method: str, url: str, path: str, expected: int, timeout: float = 30, **kwargs) -> httpx.Response:
    """One call of the jobs API; HarnessError, naming the call and its answer, on any other status."""
    r = httpx.request(method, f"{url}{path}", timeout=timeout, **kwargs)
    if r.status_code != expected:
        raise HarnessError(f"{method} {path} answered {r.status_code}: {r.text[:500]}")
    return r


def submit(url: str, body: dict | None = None, **kwargs) -> dict:
    """POST /jobs (a JSON body, or files=/content= for uploads); the 202 answer."""
    if body is not None:
        kwargs["json"] = body
    return _request("POST", url, "/jobs", 202, timeout=300, **kwargs).json()


def status(url: str, job_id: str) -> dict:
    return _request("GET", url, f"/jobs/{job_id}", 200).json()


def wait(url: str, job_id: str, timeout: float = 300, until=("done", "cancelled"), poll_s: float = 0.3) -> dict:
    """Poll until the job's state is one of ``until``; HarnessError past ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        job = status(url, job_id)
        if job["state"] in until:
            return job
        if time.monotonic() > deadline:
            raise HarnessError(f"job {job_id} still {job['state']} ({job['done']}/{job['total']}) after {timeout} s")
        time.sleep(poll_s)


def results_jsonl(url: str, job_id: str) -> list[dict]:
    r = httpx.get(f"{url}/jobs/{job_id}/results", params={"format": "jsonl"}, timeout=300)
    if r.status_code != 200 or not r.headers["content-type"].startswith("application/x-ndjson"):
        raise HarnessError(f"results of {job_id}: {r.status_code} {r.text[:300]}")
    return [json.loads(line) for line in r.text.splitlines() if line]


def cancel(url: str, job_id: str) -> dict:
    """POST /jobs/{id}/cancel: the job stops, it and its finished items stay readable; its status."""
    return _request("POST", url, f"/jobs/{job_id}/cancel", 200).json()


def delete(url: str, job_id: str) -> None:
    """DELETE /jobs/{id}: the job (cancelled first when it runs) and its results are gone."""
    _request("DELETE", url, f"/jobs/{job_id}", 204)


def differences(got: list[dict], expected: list[dict], tolerance: float = 1e-4) -> list[int]:
    """The positions where a job's answer is not /classify_batch's: other labels, or a label's score apart by
    more than ``tolerance`` (the same texts, batched differently through the model, differ in the last
    digits of a float: a replica that did not compute the job has other batches). Errors must be equal."""
    out = []
    for i, (a, b) in enumerate(zip(got, expected, strict=True)):
        if "labels" not in a or "labels" not in b:
            if a != b:
                out.append(i)
            continue
        scores_a, scores_b = dict(zip(a["labels"], a["scores"])), dict(zip(b["labels"], b["scores"]))
        rest_a = {k: v for k, v in a.items() if k not in ("labels", "scores", "predicted")}
        rest_b = {k: v for k, v in b.items() if k not in ("labels", "scores", "predicted")}
        if scores_a.keys() != scores_b.keys() or rest_a != rest_b:
            out.append(i)
        elif any(abs(scores_a[k] - scores_b[k]) > tolerance for k in scores_a):
            out.append(i)
    return out
