"""Markdown tables and charts for result reports."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A markdown table's lines; cells are written with str()."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}"


def pyplot():
    """matplotlib's pyplot on the file-only backend (no display here)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig, path: Path, dpi: int = 100) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)


def result_folder(given: Path | None, name: str, smoke: bool = False) -> Path:
    """Where a measurement writes, made: ``given`` (its ``--out``), else results/<name>-<date>; a smoke run's
    (``smoke``) ends in ``-smoke``, so that it never lands among a real run's files."""
    from harness import ROOT

    out = given or ROOT / "results" / f"{name}-{time.strftime('%Y%m%d')}{'-smoke' if smoke else ''}"
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_results(
    out: Path,
    stem: str,
    results: dict,
    report: Callable[[dict], str],
    chart: Callable | None = None,
    show: bool = False,
) -> Path:
    """A measurement's files in ``out``: ``stem.json`` (everything), ``stem.md`` (the report) and, given a
    ``chart``, ``stem.png``; says where, prints the report when ``show``, and returns the report's path."""
    from harness.progress import say

    (out / f"{stem}.json").write_text(json.dumps(results, indent=1))
    text = report(results)
    (out / f"{stem}.md").write_text(text)
    if chart is not None:
        chart(results, out / f"{stem}.png")
    say(f"wrote {out / f'{stem}.md'}")
    if show:
        print(text)
    return out / f"{stem}.md"
