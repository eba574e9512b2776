from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.refusal_part_type import check_refusal_part_type
from ..models.refusal_part_type import RefusalPartType
from typing import cast






T = TypeVar("T", bound="RefusalPart")



@_attrs_define
class RefusalPart:
    """ 
        Attributes:
            refusal (str):
            type_ (RefusalPartType):
     """

    refusal: str
    type_: RefusalPartType





    def to_dict(self) -> dict[str, Any]:
        refusal = self.refusal

        type_: str = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "refusal": refusal,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        refusal = d.pop("refusal")

        type_ = check_refusal_part_type(d.pop("type"))




        refusal_part = cls(
            refusal=refusal,
            type_=type_,
        )

        return refusal_part

