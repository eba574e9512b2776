from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.system_one_choice_question_criteria_additional_property_type_1 import SystemOneChoiceQuestionCriteriaAdditionalPropertyType1





T = TypeVar("T", bound="SystemOneChoiceQuestionCriteria")



@_attrs_define
class SystemOneChoiceQuestionCriteria:
    

    additional_properties: dict[str, list[Any] | None | str | SystemOneChoiceQuestionCriteriaAdditionalPropertyType1] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.system_one_choice_question_criteria_additional_property_type_1 import SystemOneChoiceQuestionCriteriaAdditionalPropertyType1 # noqa: PLC0415
        
        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            
            if isinstance(prop, SystemOneChoiceQuestionCriteriaAdditionalPropertyType1):
                field_dict[prop_name] = prop.to_dict()
            elif isinstance(prop, list):
                field_dict[prop_name] = prop


            else:
                field_dict[prop_name] = prop


        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.system_one_choice_question_criteria_additional_property_type_1 import SystemOneChoiceQuestionCriteriaAdditionalPropertyType1 # noqa: PLC0415
        d = dict(src_dict)
        system_one_choice_question_criteria = cls(
        )


        additional_properties = {}
        for prop_name, prop_dict in d.items():
            def _parse_additional_property(data: object) -> list[Any] | None | str | SystemOneChoiceQuestionCriteriaAdditionalPropertyType1:
                if data is None:
                    return data
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    additional_property_type_1 = SystemOneChoiceQuestionCriteriaAdditionalPropertyType1.from_dict(data)



                    return additional_property_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, list):
                        raise TypeError()
                    additional_property_type_2 = cast(list[Any], data)

                    return additional_property_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(list[Any] | None | str | SystemOneChoiceQuestionCriteriaAdditionalPropertyType1, data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        system_one_choice_question_criteria.additional_properties = additional_properties
        return system_one_choice_question_criteria

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> list[Any] | None | str | SystemOneChoiceQuestionCriteriaAdditionalPropertyType1:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: list[Any] | None | str | SystemOneChoiceQuestionCriteriaAdditionalPropertyType1) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
