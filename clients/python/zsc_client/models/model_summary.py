from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="ModelSummary")



@_attrs_define
class ModelSummary:
    """ 
        Attributes:
            default (bool): Whether requests naming no model (and no label set tuned on another) get it.
            example_rule (None | str): Embedding models: how label examples join the wording by default.
            example_weight (float | None): Embedding models: the wording's share in a blend by default (for a label with 3
                examples).
            kind (str): nli or embedding.
            languages (list[str]): ISO 639-1 codes the model covers; empty when not known.
            max_length (int): Tokens per sequence.
            memory_mb (float): Resident memory its loading added to the replica.
            name (str): The model's name in the store: what a request's `model` names.
            revision (str):
            state (str): ready
            tag (str): Name and version, as answers report it in `model`.
     """

    default: bool
    example_rule: None | str
    example_weight: float | None
    kind: str
    languages: list[str]
    max_length: int
    memory_mb: float
    name: str
    revision: str
    state: str
    tag: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        default = self.default

        example_rule: None | str
        example_rule = self.example_rule

        example_weight: float | None
        example_weight = self.example_weight

        kind = self.kind

        languages = self.languages



        max_length = self.max_length

        memory_mb = self.memory_mb

        name = self.name

        revision = self.revision

        state = self.state

        tag = self.tag


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "default": default,
            "example_rule": example_rule,
            "example_weight": example_weight,
            "kind": kind,
            "languages": languages,
            "max_length": max_length,
            "memory_mb": memory_mb,
            "name": name,
            "revision": revision,
            "state": state,
            "tag": tag,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        default = d.pop("default")

        def _parse_example_rule(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        example_rule = _parse_example_rule(d.pop("example_rule"))


        def _parse_example_weight(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        example_weight = _parse_example_weight(d.pop("example_weight"))


        kind = d.pop("kind")

        languages = cast(list[str], d.pop("languages"))


        max_length = d.pop("max_length")

        memory_mb = d.pop("memory_mb")

        name = d.pop("name")

        revision = d.pop("revision")

        state = d.pop("state")

        tag = d.pop("tag")

        model_summary = cls(
            default=default,
            example_rule=example_rule,
            example_weight=example_weight,
            kind=kind,
            languages=languages,
            max_length=max_length,
            memory_mb=memory_mb,
            name=name,
            revision=revision,
            state=state,
            tag=tag,
        )


        model_summary.additional_properties = d
        return model_summary

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
