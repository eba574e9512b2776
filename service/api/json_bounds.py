"""OpenAI's bounds on a JSON value the model reads as text (the Decisions API's ``input_json``, System One's
JSON state): 32 levels, 10,000 values and 256 KiB of compact JSON."""

from __future__ import annotations

import json
from typing import Any

MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_JSON_BYTES = 32, 10_000, 256 * 1024


def bounded_json(data: Any, field: str) -> Any:
    """``data`` within OpenAI's bounds on JSON read as text; a ``ValueError`` naming ``field`` otherwise."""
    depth, values = _json_size(data)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"{field} nests {depth} levels deep; the limit is {MAX_JSON_DEPTH}: flatten it")
    if values > MAX_JSON_VALUES:
        raise ValueError(f"{field} holds {values} values; the limit is {MAX_JSON_VALUES}: send less of it")
    size = len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
    if size > MAX_JSON_BYTES:
        raise ValueError(f"{field} is {size} bytes as compact JSON; the limit is {MAX_JSON_BYTES} (256 KiB)")
    return data


def _json_size(data: Any, depth: int = 0) -> tuple[int, int]:
    """(container depth, number of values) of a JSON value."""
    if isinstance(data, dict):
        inner = [_json_size(v, depth + 1) for v in data.values()]
    elif isinstance(data, list):
        inner = [_json_size(v, depth + 1) for v in data]
    else:
        return depth, 1
    return max([depth + 1, *(d for d, _ in inner)]), 1 + sum(n for _, n in inner)
