from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LabelObject")



@_attrs_define
class LabelObject:
    """ A label with its wording: a description that goes into the template, or a whole hypothesis; a list
    gives several phrasings, combined into the label's score.

        Example:
            {'description': ['a compliment', 'a happy customer'], 'name': 'praise'}

        Attributes:
            name (str): What the answer calls this label.
            description (list[str] | None | str | Unset): Put into the hypothesis template instead of the name; a list gives
                several phrasings.
            examples (list[str] | None | Unset): Texts that belong to this label (embedding models; an NLI model answers
                422): encoded as texts and joined with the label's wording by `example_rule`.
            hypothesis (list[str] | None | str | Unset): Whole hypotheses used as they are (no template); a list gives
                several phrasings.
     """

    name: str
    description: list[str] | None | str | Unset = UNSET
    examples: list[str] | None | Unset = UNSET
    hypothesis: list[str] | None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        description: list[str] | None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        elif isinstance(self.description, list):
            description = self.description


        else:
            description = self.description

        examples: list[str] | None | Unset
        if isinstance(self.examples, Unset):
            examples = UNSET
        elif isinstance(self.examples, list):
            examples = self.examples


        else:
            examples = self.examples

        hypothesis: list[str] | None | str | Unset
        if isinstance(self.hypothesis, Unset):
            hypothesis = UNSET
        elif isinstance(self.hypothesis, list):
            hypothesis = self.hypothesis


        else:
            hypothesis = self.hypothesis


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if examples is not UNSET:
            field_dict["examples"] = examples
        if hypothesis is not UNSET:
            field_dict["hypothesis"] = hypothesis

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        def _parse_description(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                description_type_1 = cast(list[str], data)

                return description_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_examples(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                examples_type_0 = cast(list[str], data)

                return examples_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        examples = _parse_examples(d.pop("examples", UNSET))


        def _parse_hypothesis(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                hypothesis_type_1 = cast(list[str], data)

                return hypothesis_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        hypothesis = _parse_hypothesis(d.pop("hypothesis", UNSET))


        label_object = cls(
            name=name,
            description=description,
            examples=examples,
            hypothesis=hypothesis,
        )

        return label_object

