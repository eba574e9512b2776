from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="Choice")



@_attrs_define
class Choice:
    """ 
        Attributes:
            value (bool | str):
            description (str | Unset):
     """

    value: bool | str
    description: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        value: bool | str
        value = self.value

        description = self.description


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "value": value,
        })
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_value(data: object) -> bool | str:
            return cast(bool | str, data)

        value = _parse_value(d.pop("value"))


        description = d.pop("description", UNSET)

        choice = cls(
            value=value,
            description=description,
        )

        return choice

