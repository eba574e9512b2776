from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.noul_answer_type import check_noul_answer_type
from ..models.noul_answer_type import NoulAnswerType
from typing import cast






T = TypeVar("T", bound="NoulAnswer")



@_attrs_define
class NoulAnswer:
    """ 
        Attributes:
            noul (float):
            type_ (NoulAnswerType):  Default: 'noul'.
     """

    noul: float
    type_: NoulAnswerType = 'noul'
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        noul = self.noul

        type_: str = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "noul": noul,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        noul = d.pop("noul")

        type_ = check_noul_answer_type(d.pop("type"))




        noul_answer = cls(
            noul=noul,
            type_=type_,
        )


        noul_answer.additional_properties = d
        return noul_answer

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
