from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="Level")



@_attrs_define
class Level:
    """ 
        Attributes:
            label (str):
            description (str | Unset):
     """

    label: str
    description: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        label = self.label

        description = self.description


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "label": label,
        })
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        label = d.pop("label")

        description = d.pop("description", UNSET)

        level = cls(
            label=label,
            description=description,
        )

        return level

