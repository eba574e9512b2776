from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="LabelSetCalibration")



@_attrs_define
class LabelSetCalibration:
    """ 
        Attributes:
            calibrated (bool): Whether its answers are corrected now (enough texts; a frozen fit for this model).
            mode (str): none, traffic (learned from the texts answered with its labels) or frozen.
            texts (int | None): traffic: texts its own wording has seen on the model it runs on (every replica's, with
                Redis); frozen: texts zsc calibrate fitted it on; null with none.
     """

    calibrated: bool
    mode: str
    texts: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        calibrated = self.calibrated

        mode = self.mode

        texts: int | None
        texts = self.texts


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "calibrated": calibrated,
            "mode": mode,
            "texts": texts,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        calibrated = d.pop("calibrated")

        mode = d.pop("mode")

        def _parse_texts(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        texts = _parse_texts(d.pop("texts"))


        label_set_calibration = cls(
            calibrated=calibrated,
            mode=mode,
            texts=texts,
        )


        label_set_calibration.additional_properties = d
        return label_set_calibration

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
