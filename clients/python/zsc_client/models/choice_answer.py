from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.choice_answer_type import check_choice_answer_type
from ..models.choice_answer_type import ChoiceAnswerType
from typing import cast

if TYPE_CHECKING:
  from ..models.choice_probability import ChoiceProbability





T = TypeVar("T", bound="ChoiceAnswer")



@_attrs_define
class ChoiceAnswer:
    """ 
        Attributes:
            choice (bool | str):
            confidence (float):
            name (None | str):
            probabilities (list[ChoiceProbability]):
            type_ (ChoiceAnswerType):  Default: 'choice'.
     """

    choice: bool | str
    confidence: float
    name: None | str
    probabilities: list[ChoiceProbability]
    type_: ChoiceAnswerType = 'choice'
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.choice_probability import ChoiceProbability # noqa: PLC0415
        choice: bool | str
        choice = self.choice

        confidence = self.confidence

        name: None | str
        name = self.name

        probabilities = []
        for probabilities_item_data in self.probabilities:
            probabilities_item = probabilities_item_data.to_dict()
            probabilities.append(probabilities_item)



        type_: str = self.type_


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "choice": choice,
            "confidence": confidence,
            "name": name,
            "probabilities": probabilities,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.choice_probability import ChoiceProbability # noqa: PLC0415
        d = dict(src_dict)
        def _parse_choice(data: object) -> bool | str:
            return cast(bool | str, data)

        choice = _parse_choice(d.pop("choice"))


        confidence = d.pop("confidence")

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))


        probabilities = []
        _probabilities = d.pop("probabilities")
        for probabilities_item_data in (_probabilities):
            probabilities_item = ChoiceProbability.from_dict(probabilities_item_data)



            probabilities.append(probabilities_item)


        type_ = check_choice_answer_type(d.pop("type"))




        choice_answer = cls(
            choice=choice,
            confidence=confidence,
            name=name,
            probabilities=probabilities,
            type_=type_,
        )


        choice_answer.additional_properties = d
        return choice_answer

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
