from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="ClassifyResponseIODescriptor")



@_attrs_define
class ClassifyResponseIODescriptor:
    """ 
        Attributes:
            labels (list[str]): Labels, best first.
            model (str): Model tag that produced the scores.
            multi_label (bool): Whether each score stands alone (true) or all sum to 1 (false).
            revision (str): Model content revision (weights hash or hub revision).
            scores (list[float]): Score of each label, same order.
     """

    labels: list[str]
    model: str
    multi_label: bool
    revision: str
    scores: list[float]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        labels = self.labels



        model = self.model

        multi_label = self.multi_label

        revision = self.revision

        scores = self.scores




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "labels": labels,
            "model": model,
            "multi_label": multi_label,
            "revision": revision,
            "scores": scores,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        labels = cast(list[str], d.pop("labels"))


        model = d.pop("model")

        multi_label = d.pop("multi_label")

        revision = d.pop("revision")

        scores = cast(list[float], d.pop("scores"))


        classify_response_io_descriptor = cls(
            labels=labels,
            model=model,
            multi_label=multi_label,
            revision=revision,
            scores=scores,
        )


        classify_response_io_descriptor.additional_properties = d
        return classify_response_io_descriptor

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
