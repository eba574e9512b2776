"""Read Prometheus text exposition from /metrics."""

from __future__ import annotations

import httpx

from loadtest.metrics_text import parse


def scrape(url: str) -> list[tuple[str, dict[str, str], float]]:
    return parse(httpx.get(f"{url}/metrics", timeout=10).text)


def histogram(url: str, name: str, **match: str) -> dict[str, float]:
    """{'count': n, 'le=1.0': n, ...} summed over series matching the labels."""
    out: dict[str, float] = {}
    for sample, labels, value in scrape(url):
        if not all(labels.get(k) == v for k, v in match.items()):
            continue
        if sample == f"{name}_count":
            out["count"] = out.get("count", 0) + value
        elif sample == f"{name}_bucket":
            key = f"le={labels['le']}"
            out[key] = out.get(key, 0) + value
    return out


def counter(url: str, name: str, **match: str) -> float:
    """Sum of a counter's samples (``name_total`` or ``name``) whose labels match."""
    total = 0.0
    for sample, labels, value in scrape(url):
        if sample in (name, f"{name}_total") and all(labels.get(k) == v for k, v in match.items()):
            total += value
    return total
