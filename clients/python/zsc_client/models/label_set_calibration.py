from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.calibration_scope import CalibrationScope





T = TypeVar("T", bound="LabelSetCalibration")



@_attrs_define
class LabelSetCalibration:
    """ 
        Attributes:
            calibrated (bool): Whether its answers are corrected now (enough texts; a frozen fit for this model).
            mode (str): none, traffic (learned from the texts answered with its labels) or frozen.
            texts (int | None): traffic: texts its own wording has seen on the model it runs on (every replica's, with
                Redis); frozen: texts zsc calibrate fitted it on; null with none.
            scopes (list[CalibrationScope] | None | Unset): traffic: this replica's records of its own wording per scope the
                caller may see (its API key's and the shared one).
     """

    calibrated: bool
    mode: str
    texts: int | None
    scopes: list[CalibrationScope] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.calibration_scope import CalibrationScope # noqa: PLC0415
        calibrated = self.calibrated

        mode = self.mode

        texts: int | None
        texts = self.texts

        scopes: list[dict[str, Any]] | None | Unset
        if isinstance(self.scopes, Unset):
            scopes = UNSET
        elif isinstance(self.scopes, list):
            scopes = []
            for scopes_type_0_item_data in self.scopes:
                scopes_type_0_item = scopes_type_0_item_data.to_dict()
                scopes.append(scopes_type_0_item)


        else:
            scopes = self.scopes


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "calibrated": calibrated,
            "mode": mode,
            "texts": texts,
        })
        if scopes is not UNSET:
            field_dict["scopes"] = scopes

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.calibration_scope import CalibrationScope # noqa: PLC0415
        d = dict(src_dict)
        calibrated = d.pop("calibrated")

        mode = d.pop("mode")

        def _parse_texts(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        texts = _parse_texts(d.pop("texts"))


        def _parse_scopes(data: object) -> list[CalibrationScope] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                scopes_type_0 = []
                _scopes_type_0 = data
                for scopes_type_0_item_data in (_scopes_type_0):
                    scopes_type_0_item = CalibrationScope.from_dict(scopes_type_0_item_data)



                    scopes_type_0.append(scopes_type_0_item)

                return scopes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CalibrationScope] | None | Unset, data)

        scopes = _parse_scopes(d.pop("scopes", UNSET))


        label_set_calibration = cls(
            calibrated=calibrated,
            mode=mode,
            texts=texts,
            scopes=scopes,
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
