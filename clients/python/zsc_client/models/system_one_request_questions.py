from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.noul_question import NoulQuestion
  from ..models.system_one_choice_question import SystemOneChoiceQuestion
  from ..models.system_one_score_question import SystemOneScoreQuestion





T = TypeVar("T", bound="SystemOneRequestQuestions")



@_attrs_define
class SystemOneRequestQuestions:
    

    additional_properties: dict[str, NoulQuestion | SystemOneChoiceQuestion | SystemOneScoreQuestion] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.noul_question import NoulQuestion # noqa: PLC0415
        from ..models.system_one_choice_question import SystemOneChoiceQuestion # noqa: PLC0415
        from ..models.system_one_score_question import SystemOneScoreQuestion # noqa: PLC0415
        
        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            
            if isinstance(prop, NoulQuestion):
                field_dict[prop_name] = prop.to_dict()
            elif isinstance(prop, SystemOneChoiceQuestion):
                field_dict[prop_name] = prop.to_dict()
            else:
                field_dict[prop_name] = prop.to_dict()



        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.noul_question import NoulQuestion # noqa: PLC0415
        from ..models.system_one_choice_question import SystemOneChoiceQuestion # noqa: PLC0415
        from ..models.system_one_score_question import SystemOneScoreQuestion # noqa: PLC0415
        d = dict(src_dict)
        system_one_request_questions = cls(
        )


        additional_properties = {}
        for prop_name, prop_dict in d.items():
            def _parse_additional_property(data: object) -> NoulQuestion | SystemOneChoiceQuestion | SystemOneScoreQuestion:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    additional_property_type_0 = NoulQuestion.from_dict(data)



                    return additional_property_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    additional_property_type_1 = SystemOneChoiceQuestion.from_dict(data)



                    return additional_property_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                additional_property_type_2 = SystemOneScoreQuestion.from_dict(data)



                return additional_property_type_2

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        system_one_request_questions.additional_properties = additional_properties
        return system_one_request_questions

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> NoulQuestion | SystemOneChoiceQuestion | SystemOneScoreQuestion:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: NoulQuestion | SystemOneChoiceQuestion | SystemOneScoreQuestion) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
