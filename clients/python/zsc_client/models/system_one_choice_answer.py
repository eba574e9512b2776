from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.system_one_choice_answer_type import check_system_one_choice_answer_type
from ..models.system_one_choice_answer_type import SystemOneChoiceAnswerType
from typing import cast

if TYPE_CHECKING:
  from ..models.system_one_choice_answer_probabilities import SystemOneChoiceAnswerProbabilities





T = TypeVar("T", bound="SystemOneChoiceAnswer")



@_attrs_define
class SystemOneChoiceAnswer:
    """ 
        Attributes:
            choice (str):
            confidence (float):
            probabilities (SystemOneChoiceAnswerProbabilities):
            type_ (SystemOneChoiceAnswerType):  Default: 'choice'.
     """

    choice: str
    confidence: float
    probabilities: SystemOneChoiceAnswerProbabilities
    type_: SystemOneChoiceAnswerType = 'choice'
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.system_one_choice_answer_probabilities import SystemOneChoiceAnswerProbabilities # noqa: PLC0415
        choice = self.choice

        confidence = self.confidence

        probabilities = self.probabilities.to_dict()

        type_: str = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "choice": choice,
            "confidence": confidence,
            "probabilities": probabilities,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.system_one_choice_answer_probabilities import SystemOneChoiceAnswerProbabilities # noqa: PLC0415
        d = dict(src_dict)
        choice = d.pop("choice")

        confidence = d.pop("confidence")

        probabilities = SystemOneChoiceAnswerProbabilities.from_dict(d.pop("probabilities"))




        type_ = check_system_one_choice_answer_type(d.pop("type"))




        system_one_choice_answer = cls(
            choice=choice,
            confidence=confidence,
            probabilities=probabilities,
            type_=type_,
        )


        system_one_choice_answer.additional_properties = d
        return system_one_choice_answer

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
