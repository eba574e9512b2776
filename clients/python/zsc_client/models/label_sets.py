from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.label_set_summary import LabelSetSummary
  from ..models.model_calibration_scope import ModelCalibrationScope





T = TypeVar("T", bound="LabelSets")



@_attrs_define
class LabelSets:
    """ 
        Attributes:
            calibration_scopes (list[ModelCalibrationScope]): Every traffic record this replica holds, ad hoc label wordings
                too, per model and per scope the caller may see: its API key's own and the shared one, never another key's.
            label_sets (list[LabelSetSummary]):
     """

    calibration_scopes: list[ModelCalibrationScope]
    label_sets: list[LabelSetSummary]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.label_set_summary import LabelSetSummary # noqa: PLC0415
        from ..models.model_calibration_scope import ModelCalibrationScope # noqa: PLC0415
        calibration_scopes = []
        for calibration_scopes_item_data in self.calibration_scopes:
            calibration_scopes_item = calibration_scopes_item_data.to_dict()
            calibration_scopes.append(calibration_scopes_item)



        label_sets = []
        for label_sets_item_data in self.label_sets:
            label_sets_item = label_sets_item_data.to_dict()
            label_sets.append(label_sets_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "calibration_scopes": calibration_scopes,
            "label_sets": label_sets,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.label_set_summary import LabelSetSummary # noqa: PLC0415
        from ..models.model_calibration_scope import ModelCalibrationScope # noqa: PLC0415
        d = dict(src_dict)
        calibration_scopes = []
        _calibration_scopes = d.pop("calibration_scopes")
        for calibration_scopes_item_data in (_calibration_scopes):
            calibration_scopes_item = ModelCalibrationScope.from_dict(calibration_scopes_item_data)



            calibration_scopes.append(calibration_scopes_item)


        label_sets = []
        _label_sets = d.pop("label_sets")
        for label_sets_item_data in (_label_sets):
            label_sets_item = LabelSetSummary.from_dict(label_sets_item_data)



            label_sets.append(label_sets_item)


        label_sets = cls(
            calibration_scopes=calibration_scopes,
            label_sets=label_sets,
        )


        label_sets.additional_properties = d
        return label_sets

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
