"""The real service with faults a request can trigger by a marker in its text, for the error-path tests:

    bentoml serve tests.support.faulty_service:ZeroShotClassifier

- ``__cache_fault__``: computing the request's cache keys raises (a bug in the cache layer);
- ``__backend_fault__``: the engine raises on the batch the request is in (the model failed);
- ``__slow__<seconds>``: the engine sleeps that long before computing the batch (in its prepare stage).
"""

from __future__ import annotations

import time

from service import classifier, engine
from service.service import ZeroShotClassifier

CACHE_FAULT, BACKEND_FAULT, SLOW = "__cache_fault__", "__backend_fault__", "__slow__"

_cache_key = classifier.cache_key
_prepare = engine.Engine.prepare


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


classifier.cache_key = cache_key_with_fault
engine.Engine.prepare = prepare_with_faults

__all__ = ["ZeroShotClassifier"]
