"""Read Prometheus text exposition from /metrics."""

from __future__ import annotations

import re

import httpx

_LINE = re.compile(r"^(?P<name>[a-zA-Z_:][\w:]*)(\{(?P<labels>[^}]*)\})?\s+(?P<value>\S+)$")


def scrape(url: str) -> list[tuple[str, dict[str, str], float]]:
    samples = []
    for line in httpx.get(f"{url}/metrics", timeout=10).text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m["labels"] or ""))
        samples.append((m["name"], labels, float(m["value"])))
    return samples


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
