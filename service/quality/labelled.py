"""Labelled data for evaluation and tuning: read CSV, TSV or JSON lines; sample and split it stratified.

A row has a text and its label(s): a label name, a label id into a list of names, or (multi-label) several
names joined by a separator. Pure: files in, lists out.
"""

from __future__ import annotations

import csv
import json
import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path


class DataError(ValueError):
    """A labelled file that cannot be read as asked, with what to fix."""


@dataclass
class Labelled:
    texts: list[str]
    labels: list[list[str]]  # per row; one label each unless multi-label
    classes: list[str]  # every label name, in a stable order
    source: str = ""
    multi_label: bool = False
    rows: list[int] = field(default_factory=list)  # the original row of each item (after sampling)

    def __len__(self) -> int:
        return len(self.texts)

    def subset(self, indices: list[int]) -> Labelled:
        return Labelled(
            [self.texts[i] for i in indices],
            [self.labels[i] for i in indices],
            self.classes,
            self.source,
            self.multi_label,
            [self.rows[i] for i in indices],
        )


def read(
    path: str | Path,
    text_column: str = "text",
    label_column: str = "label",
    label_names: list[str] | None = None,
    separator: str | None = None,
    fmt: str | None = None,
    header: bool = True,
    where: dict[str, str] | None = None,
) -> Labelled:
    """Rows of ``path`` (format from ``fmt`` or the suffix: csv, tsv, jsonl).

    ``label_names``: every label name, in order; the label column holds names from it or ids (0-based) into
    it. ``separator``: multi-label, labels joined by it. A CSV/TSV file without a header row
    (``header=False``) names its columns by position: "0", "1", ... ``where``: only the rows whose columns
    hold these values (compared as text)."""
    path = Path(path)
    records, first = _records(path, fmt, header, (text_column, label_column, *(where or {})))
    texts, labels, kept = [], [], []
    for n, record in enumerate(records, start=first):
        if where and any(str(record.get(k)) != v for k, v in where.items()):
            continue
        text, raw = record[text_column], record[label_column]
        if not isinstance(text, str) or not text.strip():
            raise DataError(f"{path}: row {n} has no text")
        values = [raw] if separator is None or not isinstance(raw, str) else raw.split(separator)
        row_labels = [_name(v, label_names, path, n) for v in values if str(v).strip()]
        if not row_labels:
            raise DataError(f"{path}: row {n} has no label")
        texts.append(text)
        labels.append(row_labels)
        kept.append(n - first)
    if not texts:
        raise DataError(f"{path}: no row matches {where}")
    classes = list(label_names) if label_names else sorted({c for row in labels for c in row})
    return Labelled(texts, labels, classes, str(path), separator is not None, kept)


def read_texts(
    path: str | Path,
    text_column: str = "text",
    fmt: str | None = None,
    header: bool = True,
    where: dict[str, str] | None = None,
) -> list[str]:
    """The texts of a file, no labels needed (a calibration sample): CSV, TSV or JSON lines as ``read`` takes
    them (a JSON line may also be a bare string), or plain text (.txt: one text per line)."""
    path = Path(path)
    if (fmt or path.suffix.lstrip(".")).lower() == "txt":
        return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    records, first = _records(path, fmt, header, (*(where or {}),), bare=text_column)
    if text_column not in records[0]:
        raise DataError(f"{path}: no column {text_column!r}; the columns are {sorted(records[0])}")
    texts = []
    for n, record in enumerate(records, start=first):
        if where and any(str(record.get(k)) != v for k, v in where.items()):
            continue
        text = record.get(text_column)
        if not isinstance(text, str) or not text.strip():
            raise DataError(f"{path}: row {n} has no text")
        texts.append(text)
    if not texts:
        raise DataError(f"{path}: no row matches {where}")
    return texts


def _records(
    path: Path, fmt: str | None, header: bool, columns: tuple[str, ...], bare: str | None = None
) -> tuple[list[dict], int]:
    """(the file's rows as dicts, the number of its first row); ``columns``: what every row must have;
    ``bare``: the column a JSON line that is a bare string fills."""
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    if fmt in ("csv", "tsv"):
        delimiter = "," if fmt == "csv" else "\t"
        with path.open(encoding="utf-8", newline="") as fh:
            if header:
                records = list(csv.DictReader(fh, delimiter=delimiter))
            else:
                records = [{str(i): v for i, v in enumerate(row)} for row in csv.reader(fh, delimiter=delimiter) if row]
    elif fmt in ("jsonl", "ndjson", "json"):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if bare is not None:
            records = [{bare: r} if isinstance(r, str) else r for r in records]
    else:
        raise DataError(f"{path}: unknown format {fmt!r}: use .csv, .tsv or .jsonl (or --format)")
    if not records:
        raise DataError(f"{path}: no rows")
    missing = [c for c in columns if c not in records[0]]
    if missing:
        raise DataError(f"{path}: no column {missing[0]!r}; the columns are {sorted(records[0])}")
    return records, 2 if fmt in ("csv", "tsv") and header else 1


def _name(value, label_names: list[str] | None, path: Path, row: int) -> str:
    """A label as written (a name), or an id into ``label_names`` when they are given."""
    name = str(value).strip()
    if label_names is None or name in label_names:
        return name
    try:
        return label_names[int(name)]
    except (ValueError, IndexError):
        raise DataError(
            f"{path}: row {row}: label {value!r} is neither one of the {len(label_names)} label names nor an id "
            "into them"
        ) from None


def by_class(data: Labelled) -> dict[str, list[int]]:
    """Item indices per (first) label, for stratification."""
    out: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(data.labels):
        out[row[0]].append(i)
    return out


def stratified_sample(data: Labelled, n: int, seed: int = 7) -> Labelled:
    """About ``n`` items, the same share of every class (each class keeps at least one), in file order."""
    if n >= len(data):
        return data
    rng = random.Random(seed)
    chosen: list[int] = []
    for indices in by_class(data).values():
        take = max(1, round(n * len(indices) / len(data)))
        chosen += rng.sample(indices, min(take, len(indices)))
    return data.subset(sorted(chosen))


def stratified_split(data: Labelled, share: float, seed: int = 7) -> tuple[Labelled, Labelled]:
    """(first part with about ``share`` of every class, the rest); both keep every class where it has 2+."""
    rng = random.Random(seed)
    first: list[int] = []
    for indices in by_class(data).values():
        shuffled = indices[:]
        rng.shuffle(shuffled)
        k = round(len(shuffled) * share)
        if len(shuffled) >= 2:
            k = min(max(k, 1), len(shuffled) - 1)
        first += shuffled[:k]
    chosen = set(first)
    return data.subset(sorted(chosen)), data.subset([i for i in range(len(data)) if i not in chosen])
