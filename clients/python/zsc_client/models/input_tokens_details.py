from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="InputTokensDetails")



@_attrs_define
class InputTokensDetails:
    """ 
        Attributes:
            cache_write_tokens (int):
            cached_tokens (int):
     """

    cache_write_tokens: int
    cached_tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        cache_write_tokens = self.cache_write_tokens

        cached_tokens = self.cached_tokens


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cache_write_tokens": cache_write_tokens,
            "cached_tokens": cached_tokens,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cache_write_tokens = d.pop("cache_write_tokens")

        cached_tokens = d.pop("cached_tokens")

        input_tokens_details = cls(
            cache_write_tokens=cache_write_tokens,
            cached_tokens=cached_tokens,
        )


        input_tokens_details.additional_properties = d
        return input_tokens_details

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
