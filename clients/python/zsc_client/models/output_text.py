from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.output_text_type import check_output_text_type
from ..models.output_text_type import OutputTextType
from typing import cast






T = TypeVar("T", bound="OutputText")



@_attrs_define
class OutputText:
    """ 
        Attributes:
            text (str):
            type_ (OutputTextType):
     """

    text: str
    type_: OutputTextType





    def to_dict(self) -> dict[str, Any]:
        text = self.text

        type_: str = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "text": text,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        text = d.pop("text")

        type_ = check_output_text_type(d.pop("type"))




        output_text = cls(
            text=text,
            type_=type_,
        )

        return output_text

