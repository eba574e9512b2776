"""JSON-schema rules written from the validators' limits, so that what the OpenAPI document calls valid is what
the service accepts: white space, templates, label strings, and each field's bounds (the limits in force when
the document is made: it states this replica's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.api.limits import in_force

# The rules below are both checked (validators, with messages that say what to fix) and stated in the
# OpenAPI document (``schema_rules``), so that what the document calls valid is what the service accepts.
# White space as str.strip() and str.isspace() know it, spelt out: JSON Schema patterns are ECMA-262 regexes,
# whose \s is another set (it lacks U+001C..U+001F and U+0085, and has U+FEFF)
SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK = rf"[^{SPACE}]"  # some character that is not white space
# exactly one '{}' where the label goes; other braces doubled ('{{', '}}')
TEMPLATE = r"^(?:[^{}]|[{][{]|[}][}])*[{][}](?:[^{}]|[{][{]|[}][}])*$"  # braces in classes: no escapes to misread


def _label_string(most: int, longest: int) -> str:
    """A comma-separated label string: 1 to ``most`` parts of at most ``longest`` characters, none of them
    blank, no two the same once trimmed (the second lookahead: a part, then a later one equal to it but for
    white space; the service answers that one with 422 (``Classification.repeated_label``), as for a list)."""
    part, blanks = rf"[^,，]*[^,，{SPACE}][^,，]*", rf"[{SPACE}]*"
    repeated = (
        rf"(?:[^,，]*[,，])*{blanks}([^,，]*?[^,，{SPACE}]){blanks}[,，](?:[^,，]*[,，])*{blanks}\1{blanks}(?:[,，]|$)"
    )
    too_long = rf"[\s\S]*[^,，]{{{longest + 1}}}"
    return rf"^(?!{too_long})(?!{repeated}){part}(?:[,，]{part}){{0,{most - 1}}}$"


Rules = Callable[[], dict[str, Any]]


def schema_rules(string: Rules | None = None, array: Rules | None = None, item: Rules | None = None):
    """A ``json_schema_extra`` that writes validator rules into a field's schema: ``string`` on its string
    form, ``array`` on its list form and ``item`` on the list's string items, whichever the field's union
    has (a field that may be null gets them on its other branches). Limits are the ones in force when the
    document is made, so it states this replica's limits."""

    def extra(schema: dict[str, Any]) -> None:
        _apply(schema, string and string(), array and array(), item and item())

    return extra


def _apply(schema: dict[str, Any], string: dict | None, array: dict | None, item: dict | None) -> None:
    for branch in schema.get("anyOf") or schema.get("oneOf") or [schema]:
        kind = branch.get("type")
        if kind == "string" and string:
            branch.update(string)
        elif kind == "array":
            branch.update(array or {})
            if item:
                _apply(branch["items"], item, None, None)


def text_rules() -> dict[str, Any]:
    return {"pattern": NOT_BLANK, "maxLength": in_force().max_text_chars}


def label_rules() -> dict[str, Any]:
    return {"pattern": NOT_BLANK, "maxLength": in_force().max_label_chars}


def labels_rules() -> dict[str, Any]:
    return {"minItems": 1, "maxItems": in_force().max_labels, "uniqueItems": True}


def label_list_string_rules() -> dict[str, Any]:
    s = in_force()
    return {"pattern": _label_string(s.max_labels, s.max_label_chars)}


def phrasing_rules() -> dict[str, Any]:
    return {"pattern": NOT_BLANK, "maxLength": in_force().max_description_chars}


def phrasings_rules() -> dict[str, Any]:
    return {"minItems": 1, "maxItems": in_force().max_phrasings}


def example_rules() -> dict[str, Any]:
    return {"pattern": NOT_BLANK, "maxLength": in_force().max_example_chars}


def examples_rules() -> dict[str, Any]:
    return {"minItems": 1, "maxItems": in_force().max_examples_per_label}


def template_rules() -> dict[str, Any]:
    # the length goes into the pattern (a lookahead), not maxLength: schemathesis folds maxLength into the
    # pattern's quantifiers and writes the braces back in a form ECMA regexes refuse
    most = in_force().max_template_chars
    return {"pattern": rf"^(?=[\s\S]{{0,{most}}}$)" + TEMPLATE[1:]}


def batch_rules() -> dict[str, Any]:
    return {"minItems": 1, "maxItems": in_force().max_batch_items}


LABELS_SCHEMA = schema_rules(string=label_list_string_rules, array=labels_rules, item=label_rules)
TEXT_SCHEMA = schema_rules(string=text_rules)
TEMPLATE_SCHEMA = schema_rules(string=template_rules)


# -- the /v1 document's views of OpenAI's fields -------------------------------------------------------
def optional_string(schema: dict[str, Any]) -> None:
    """The document's view of a field the SDK types ``str`` but leaves optional: a string, no null default."""
    schema.pop("default", None)


def not_blank(schema: dict[str, Any]) -> None:
    for branch in schema.get("anyOf", [schema]):
        if branch.get("type") == "string":
            branch["pattern"] = NOT_BLANK


def text_parts_only(schema: dict[str, Any]) -> None:
    """The document lists no image parts where the input's content goes: the service reads text only (an
    image there is a 400 naming it, ``input_text``); a question's instructions may show one (a refusal)."""
    for branch in schema.get("anyOf", []):
        union = branch.get("items", {})
        image = union.get("discriminator", {}).get("mapping", {}).pop("input_image", None)
        if image is not None:
            union["oneOf"] = [b for b in union["oneOf"] if b.get("$ref") != image]
