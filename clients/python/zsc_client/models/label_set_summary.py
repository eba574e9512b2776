from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.label_set_calibration import LabelSetCalibration
  from ..models.label_set_summary_thresholds import LabelSetSummaryThresholds





T = TypeVar("T", bound="LabelSetSummary")



@_attrs_define
class LabelSetSummary:
    """ 
        Attributes:
            calibration (LabelSetCalibration):
            description (None | str):
            example_rule (None | str): How its labels' examples join their wording (null: the model's).
            example_weight (float | None):
            examples (int): Example texts its labels carry, in all.
            hypothesis_template (None | str):
            labels (list[str]):
            matches_model (bool): False when the set was tuned on another model or revision.
            model (None | str):
            multi_label (bool | None):
            name (str):
            revision (None | str):
            threshold (float | None):
            thresholds (LabelSetSummaryThresholds):
     """

    calibration: LabelSetCalibration
    description: None | str
    example_rule: None | str
    example_weight: float | None
    examples: int
    hypothesis_template: None | str
    labels: list[str]
    matches_model: bool
    model: None | str
    multi_label: bool | None
    name: str
    revision: None | str
    threshold: float | None
    thresholds: LabelSetSummaryThresholds
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.label_set_calibration import LabelSetCalibration # noqa: PLC0415
        from ..models.label_set_summary_thresholds import LabelSetSummaryThresholds # noqa: PLC0415
        calibration = self.calibration.to_dict()

        description: None | str
        description = self.description

        example_rule: None | str
        example_rule = self.example_rule

        example_weight: float | None
        example_weight = self.example_weight

        examples = self.examples

        hypothesis_template: None | str
        hypothesis_template = self.hypothesis_template

        labels = self.labels



        matches_model = self.matches_model

        model: None | str
        model = self.model

        multi_label: bool | None
        multi_label = self.multi_label

        name = self.name

        revision: None | str
        revision = self.revision

        threshold: float | None
        threshold = self.threshold

        thresholds = self.thresholds.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "calibration": calibration,
            "description": description,
            "example_rule": example_rule,
            "example_weight": example_weight,
            "examples": examples,
            "hypothesis_template": hypothesis_template,
            "labels": labels,
            "matches_model": matches_model,
            "model": model,
            "multi_label": multi_label,
            "name": name,
            "revision": revision,
            "threshold": threshold,
            "thresholds": thresholds,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.label_set_calibration import LabelSetCalibration # noqa: PLC0415
        from ..models.label_set_summary_thresholds import LabelSetSummaryThresholds # noqa: PLC0415
        d = dict(src_dict)
        calibration = LabelSetCalibration.from_dict(d.pop("calibration"))




        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))


        def _parse_example_rule(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        example_rule = _parse_example_rule(d.pop("example_rule"))


        def _parse_example_weight(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        example_weight = _parse_example_weight(d.pop("example_weight"))


        examples = d.pop("examples")

        def _parse_hypothesis_template(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        hypothesis_template = _parse_hypothesis_template(d.pop("hypothesis_template"))


        labels = cast(list[str], d.pop("labels"))


        matches_model = d.pop("matches_model")

        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))


        def _parse_multi_label(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        multi_label = _parse_multi_label(d.pop("multi_label"))


        name = d.pop("name")

        def _parse_revision(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        revision = _parse_revision(d.pop("revision"))


        def _parse_threshold(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        threshold = _parse_threshold(d.pop("threshold"))


        thresholds = LabelSetSummaryThresholds.from_dict(d.pop("thresholds"))




        label_set_summary = cls(
            calibration=calibration,
            description=description,
            example_rule=example_rule,
            example_weight=example_weight,
            examples=examples,
            hypothesis_template=hypothesis_template,
            labels=labels,
            matches_model=matches_model,
            model=model,
            multi_label=multi_label,
            name=name,
            revision=revision,
            threshold=threshold,
            thresholds=thresholds,
        )


        label_set_summary.additional_properties = d
        return label_set_summary

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
