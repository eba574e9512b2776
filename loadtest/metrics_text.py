"""Parse Prometheus' text exposition format (what /metrics returns) into samples."""

from __future__ import annotations

import re

_LINE = re.compile(r"^(?P<name>[a-zA-Z_:][\w:]*)(\{(?P<labels>[^}]*)\})?\s+(?P<value>\S+)$")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse(text: str) -> list[tuple[str, dict[str, str], float]]:
    samples = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            samples.append((m["name"], dict(_LABEL.findall(m["labels"] or "")), float(m["value"])))
    return samples
