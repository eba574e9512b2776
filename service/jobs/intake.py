"""A job submission, from any of its shapes to a list of validated ``/classify`` requests. Pure.

Shapes (README "Jobs"):

- JSON: ``{"items": [classify bodies]}`` and/or ``{"texts": [...]}``, with any other ``/classify`` field
  (``labels``, ``label_set``, ``hypothesis_template``, ``multi_label``, ``threshold``, ...) shared by every
  item (an item's own fields win);
- a JSON-lines file (each line a classify body, or a bare JSON string: the text) or a CSV file (a text
  column, ``text`` unless ``text_column`` says otherwise), uploaded as multipart ``file`` or sent as the
  body (``application/x-ndjson``, ``text/csv``); the shared fields then come as form fields or query
  parameters (``labels=a,b`` or a JSON list, ``multi_label=true``, ``threshold=0.5``).

Every item is validated with the ``/classify`` rules before anything is queued (``checked``: the document's
rules; ``resolved``: its model chosen, its label set resolved and the rules no schema states, as a call of
its own), the only time a job item is checked: a bad item rejects the submission with its number, so a job
never half-runs on a typo. The worker runs the stored items without checking them again (``items.py``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError

from service.api.classify import ClassifyRequest
from service.api.validation import first_mistake
from service.core.classification import Classification
from service.errors import InvalidRequest, ServiceError, UnprocessableRequest
from service.pipeline.label_sets import Resolved

# fields of a submission that are not /classify fields
FILE_OPTIONS = ("text_column",)
REQUEST_FIELDS = tuple(f for f in ClassifyRequest.model_fields if f != "text")
JOB_ITEM = {"job_item": True}  # validation context: what only a job's item may ask (calibration "job")
MAX_REPORTED = 5  # item errors named in one answer

T = TypeVar("T")
R = TypeVar("R")


def from_json(body: Any, max_items: int) -> list[ClassifyRequest]:
    if not isinstance(body, dict):
        raise InvalidRequest('a job is a JSON object: {"texts": [...], "labels": [...]} or {"items": [...]}')
    unknown = sorted(set(body) - {"items", "texts", *REQUEST_FIELDS})
    if unknown:
        raise InvalidRequest(f"unknown field(s) {unknown}; a job takes items, texts and the /classify fields")
    # null means "not given", as the document (JobSubmission) says
    items, texts = body.get("items") or [], body.get("texts") or []
    if not isinstance(items, list) or not isinstance(texts, list):
        raise InvalidRequest("items and texts must be lists")
    if not items and not texts:
        raise InvalidRequest("the job has no items: give items (classify bodies) or texts")
    shared = {k: v for k, v in body.items() if k not in ("items", "texts") and v is not None}
    raw = [*items, *({"text": t} for t in texts)]
    return checked(raw, shared, max_items, what="item")


def from_file(
    data: bytes, filename: str, content_type: str, options: Mapping[str, str], max_items: int
) -> list[ClassifyRequest]:
    """Items of an uploaded (or posted) JSON-lines or CSV file, with the shared fields of ``options``."""
    shared, text_column = shared_fields(options)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidRequest(f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    kind = file_kind(filename, content_type)
    if kind == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        if rows and text_column not in rows[0]:
            raise InvalidRequest(f"the CSV has no column {text_column!r}; its columns are {list(rows[0])}")
        raw: list[Any] = [{"text": row[text_column]} for row in rows]
    else:
        raw = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            if len(raw) >= max_items:
                raise InvalidRequest(f"more than {max_items} items (ZSC_JOB_MAX_ITEMS): split the file")
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidRequest(f"line {n} is not JSON: {exc.msg}") from None
            raw.append({"text": value} if isinstance(value, str) else value)
    if not raw:
        raise InvalidRequest("the file has no items")
    return checked(raw, shared, max_items, what="line" if kind == "jsonl" else "row")


def file_kind(filename: str, content_type: str) -> str:
    name, ctype = filename.lower(), content_type.lower()
    if name.endswith(".csv") or "csv" in ctype:
        return "csv"
    if name.endswith((".jsonl", ".ndjson", ".json")) or "json" in ctype or not name:
        return "jsonl"
    raise InvalidRequest(f"{filename}: upload a .jsonl (one classify body or text per line) or a .csv file")


def shared_fields(options: Mapping[str, str]) -> tuple[dict[str, Any], str]:
    """Form fields or query parameters as /classify fields (JSON values where they parse as JSON)."""
    unknown = sorted(set(options) - {*REQUEST_FIELDS, *FILE_OPTIONS})
    if unknown:
        raise InvalidRequest(f"unknown option(s) {unknown}; allowed: {[*REQUEST_FIELDS, *FILE_OPTIONS]}")
    shared: dict[str, Any] = {}
    for key, value in options.items():
        if key in FILE_OPTIONS or value == "":
            continue
        try:  # labels=["a","b"], multi_label=true, threshold=0.5; anything else is a string (labels=a,b)
            shared[key] = json.loads(value)
        except json.JSONDecodeError:
            shared[key] = value
    return shared, options.get("text_column") or "text"


def check_shared(shared: dict[str, Any]) -> None:
    """The shared fields by the /classify rules on their own, so that one the document forbids is a 400 even
    when every item gives its own value (and the shared one would never be read)."""
    probe = {"text": "shared", **shared}
    if probe.get("labels") is None and probe.get("label_set") is None:
        probe["label_set"] = "shared"  # that every item has labels is each item's check, below
    try:
        ClassifyRequest.model_validate(probe, context=JOB_ITEM)
    except ValidationError as exc:
        raise InvalidRequest(f"the job's shared fields: {first_mistake(exc)}") from None


def checked(raw: list[Any], shared: dict[str, Any], max_items: int, what: str) -> list[ClassifyRequest]:
    """Each item merged over the shared fields and validated as a /classify request; 400 naming the first
    bad ones (1-based, as editors number lines)."""
    if len(raw) > max_items:
        raise InvalidRequest(f"{len(raw)} items; the limit is {max_items} (ZSC_JOB_MAX_ITEMS): split the job")
    check_shared(shared)

    def one(n: int, item: Any) -> ClassifyRequest:
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict):
            raise _Problem(f"{what} {n}: a classify body (an object) or a text (a string), not {type(item).__name__}")
        merged = {**shared, **{k: v for k, v in item.items() if v is not None}}  # null: not given
        try:
            return ClassifyRequest.model_validate(merged, context=JOB_ITEM)
        except ValidationError as exc:
            raise _Problem(f"{what} {n}: {first_mistake(exc)}") from None

    return _each_or_refused(raw, one, InvalidRequest)


def resolved(requests: list[ClassifyRequest], resolve: Callable[[Classification], Resolved]) -> list[Resolved]:
    """Each item's model chosen, label set resolved and rules checked (``resolve``: the model registry's);
    422 naming the first items that break a rule no schema states. An unknown model or label set is the
    whole submission's error (404), as for a call."""

    def one(n: int, request: ClassifyRequest) -> Resolved:
        try:
            return resolve(request.classification())
        except UnprocessableRequest as exc:
            raise _Problem(f"item {n}: {exc}") from None

    return _each_or_refused(requests, one, UnprocessableRequest)


class _Problem(Exception):
    """What is wrong with one item, in the words its submitter reads."""


def _each_or_refused(items: Sequence[T], check: Callable[[int, T], R], refused: type[ServiceError]) -> list[R]:
    """``check(n, item)`` on each item (n 1-based, as editors number lines): their results, or ``refused``
    naming the first ``MAX_REPORTED`` items' problems, so that one answer shows a submitter most of what to fix
    without reading on through a file that is wrong throughout."""
    results, problems = [], []
    for n, item in enumerate(items, start=1):
        try:
            results.append(check(n, item))
        except _Problem as problem:
            problems.append(str(problem))
            if len(problems) >= MAX_REPORTED:
                break
    if problems:
        raise refused(_listed(problems))
    return results


def _listed(problems: list[str]) -> str:
    return "; ".join(problems) + (" (and maybe more)" if len(problems) >= MAX_REPORTED else "")
