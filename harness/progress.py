"""Progress lines for long operations: a timestamp, an optional tag, flushed at once."""

from __future__ import annotations

import time


def say(msg: str, tag: str | None = None) -> None:
    prefix = f"[{tag}]" if tag else f"[{time.strftime('%H:%M:%S')}]"
    print(f"{prefix} {msg}", flush=True)
