"""A validation error in the API's own words: field paths a client can read, one error per mistake.

pydantic reports a value that fits no branch of a union once per branch, with the branches' internal tags
in the path (``labels.list[union[str,function-after[_one_wording(), LabelObject]]].0.str``), and prefixes
our own messages with "Value error, ". ``public_errors`` keeps the field names and list positions, drops
the tags, and of a union's branches keeps the ones that got furthest into the value (preferring our own
messages, which say what to fix); ``summary`` puts the first into one line. Pure: no HTTP.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

_FIELD = re.compile(r"[a-z_][a-z0-9_]*")
_TYPE_TAGS = {"str", "int", "float", "bool", "list", "dict", "none", "json-or-python", "function-after"}
_OUR_MESSAGE = "value_error"


def _is_field(segment: Any) -> bool:
    """A field name or a list position, not a type tag (tags: ``str``, ``list[...]``, ``LabelObject``)."""
    if isinstance(segment, int):
        return True
    return isinstance(segment, str) and segment not in _TYPE_TAGS and bool(_FIELD.fullmatch(segment))


def public_errors(errors: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """pydantic's error dicts as ``{"loc", "msg", "type"}`` with public paths, union branches folded."""
    plain: list[dict[str, Any]] = []
    unions: dict[tuple, list[dict[str, Any]]] = {}  # path up to the union -> its branches' errors
    for error in errors:
        loc = tuple(error.get("loc", ()))
        clean = tuple(s for s in loc if _is_field(s))
        msg = str(error.get("msg", "")).removeprefix("Value error, ")
        out = {"loc": list(clean), "msg": msg, "type": error.get("type", "")}
        tag = next((i for i, s in enumerate(loc) if not _is_field(s)), None)
        if tag is None:
            plain.append(out)
        else:
            unions.setdefault(tuple(s for s in loc[:tag] if _is_field(s)), []).append(out)
    for branches in unions.values():
        deepest = max(len(b["loc"]) for b in branches)
        kept = [b for b in branches if len(b["loc"]) == deepest]
        ours = [b for b in kept if b["type"] == _OUR_MESSAGE]
        for b in ours or _unique(kept):
            plain.append(b)
    return plain


def _unique(errors: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for e in errors:
        key = (tuple(e["loc"]), e["msg"])
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def where(loc: Sequence[Any]) -> str:
    """``labels.0.description`` for ``["labels", 0, "description"]``."""
    return ".".join(str(s) for s in loc)


def summary(title: str, errors: Sequence[Mapping[str, Any]]) -> str:
    """``2 validation errors for ClassifyRequest: labels.0: label 'a' has both ...``."""
    count = len(errors)
    head = f"{count} validation error{'s' if count != 1 else ''} for {title}"
    if not errors:
        return head
    first = errors[0]
    return f"{head}: {where(first['loc']) + ': ' if first['loc'] else ''}{first['msg']}"


def first_mistake(exc: ValidationError) -> str:
    """The first mistake of a validation error, as ``path: message`` (a job item's error names it)."""
    [first, *_] = public_errors(exc.errors(include_context=False, include_input=False, include_url=False))
    return f"{where(first['loc'])}: {first['msg']}" if first["loc"] else first["msg"]
