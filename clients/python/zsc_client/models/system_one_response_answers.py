from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.noul_answer import NoulAnswer
  from ..models.system_one_choice_answer import SystemOneChoiceAnswer
  from ..models.system_one_score_answer import SystemOneScoreAnswer





T = TypeVar("T", bound="SystemOneResponseAnswers")



@_attrs_define
class SystemOneResponseAnswers:
    

    additional_properties: dict[str, NoulAnswer | SystemOneChoiceAnswer | SystemOneScoreAnswer] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.noul_answer import NoulAnswer # noqa: PLC0415
        from ..models.system_one_choice_answer import SystemOneChoiceAnswer # noqa: PLC0415
        from ..models.system_one_score_answer import SystemOneScoreAnswer # noqa: PLC0415
        
        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            
            if isinstance(prop, NoulAnswer):
                field_dict[prop_name] = prop.to_dict()
            elif isinstance(prop, SystemOneChoiceAnswer):
                field_dict[prop_name] = prop.to_dict()
            else:
                field_dict[prop_name] = prop.to_dict()



        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.noul_answer import NoulAnswer # noqa: PLC0415
        from ..models.system_one_choice_answer import SystemOneChoiceAnswer # noqa: PLC0415
        from ..models.system_one_score_answer import SystemOneScoreAnswer # noqa: PLC0415
        d = dict(src_dict)
        system_one_response_answers = cls(
        )


        additional_properties = {}
        for prop_name, prop_dict in d.items():
            def _parse_additional_property(data: object) -> NoulAnswer | SystemOneChoiceAnswer | SystemOneScoreAnswer:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    additional_property_type_0 = NoulAnswer.from_dict(data)



                    return additional_property_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    additional_property_type_1 = SystemOneChoiceAnswer.from_dict(data)



                    return additional_property_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                additional_property_type_2 = SystemOneScoreAnswer.from_dict(data)



                return additional_property_type_2

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        system_one_response_answers.additional_properties = additional_properties
        return system_one_response_answers

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> NoulAnswer | SystemOneChoiceAnswer | SystemOneScoreAnswer:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: NoulAnswer | SystemOneChoiceAnswer | SystemOneScoreAnswer) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
