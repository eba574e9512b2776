from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="HfZeroShotResponse200Type1Item")



@_attrs_define
class HfZeroShotResponse200Type1Item:
    """ 
        Attributes:
            labels (list[str]):
            scores (list[float]):
            sequence (str):
     """

    labels: list[str]
    scores: list[float]
    sequence: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        labels = self.labels



        scores = self.scores



        sequence = self.sequence


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "labels": labels,
            "scores": scores,
            "sequence": sequence,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        labels = cast(list[str], d.pop("labels"))


        scores = cast(list[float], d.pop("scores"))


        sequence = d.pop("sequence")

        hf_zero_shot_response_200_type_1_item = cls(
            labels=labels,
            scores=scores,
            sequence=sequence,
        )


        hf_zero_shot_response_200_type_1_item.additional_properties = d
        return hf_zero_shot_response_200_type_1_item

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
