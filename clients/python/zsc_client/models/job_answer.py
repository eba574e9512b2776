from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.answer_warning import AnswerWarning
  from ..models.calibration_applied import CalibrationApplied





T = TypeVar("T", bound="JobAnswer")



@_attrs_define
class JobAnswer:
    """ 
        Attributes:
            calibration (CalibrationApplied): Which calibration an answer's scores went through.
            index (int): The item's position in the job (0-based).
            labels (list[str]): Labels (names), best first.
            model (str): Model tag that produced the scores.
            multi_label (bool): Whether each score stands alone (true) or all sum to 1 (false).
            predicted (list[str] | None | str): The decision. Single-label: the top label, or null when a threshold was
                given and the top score is under it (abstain). Multi-label: every label scoring at or above the threshold
                (default 0.5).
            revision (str): Model content revision (weights hash or hub revision).
            scores (list[float]): Score of each label, same order.
            truncated (bool): Whether part of the text was not seen by the model (truncation end/start).
            windows (int): Windows the text was scored in (1 unless truncation was chunk).
            warnings (list[AnswerWarning] | Unset): What may make these scores unreliable.
     """

    calibration: CalibrationApplied
    index: int
    labels: list[str]
    model: str
    multi_label: bool
    predicted: list[str] | None | str
    revision: str
    scores: list[float]
    truncated: bool
    windows: int
    warnings: list[AnswerWarning] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.answer_warning import AnswerWarning # noqa: PLC0415
        from ..models.calibration_applied import CalibrationApplied # noqa: PLC0415
        calibration = self.calibration.to_dict()

        index = self.index

        labels = self.labels



        model = self.model

        multi_label = self.multi_label

        predicted: list[str] | None | str
        if isinstance(self.predicted, list):
            predicted = self.predicted


        else:
            predicted = self.predicted

        revision = self.revision

        scores = self.scores



        truncated = self.truncated

        windows = self.windows

        warnings: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = []
            for warnings_item_data in self.warnings:
                warnings_item = warnings_item_data.to_dict()
                warnings.append(warnings_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "calibration": calibration,
            "index": index,
            "labels": labels,
            "model": model,
            "multi_label": multi_label,
            "predicted": predicted,
            "revision": revision,
            "scores": scores,
            "truncated": truncated,
            "windows": windows,
        })
        if warnings is not UNSET:
            field_dict["warnings"] = warnings

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.answer_warning import AnswerWarning # noqa: PLC0415
        from ..models.calibration_applied import CalibrationApplied # noqa: PLC0415
        d = dict(src_dict)
        calibration = CalibrationApplied.from_dict(d.pop("calibration"))




        index = d.pop("index")

        labels = cast(list[str], d.pop("labels"))


        model = d.pop("model")

        multi_label = d.pop("multi_label")

        def _parse_predicted(data: object) -> list[str] | None | str:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                predicted_type_1 = cast(list[str], data)

                return predicted_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str, data)

        predicted = _parse_predicted(d.pop("predicted"))


        revision = d.pop("revision")

        scores = cast(list[float], d.pop("scores"))


        truncated = d.pop("truncated")

        windows = d.pop("windows")

        _warnings = d.pop("warnings", UNSET)
        warnings: list[AnswerWarning] | Unset = UNSET
        if _warnings is not UNSET:
            warnings = []
            for warnings_item_data in _warnings:
                warnings_item = AnswerWarning.from_dict(warnings_item_data)



                warnings.append(warnings_item)


        job_answer = cls(
            calibration=calibration,
            index=index,
            labels=labels,
            model=model,
            multi_label=multi_label,
            predicted=predicted,
            revision=revision,
            scores=scores,
            truncated=truncated,
            windows=windows,
            warnings=warnings,
        )


        job_answer.additional_properties = d
        return job_answer

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
