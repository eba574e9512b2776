"""Validation errors of the /v1 requests (OpenAI's decisions, System One's) as OpenAI's error envelope
carries them, which is also what TypeSafe's SDK reads (``error.message``): ``param`` (the path of the first
field at fault, as OpenAI writes it: ``questions[0].choices``, ``questions.tone.criteria``) and the message."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ValidationError

from service.api.decisions.protocol import ROLES, TOOL_ITEMS
from service.api.validation import public_errors
from service.errors import InvalidRequest

# the tags pydantic puts in a path after a list position to say which branch of a union it tried, by the
# list that holds the union (a field may share a tag's name: a choice's unknown field "score" is kept)
_PART_TAGS = frozenset({"input_text", "input_image", "input_json", "output_text", "refusal"})
_UNION_TAGS = {
    "questions": frozenset({"predicate", "choice", "score", "noul"}),
    "input": frozenset({*ROLES, *TOOL_ITEMS}),
    "content": _PART_TAGS,
    "output": _PART_TAGS,
    "instructions": _PART_TAGS,
}


def param_path(loc: Iterable[str | int]) -> str | None:
    """A field path as OpenAI's errors write ``param``: ``questions[2].choices[0].value`` (a union's tag
    after a list position or a question's name dropped: pydantic's ``questions[2].choice.choices`` is
    ``questions[2].choices``, its ``questions.tone.choice.criteria`` is ``questions.tone.criteria``)."""
    out = ""
    segments = list(loc)
    for i, segment in enumerate(segments):
        keyed = i >= 2 and (isinstance(segments[i - 1], int) or segments[i - 2] == "questions")
        if keyed and segment in _UNION_TAGS.get(segments[i - 2], ()):
            continue
        out += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if out else segment)
    return out or None


def validated(model: type[BaseModel], body: bytes, fields: str) -> BaseModel:
    """``body`` as a ``model``; an ``InvalidRequest`` naming the first field at fault otherwise (``fields``:
    what a body that is no JSON object is told to send)."""
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        param, message = envelope_fields(exc, fields)
        raise InvalidRequest(message, param=param) from None


def envelope_fields(exc: ValidationError, fields: str = '{"model", "input", "questions"}') -> tuple[str | None, str]:
    """(param, message) of a validation error, as OpenAI's error envelope carries them: the first mistake's
    path and what to fix, with how many more there are."""
    errors = public_errors(exc.errors(include_url=False)) or [{"loc": [], "msg": str(exc)}]
    first = errors[0]
    param = param_path(first["loc"])
    message = f"{param}: {first['msg']}" if param else first["msg"]
    if param is None and first.get("type") == "model_type":
        message = f"the body is not a JSON object: send {fields}"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return param, message
