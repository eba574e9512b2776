"""Decision requests' validation errors as OpenAI's error envelope carries them: ``param`` (the path of the
first field at fault, as OpenAI writes it) and the message."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ValidationError

from service.api.decisions.protocol import ROLES, TOOL_ITEMS
from service.api.validation import public_errors

# the tags pydantic puts in a path after a list position to say which branch of a union it tried, by the
# list that holds the union (a field may share a tag's name: a choice's unknown field "score" is kept)
_PART_TAGS = frozenset({"input_text", "input_image", "input_json", "output_text", "refusal"})
_UNION_TAGS = {
    "questions": frozenset({"predicate", "choice", "score"}),
    "input": frozenset({*ROLES, *TOOL_ITEMS}),
    "content": _PART_TAGS,
    "output": _PART_TAGS,
    "instructions": _PART_TAGS,
}


def param_path(loc: Iterable[str | int]) -> str | None:
    """A field path as OpenAI's errors write ``param``: ``questions[2].choices[0].value`` (a union's tag
    after a list position dropped: pydantic's ``questions[2].choice.choices`` is ``questions[2].choices``)."""
    out = ""
    segments = list(loc)
    for i, segment in enumerate(segments):
        if i >= 2 and isinstance(segments[i - 1], int) and segment in _UNION_TAGS.get(segments[i - 2], ()):
            continue
        out += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if out else segment)
    return out or None


def envelope_fields(exc: ValidationError) -> tuple[str | None, str]:
    """(param, message) of a validation error, as OpenAI's error envelope carries them: the first mistake's
    path and what to fix, with how many more there are."""
    errors = public_errors(exc.errors(include_url=False)) or [{"loc": [], "msg": str(exc)}]
    first = errors[0]
    param = param_path(first["loc"])
    message = f"{param}: {first['msg']}" if param else first["msg"]
    if param is None and first.get("type") == "model_type":
        message = 'the body is not a JSON object: send {"model", "input", "questions"}'
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return param, message
