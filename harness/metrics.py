"""Read a server's ``/metrics`` with ``prometheus_client``'s own text parser."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from prometheus_client.parser import text_string_to_metric_families


@dataclass(frozen=True)
class Sample:
    name: str  # as exposed: counters end in _total, histograms in _bucket/_count/_sum
    labels: dict[str, str]
    value: float


def scrape(url: str, timeout: float = 10) -> list[Sample]:
    text = httpx.get(f"{url}/metrics", timeout=timeout).text
    return [Sample(s.name, dict(s.labels), s.value) for f in text_string_to_metric_families(text) for s in f.samples]


def _matches(sample: Sample, match: dict[str, str]) -> bool:
    return all(sample.labels.get(k) == v for k, v in match.items())


def counter(url: str, name: str, **match: str) -> float:
    """Sum of a counter's samples (``name_total`` or ``name``) whose labels match."""
    return sum(s.value for s in scrape(url) if s.name in (name, f"{name}_total") and _matches(s, match))


def buckets(url: str, name: str, **match: str) -> dict[float, float]:
    """{upper bound: cumulative count} of a histogram, summed over the series whose labels match."""
    out: dict[float, float] = {}
    for s in scrape(url):
        if s.name == f"{name}_bucket" and _matches(s, match):
            le = float(s.labels["le"])
            out[le] = out.get(le, 0.0) + s.value
    return out


def histogram_count(url: str, name: str, **match: str) -> float:
    return sum(s.value for s in scrape(url) if s.name == f"{name}_count" and _matches(s, match))


def quantile_bound(before: dict[float, float], after: dict[float, float], q: float) -> float:
    """Upper bound of the bucket holding the ``q`` quantile of what was observed between two scrapes."""
    delta = sorted((le, after.get(le, 0) - before.get(le, 0)) for le in after)
    total = delta[-1][1] if delta else 0
    for le, count in delta:
        if total and count >= q * total:
            return le
    return float("nan")
