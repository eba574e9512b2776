from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.calibration_applied_mode import CalibrationAppliedMode
from ..models.calibration_applied_mode import check_calibration_applied_mode
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CalibrationApplied")



@_attrs_define
class CalibrationApplied:
    """ Which calibration an answer's scores went through.

        Attributes:
            calibrated (bool): Whether the scores were corrected: false with none, and while a traffic or job calibration
                has seen too few texts (ZSC_CALIBRATION_MIN_TEXTS) or a frozen one does not fit the labels or the model.
            mode (CalibrationAppliedMode): none; traffic (learned from the texts answered with the same labels); frozen
                (fitted offline into the label set by zsc calibrate); job (from the job's own texts).
            texts (int | None): Texts the calibration has seen (traffic, this replica's view), was fitted on (frozen), or
                the job's texts with these labels (job); null with none.
            scope (None | str | Unset): traffic: whose records corrected it: key:<key id> (the API key that sent the text:
                no other key reads or moves them), or shared (API keys off, or a label set with calibration_scope: shared).
                Absent for the other modes.
     """

    calibrated: bool
    mode: CalibrationAppliedMode
    texts: int | None
    scope: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        calibrated = self.calibrated

        mode: str = self.mode

        texts: int | None
        texts = self.texts

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "calibrated": calibrated,
            "mode": mode,
            "texts": texts,
        })
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        calibrated = d.pop("calibrated")

        mode = check_calibration_applied_mode(d.pop("mode"))




        def _parse_texts(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        texts = _parse_texts(d.pop("texts"))


        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))


        calibration_applied = cls(
            calibrated=calibrated,
            mode=mode,
            texts=texts,
            scope=scope,
        )


        calibration_applied.additional_properties = d
        return calibration_applied

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
