"""The real service with faults a request can trigger by a marker in its text, and a spy on the one
pipeline function, for the error-path and the one-path tests:

    bentoml serve tests.support.instrumented_service:ZeroShotClassifier

- ``__cache_fault__``: computing the request's cache keys raises (a bug in the cache layer);
- ``__backend_fault__``: the engine raises on the batch the request is in (the model failed);
- ``__slow__<seconds>``: the engine sleeps that long before computing the batch (in its prepare stage);
- with ``ZSC_TEST_SPY=FILE``: every call of ``Pipeline.classify`` appends one JSON line to FILE: who called
  (``job``), the texts, and the answers it returned; and FILE.modules then lists every module the worker
  has imported so far (``sys.modules``).
"""

from __future__ import annotations

import json
import os
import sys
import time

from service.engine import engine
from service.http.app import ZeroShotClassifier
from service.pipeline import pipeline, scorer

CACHE_FAULT, BACKEND_FAULT, SLOW = "__cache_fault__", "__backend_fault__", "__slow__"

_cache_key = scorer.cache_key
_prepare = engine.Engine.prepare
_classify = pipeline.Pipeline.classify
SPY = os.environ.get("ZSC_TEST_SPY")


def cache_key_with_fault(prefix, revision, kind, seq):
    if CACHE_FAULT in seq[0]:
        raise KeyError("injected cache fault")
    return _cache_key(prefix, revision, kind, seq)


def prepare_with_faults(self, sequences):
    texts = [text for text, _ in sequences]
    if any(BACKEND_FAULT in t for t in texts):
        raise RuntimeError("injected backend fault")
    delays = [float(t.split(SLOW, 1)[1].split()[0]) for t in texts if SLOW in t]
    if delays:
        time.sleep(max(delays))
    return _prepare(self, sequences)


async def spied_classify(self, call):  # the call passed on as given
    answers = await _classify(self, call)
    job, texts = call.job, [getattr(r, "request", r).text for r in call.items]
    results = [r.model_dump(mode="json") if hasattr(r, "model_dump") else {"error": str(r)} for r in answers.results]
    with open(SPY, "a", encoding="utf-8") as out:
        out.write(json.dumps({"job": job, "texts": texts, "results": results}) + "\n")
    with open(f"{SPY}.modules", "w", encoding="utf-8") as out:
        out.write("\n".join(sorted(sys.modules)) + "\n")
    return answers


scorer.cache_key = cache_key_with_fault
engine.Engine.prepare = prepare_with_faults
if SPY:
    pipeline.Pipeline.classify = spied_classify

__all__ = ["ZeroShotClassifier"]
