from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.system_one_score_answer_type import check_system_one_score_answer_type
from ..models.system_one_score_answer_type import SystemOneScoreAnswerType
from typing import cast

if TYPE_CHECKING:
  from ..models.system_one_score_answer_legend import SystemOneScoreAnswerLegend
  from ..models.system_one_score_answer_probabilities import SystemOneScoreAnswerProbabilities





T = TypeVar("T", bound="SystemOneScoreAnswer")



@_attrs_define
class SystemOneScoreAnswer:
    """ 
        Attributes:
            confidence (float):
            legend (SystemOneScoreAnswerLegend):
            probabilities (SystemOneScoreAnswerProbabilities):
            score (float):
            type_ (SystemOneScoreAnswerType):  Default: 'score'.
     """

    confidence: float
    legend: SystemOneScoreAnswerLegend
    probabilities: SystemOneScoreAnswerProbabilities
    score: float
    type_: SystemOneScoreAnswerType = 'score'
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.system_one_score_answer_legend import SystemOneScoreAnswerLegend # noqa: PLC0415
        from ..models.system_one_score_answer_probabilities import SystemOneScoreAnswerProbabilities # noqa: PLC0415
        confidence = self.confidence

        legend = self.legend.to_dict()

        probabilities = self.probabilities.to_dict()

        score = self.score

        type_: str = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "confidence": confidence,
            "legend": legend,
            "probabilities": probabilities,
            "score": score,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.system_one_score_answer_legend import SystemOneScoreAnswerLegend # noqa: PLC0415
        from ..models.system_one_score_answer_probabilities import SystemOneScoreAnswerProbabilities # noqa: PLC0415
        d = dict(src_dict)
        confidence = d.pop("confidence")

        legend = SystemOneScoreAnswerLegend.from_dict(d.pop("legend"))




        probabilities = SystemOneScoreAnswerProbabilities.from_dict(d.pop("probabilities"))




        score = d.pop("score")

        type_ = check_system_one_score_answer_type(d.pop("type"))




        system_one_score_answer = cls(
            confidence=confidence,
            legend=legend,
            probabilities=probabilities,
            score=score,
            type_=type_,
        )


        system_one_score_answer.additional_properties = d
        return system_one_score_answer

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
