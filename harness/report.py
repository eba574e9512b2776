"""Markdown tables and charts for result reports."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
