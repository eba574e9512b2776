"""API keys and per-key rate limits: pure logic, no HTTP (http/edge/access.py applies them).

Keys come from ZSC_API_KEYS (comma-separated) and/or ZSC_API_KEYS_FILE (one per line, ``#`` comments): a
mounted Kubernetes Secret is re-read when its file changes, so rotating a key is: add the new key, roll
clients over, remove the old one, with no restart. A presented key is compared with every configured key
in constant time (``hmac.compare_digest``, no early exit), so the answer time does not say how much of a
key was right. Keys are never logged: a key is named by ``key_id``, the first 8 hex digits of its SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

RELOAD_CHECK_S = 2.0  # how often the key file's mtime is looked at (a stat per request would cost little, but why)


def key_id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:8]


def parse_key_file(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


class ApiKeys:
    def __init__(self, keys: list[str], path: str = "", clock: Callable[[], float] = time.monotonic) -> None:
        self._static = [k.encode() for k in keys]
        self._path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._file_keys: list[bytes] = []
        self._stamp: tuple[int, int] | None = None
        self._checked = -math.inf
        if path:
            self._reload(force=True)  # a missing or empty file at start-up is a configuration error

    def _reload(self, force: bool = False) -> None:
        try:
            st = os.stat(self._path)
        except FileNotFoundError:
            if force:
                raise ValueError(f"ZSC_API_KEYS_FILE {self._path!r} does not exist") from None
            return  # a Secret being swapped: keep the keys we have
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp and not force:
            return
        with open(self._path, encoding="utf-8") as f:
            keys = parse_key_file(f.read())
        if not keys and force and not self._static:
            raise ValueError(f"ZSC_API_KEYS_FILE {self._path!r} holds no key")
        if keys or force:
            self._file_keys, self._stamp = [k.encode() for k in keys], stamp

    def _current(self) -> list[bytes]:
        if self._path:
            now = self._clock()
            if now - self._checked >= RELOAD_CHECK_S:
                with self._lock:
                    self._checked = now
                    self._reload()
        return self._static + self._file_keys

    def check(self, presented: str) -> bool:
        candidate = presented.encode()
        ok = False
        for key in self._current():
            ok |= hmac.compare_digest(candidate, key)
        return ok


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


@dataclass
class _Bucket:
    tokens: float
    at: float


class KeyRateLimiter:
    """A token bucket per key: ``rate`` requests per second, up to ``burst`` at once. ``acquire`` answers 0
    (go) or the seconds until the key may send again (for Retry-After). Per process: with N workers and M
    replicas a key may send N x M times the rate in all."""

    MAX_KEYS = 10_000  # buckets kept; only valid keys get one, so this bounds memory against nothing hostile

    def __init__(self, rate: float, burst: int = 0, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst or max(1, math.ceil(rate)))
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def acquire(self, key: str) -> float:
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.MAX_KEYS:
                self._buckets.clear()
            bucket = self._buckets[key] = _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.rate
