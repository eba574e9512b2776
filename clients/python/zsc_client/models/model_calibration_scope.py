from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ModelCalibrationScope")



@_attrs_define
class ModelCalibrationScope:
    """ 
        Attributes:
            held_back (int): Sources whose texts the burst guard holds back now, on this replica.
            largest_share (float): The largest source's share of a record's weight, before the cap.
            model (str): The model whose records these are.
            records (int): Records this replica holds in it (label wordings learned apart).
            scope (str): key:<key id> (an API key's own records) or shared (keys off, or sets opting in).
            sources (int): Sources (API keys, else client addresses) of the record with the most.
            texts (int): Texts its records have seen (every replica's, as this replica last read them).
     """

    held_back: int
    largest_share: float
    model: str
    records: int
    scope: str
    sources: int
    texts: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        held_back = self.held_back

        largest_share = self.largest_share

        model = self.model

        records = self.records

        scope = self.scope

        sources = self.sources

        texts = self.texts


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "held_back": held_back,
            "largest_share": largest_share,
            "model": model,
            "records": records,
            "scope": scope,
            "sources": sources,
            "texts": texts,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        held_back = d.pop("held_back")

        largest_share = d.pop("largest_share")

        model = d.pop("model")

        records = d.pop("records")

        scope = d.pop("scope")

        sources = d.pop("sources")

        texts = d.pop("texts")

        model_calibration_scope = cls(
            held_back=held_back,
            largest_share=largest_share,
            model=model,
            records=records,
            scope=scope,
            sources=sources,
            texts=texts,
        )


        model_calibration_scope.additional_properties = d
        return model_calibration_scope

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
