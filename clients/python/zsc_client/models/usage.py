from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.input_tokens_details import InputTokensDetails
  from ..models.output_tokens_details import OutputTokensDetails





T = TypeVar("T", bound="Usage")



@_attrs_define
class Usage:
    """ 
        Attributes:
            input_tokens (int):
            input_tokens_details (InputTokensDetails):
            output_tokens (int):  Default: 0.
            output_tokens_details (OutputTokensDetails):
            total_tokens (int):
     """

    input_tokens: int
    input_tokens_details: InputTokensDetails
    output_tokens_details: OutputTokensDetails
    total_tokens: int
    output_tokens: int = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.input_tokens_details import InputTokensDetails # noqa: PLC0415
        from ..models.output_tokens_details import OutputTokensDetails # noqa: PLC0415
        input_tokens = self.input_tokens

        input_tokens_details = self.input_tokens_details.to_dict()

        output_tokens = self.output_tokens

        output_tokens_details = self.output_tokens_details.to_dict()

        total_tokens = self.total_tokens


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "input_tokens": input_tokens,
            "input_tokens_details": input_tokens_details,
            "output_tokens": output_tokens,
            "output_tokens_details": output_tokens_details,
            "total_tokens": total_tokens,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_tokens_details import InputTokensDetails # noqa: PLC0415
        from ..models.output_tokens_details import OutputTokensDetails # noqa: PLC0415
        d = dict(src_dict)
        input_tokens = d.pop("input_tokens")

        input_tokens_details = InputTokensDetails.from_dict(d.pop("input_tokens_details"))




        output_tokens = d.pop("output_tokens")

        output_tokens_details = OutputTokensDetails.from_dict(d.pop("output_tokens_details"))




        total_tokens = d.pop("total_tokens")

        usage = cls(
            input_tokens=input_tokens,
            input_tokens_details=input_tokens_details,
            output_tokens=output_tokens,
            output_tokens_details=output_tokens_details,
            total_tokens=total_tokens,
        )


        usage.additional_properties = d
        return usage

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
